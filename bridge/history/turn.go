package history

// A thread's past turns put in the order the thread had them.

import (
	"slices"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/bridge/past"
)

func fromOperator(ts []a2aclient.OperatorTurn) []past.Turn {
	out := make([]past.Turn, 0, len(ts))
	for _, t := range ts {
		st := t.State
		if st == "" || st == a2a.StateUnknown {
			st = t.Status.State
		}
		out = append(out, past.Turn{TaskID: t.TaskID, State: st, Updated: t.Updated, Text: t.Text, Status: t.Status,
			Artifacts: t.Artifacts, History: t.History})
	}
	return out
}

func fromTask(t *a2a.Task) past.Turn {
	return past.Turn{TaskID: t.ID, State: t.Status.State, Updated: t.Status.Timestamp, Status: t.Status, Artifacts: t.Artifacts, History: t.History}
}

// oldestFirst orders turns by their status timestamp, oldest first, then
// by the order the server gave (SPEC §4.5); a thread where some turn has
// no timestamp follows the order of the messages in its longest history.
func oldestFirst(ts []past.Turn) {
	for i := range ts {
		if ts[i].Updated.IsZero() {
			byLongestHistory(ts)
			return
		}
	}
	slices.SortStableFunc(ts, func(a, b past.Turn) int { return a.Updated.Compare(b.Updated) })
}

// byLongestHistory orders the turns whose messages the longest history
// holds (agents that keep a context's whole history in every task) by the
// place of their last such message there, then by the server's order; a
// turn none of whose messages it holds keeps its place (SPEC §4.5
// amended). The cost is linear in the messages read.
func byLongestHistory(ts []past.Turn) {
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
		turn past.Turn
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

// Settle gives the turns that failed live, by the index (failures: the
// friendly text by task id), their failure when the server still keeps
// their task running: a server that sent the failure under a task id of
// its own making leaves the real task working for ever (SPEC §16). A turn
// the server says ended keeps the server's word.
func Settle(ts []past.Turn, failures map[string]string) {
	if len(failures) == 0 {
		return
	}
	for i := range ts {
		p := &ts[i]
		text, ok := failures[p.TaskID]
		if !ok || p.TaskID == "" || p.State.Terminal() || p.State.Interrupted() {
			continue
		}
		p.State = a2a.StateFailed
		p.Status = a2a.Status{State: a2a.StateFailed, Timestamp: p.Status.Timestamp,
			Message: &a2a.Message{Role: "agent", Parts: []a2a.Part{{Kind: a2a.PartText, Text: text}}}}
	}
}
