package notice

import (
	"strconv"

	"github.com/shimdev/shim/acp"
)

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
