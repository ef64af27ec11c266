package notice

// What shim says about itself (SPEC §14): to a client that advertised
// session.notices, a notice (a short title, severity info or warning)
// shown apart from the conversation; to any other, what it always was: a
// thought, a line of the answer, or nothing but the log.

import (
	"strings"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/internal/textcut"
)

// Told is how a client without notices hears of a Notice.
type Told uint8

// How a client without notices is told.
const (
	ToldNowhere   Told = iota // the log says it, the editor is not told
	ToldAsThought             // a thought
	ToldAsAnswer              // a line of the answer
)

// A Notice is one thing shim says about itself.
type Notice struct {
	Severity acp.NoticeSeverity
	// Title stands alone; Detail is the notice's description.
	Title, Detail string
	// Else is how a client without notices is told, and Shown what it
	// is shown then (as it always was).
	Else  Told
	Shown string
}

// Notice limits: a title is short, a description bounded whatever a
// server's status text holds.
const (
	noticeTitleMax  = 100
	noticeDetailMax = 4000
)

// Of is the notice update of title (its first line, cut short) and
// detail (left out when the title says it all), both without control
// characters or bidirectional overrides (SPEC §15: they may be a server's
// text).
func Of(sev acp.NoticeSeverity, title, detail string) acp.Notice {
	first, _, _ := strings.Cut(strings.TrimSpace(title), "\n")
	t := textcut.Cut(strings.TrimSpace(termsafe.Line(first)), noticeTitleMax)
	if t == "" {
		t = "shim"
	}
	n := acp.Notice{Severity: sev, Title: t}
	if d := strings.TrimSpace(termsafe.Text(detail)); d != "" && d != t {
		n.Description = textcut.Cut(d, noticeDetailMax)
	}
	return n
}

// Update is n as a notice update.
func (n Notice) Update() acp.Update { return Of(n.Severity, n.Title, n.Detail) }

// Said is a notice about a session outside a turn: the notice update
// when the client advertised notices, else what it was always shown (an
// answer chunk of the message id, or a thought); nil when such a client
// is not told.
func Said(n Notice, notices bool, id string) acp.Update {
	switch {
	case notices:
		return n.Update()
	case n.Else == ToldAsThought:
		return acp.AgentThoughtChunk{MessageID: id, Content: acp.Text(n.Shown)}
	case n.Else == ToldAsAnswer:
		return acp.AgentMessageChunk{MessageID: id, Content: acp.Text(n.Shown)}
	}
	return nil
}
