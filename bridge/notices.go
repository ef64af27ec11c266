package bridge

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/remote"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/internal/randid"
)

// notices tells the editor about a session outside a turn (SPEC §14): a
// notice to a client that draws them, else what such a client was always
// shown, or nothing.
type notices struct {
	out    *out
	editor *editor.Editor
	store  *sessions.Store
	queues *queues
	agent  *remote.Agent
}

// say tells the editor a notice about the session id outside a turn (a
// notice, or what a client without notices was always shown; nothing
// when such a client is not told).
func (n *notices) say(id string, x notice.Notice) {
	if u := notice.Said(x, n.editor.Notices(), "shim-"+randid.Hex(6)); u != nil {
		n.out.notify(id, u)
	}
}

// mcp says once per session that the count MCP servers the editor
// offered are not forwarded (a notice; the log says it once per process).
func (n *notices) mcp(id string, count int) {
	if count == 0 {
		return
	}
	if n.editor.FirstMCPNote() {
		n.out.log.Info("mcpServers from the editor are not forwarded: the remote agent cannot reach this machine's MCP servers", "count", count)
	}
	if sess := n.store.Session(id); sess != nil && n.editor.Notices() && sess.TellMCP() {
		n.say(id, notice.MCPNotice(count))
	}
}

// mcpAfterReply queues the MCP notice of a new session (mcp) on the
// session's queue now, before any prompt of it, to run once release is
// called (the response was written).
func (n *notices) mcpAfterReply(id string, count int) (release func()) {
	if count == 0 {
		return func() {}
	}
	ready := make(chan struct{})
	n.queues.enqueue(id, func() {
		<-ready
		n.mcp(id, count)
	})
	return func() { close(ready) }
}

// reporter tells the editor, as notices about the session id, what the
// A2A client did on its own in a call (a renewed sign-in); nil for a
// client without notices. It never waits for the editor.
func (n *notices) reporter(id string) a2a.Reporter {
	if !n.editor.Notices() {
		return nil
	}
	return func(rep a2a.Report) {
		var x notice.Notice
		switch rep.Kind {
		case a2a.ReportTokenRenewed:
			x = notice.RenewedNotice()
		case a2a.ReportRenewalRefused:
			x = notice.RenewalRefusedNotice()
		default:
			return
		}
		n.out.send(id, x.Update())
	}
}

// noReplay says, once per process and after the answer that is being
// written (queued on the session), that the agent gives no thread's
// history back.
func (n *notices) noReplay(id string) {
	if n.editor.FirstNoReplayNote() {
		n.queues.enqueue(id, func() { n.say(id, notice.NoReplayNotice(n.agent.Name())) })
	}
}
