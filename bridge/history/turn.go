package history

// A past turn as read back (SPEC §4.5), in the order the thread had them;
// its title.

import (
	opapi "github.com/shimdev/shim/a2a/operator"
	"github.com/shimdev/shim/internal/textcut"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/shimdev/shim/a2a"
)

// Turn is one turn of a thread as read back from the server.
type Turn struct {
	TaskID    string
	State     a2a.State
	Updated   time.Time // zero when unknown
	Text      string    // the operator API's answer text (partial while running)
	Status    a2a.Status
	Artifacts []a2a.Artifact
	History   []a2a.Message
}

func fromOperator(ts []opapi.Turn) []Turn {
	out := make([]Turn, 0, len(ts))
	for _, t := range ts {
		st := t.State
		if st == "" || st == a2a.StateUnknown {
			st = t.Status.State
		}
		out = append(out, Turn{TaskID: t.TaskID, State: st, Updated: t.Updated, Text: t.Text, Status: t.Status,
			Artifacts: t.Artifacts, History: t.History})
	}
	return out
}

func fromTask(t *a2a.Task) Turn {
	return Turn{TaskID: t.ID, State: t.Status.State, Updated: t.Status.Timestamp, Status: t.Status, Artifacts: t.Artifacts, History: t.History}
}

// oldestFirst orders turns by their status timestamp, oldest first, then
// by the order the server gave (SPEC §4.5); a thread where some turn has
// no timestamp follows the order of the messages in its longest history.
func oldestFirst(ts []Turn) {
	for i := range ts {
		if ts[i].Updated.IsZero() {
			byLongestHistory(ts)
			return
		}
	}
	slices.SortStableFunc(ts, func(a, b Turn) int { return a.Updated.Compare(b.Updated) })
}

// byLongestHistory orders the turns whose messages the longest history
// holds (agents that keep a context's whole history in every task) by the
// place of their last such message there, then by the server's order; a
// turn none of whose messages it holds keeps its place (SPEC §4.5
// amended). The cost is linear in the messages read.
func byLongestHistory(ts []Turn) {
	longest := 0
	for i := range ts {
		if len(ts[i].History) > len(ts[longest].History) {
			longest = i
		}
	}
	if len(ts) < 2 || len(ts[longest].History) < 2 {
		return
	}
	at := make(map[string]int, len(ts[longest].History))
	for i := range ts[longest].History {
		if id := ts[longest].History[i].ID; id != "" {
			if _, dup := at[id]; !dup {
				at[id] = i
			}
		}
	}
	type placed struct {
		at   int
		turn Turn
	}
	var slots []int
	var found []placed
	for i := range ts {
		last := -1
		for j := range ts[i].History {
			if n, ok := at[ts[i].History[j].ID]; ok && ts[i].History[j].ID != "" {
				last = max(last, n)
			}
		}
		if last >= 0 {
			slots = append(slots, i)
			found = append(found, placed{last, ts[i]})
		}
	}
	slices.SortStableFunc(found, func(a, b placed) int { return a.at - b.at })
	for n, i := range slots {
		ts[i] = found[n].turn
	}
}

// ToolCalls are the tool calls of m, a message of the turn's history: the
// status message's (a park's data parts among them) when m is the status
// message kept in the history too.
func (p *Turn) ToolCalls(m *a2a.Message) []a2a.ToolCall {
	if park := p.Status.Message; park != nil && m.ID != "" && m.ID == park.ID {
		return p.Status.ToolCalls()
	}
	return m.ToolCalls()
}

// Parked is the park a thread's turns leave (SPEC §6): its last turn when
// it waits in input-required with a task id; nil when there is none.
func Parked(ts []Turn) *Turn {
	if n := len(ts); n > 0 && ts[n-1].State == a2a.StateInputRequired && ts[n-1].TaskID != "" {
		return &ts[n-1]
	}
	return nil
}

// firstUserText is the text of the turn's first user message that is not
// a hitl resume, preamble stripped.
func (p *Turn) firstUserText() string {
	for i := range p.History {
		m := &p.History[i]
		if m.FromUser() && !m.HitlResume() {
			if s := strings.TrimSpace(StripPreamble(m.Text())); s != "" {
				return s
			}
		}
	}
	return ""
}

// Title is a thread's title from the first user message of its turns.
func Title(ts []Turn) string {
	for i := range ts {
		if s := ts[i].firstUserText(); s != "" {
			return TitleOf(s)
		}
	}
	return ""
}

// TitleOf is a thread title: the first 80 characters of the user's text,
// whitespace collapsed, "…" when cut. Only the start of s is looked at.
func TitleOf(s string) string {
	var fields []string
	n := 0
	for f := range strings.FieldsFuncSeq(s, unicode.IsSpace) {
		fields = append(fields, f)
		if n += len(f) + 1; n > 4*80 {
			break
		}
	}
	return textcut.Cut(strings.Join(fields, " "), 80)
}

// PreambleStart is how the editor-context line shim puts before the
// first prompt of a minted session starts.
const PreambleStart = "[Context: the user is talking to you from "

// StripPreamble removes the editor-context line (and the blank line after
// it) from a past user message.
func StripPreamble(s string) string {
	if !strings.HasPrefix(s, PreambleStart) {
		return s
	}
	line, rest, _ := strings.Cut(s, "\n")
	if !strings.HasSuffix(strings.TrimRight(line, " \r"), "]") {
		return s
	}
	rest = strings.TrimPrefix(rest, "\r")
	return strings.TrimPrefix(strings.TrimPrefix(rest, "\n"), "\r\n")
}
