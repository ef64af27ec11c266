package render

// What shim says about itself (SPEC §14): to a client that advertised
// session.notices, a notice (a short title, severity info or warning)
// shown apart from the conversation; to any other, what it always was: a
// thought, a line of the answer, or nothing but the log.

import (
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
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

// noticeOf is the notice update of title (its first line, cut short) and
// detail (left out when the title says it all), both without control
// characters or bidirectional overrides (SPEC §15: they may be a server's
// text).
func noticeOf(sev acp.NoticeSeverity, title, detail string) acp.Notice {
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
func (n Notice) Update() acp.Update { return noticeOf(n.Severity, n.Title, n.Detail) }

// Notices are what shim says in a turn about itself, and an agent's
// progress notes: notices to a client that draws them, else as they
// always were.
type Notices struct {
	out    *sink
	ids    *msgIDs
	answer *Answer
	on     bool // the client draws notices
}

// Say shows a notice of the turn: a notice update when the client
// advertised notices, else as it always was.
func (n *Notices) Say(x Notice) []Out {
	switch {
	case n.on:
		n.out.push(x.Update())
	case x.Else == ToldAsThought:
		n.answer.thought(n.ids.next(), x.Shown)
	case x.Else == ToldAsAnswer:
		n.answer.block(n.ids.next(), x.Shown)
	}
	return n.out.take()
}

// ProgressNote shows the text of a working status message m of the task
// taskID as a progress note: a thought, or an info notice for a client
// that advertised notices (SPEC §12.8, §14).
func (n *Notices) ProgressNote(taskID string, m *a2a.Message) []Out {
	if s := m.Text(); strings.TrimSpace(s) != "" {
		if n.on {
			n.out.push(noticeOf(acp.NoticeInfo, s, s))
		} else {
			n.answer.thought(n.ids.of(taskID, m), s)
		}
	}
	return n.out.take()
}

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
		return AnswerChunk(id, n.Shown)
	}
	return nil
}

// The notices shim gives. Each names what happened in the user's terms, in
// at most two sentences and 200 characters, with no protocol words (SPEC
// §18; TestOwnWordsArePlain checks every one).

// BusyNotice: a turn waits for a chat busy elsewhere.
func BusyNotice() Notice {
	const s = "This chat is busy in another window or the agent's console. Your message is sent once that is done."
	return Notice{Severity: acp.NoticeInfo, Title: "Waiting: this chat is busy in another window", Detail: s, Else: ToldAsThought, Shown: s}
}

// ReconnectingNotice: a turn's stream dropped and shim reattaches.
func ReconnectingNotice() Notice {
	return Notice{Severity: acp.NoticeWarning, Title: "Connection to the agent lost: reconnecting",
		Detail: "The connection to the agent dropped before its answer was done. shim is reconnecting to show the rest."}
}

// RenewedNotice: the OAuth token was renewed in a call.
func RenewedNotice() Notice {
	return Notice{Severity: acp.NoticeInfo, Title: "Your sign-in to the agent was renewed"}
}

// CancelRefusedNotice: the agent did not stop what the person cancelled
// (SPEC §16, a refused cancel).
func CancelRefusedNotice() Notice {
	const s = "The agent did not stop when you cancelled: it may still be finishing that request."
	return Notice{Severity: acp.NoticeWarning, Title: "The agent may still be finishing what you cancelled", Detail: s, Else: ToldAsThought, Shown: s}
}

// StillFinishingNotice: a prompt was sent while the agent still works on
// the request the person cancelled (SPEC §16, a refused cancel).
func StillFinishingNotice() Notice {
	const s = "The agent is still finishing the request you cancelled; it may answer this one after that."
	return Notice{Severity: acp.NoticeInfo, Title: "The agent is still finishing your earlier request", Detail: s, Else: ToldAsThought, Shown: s}
}

// RenewalRefusedNotice: the OAuth token could not be renewed (why the
// renewal failed is the failed request's error, and the log's).
func RenewalRefusedNotice() Notice {
	return Notice{Severity: acp.NoticeWarning, Title: "Your sign-in to the agent could not be renewed",
		Detail: "Your sign-in to the agent expired and could not be renewed. Run `shim login` in a terminal to sign in again."}
}

// MCPNotice: the editor offered n MCP servers, which shim does not
// forward.
func MCPNotice(n int) Notice {
	return Notice{Severity: acp.NoticeInfo, Title: "The agent does not use your editor's MCP tools",
		Detail: "The agent runs apart from this machine and cannot reach the MCP tools your editor offered (" + strconv.Itoa(n) + "); it uses its own tools."}
}

// EarlierNotShown: a replay was cut by the load budget (SPEC §13).
func EarlierNotShown() Notice {
	return Notice{Severity: acp.NoticeInfo, Title: "Earlier turns not shown",
		Detail: "This conversation is too long to load whole: its newest turns are shown.", Else: ToldAsAnswer, Shown: "(earlier turns not shown)"}
}

// NoSkipNotice: the agent asked to approve a command although the
// session allows commands (the message said to skip approvals): shim
// approves them for the person, a delete excepted (SPEC §6).
func NoSkipNotice() Notice {
	const s = "This agent asks before every command even in 'Allow commands' mode: shim answered 'allow' for you (a delete is still asked)."
	return Notice{Severity: acp.NoticeWarning, Title: "This agent asks before every command", Detail: s, Else: ToldAsAnswer, Shown: s + "\n\n"}
}

// ElsewhereNotice: the park a dialog asked about was answered elsewhere
// (another window or the agent's console); the turn follows the task.
func ElsewhereNotice() Notice {
	const s = "The agent's question was answered in another window or the agent's console. What it does next shows here."
	return Notice{Severity: acp.NoticeInfo, Title: "The agent's question was answered elsewhere", Detail: s, Else: ToldAsAnswer, Shown: s + "\n\n"}
}

// NoReplayNotice: the agent gives no thread history back (SPEC §12.5).
func NoReplayNotice(agent string) Notice {
	s := agent + " does not give back a thread's earlier messages, so they cannot be shown here. What you send next goes on in this thread."
	return Notice{Severity: acp.NoticeInfo, Title: "This thread's earlier messages cannot be shown", Detail: s, Else: ToldAsAnswer, Shown: s + "\n\n"}
}
