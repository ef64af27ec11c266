package bridge

// Where each ACP call runs, under which context: thin handlers over the
// session store and the values the Server composes. A request's trace
// context goes on every A2A call it causes (callContext, agent.go).

import (
	"context"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/threads"
)

// routes is the Server as acp's Handler: where each call runs. Its
// methods run on the reader goroutine, so anything that can wait runs
// elsewhere; a session's calls go through that session's queue, in
// arrival order (it is also the acp.SessionWork they are served on).
type routes struct{ *Server }

// Initialize runs at once: the calls after it read what it learned of
// the client. Once answered, the process's reading ahead starts
// (Options.Answered).
func (r routes) Initialize(_ context.Context, req *acp.Request, p *acp.InitializeParams) {
	r.editor.Learn(p)
	res := r.editor.Answer(r.access.methods(p.ClientCapabilities.Auth.Terminal), r.agent.Name())
	r.out.reply(req, res, nil)
	r.answered()
}

// The calls that may wait make their A2A calls under their request's
// context, with its trace context (callContext): the client may cancel one
// ($/cancel_request), and it then leaves nothing half done.

func (r routes) Authenticate(ctx context.Context, req *acp.Request, p *acp.AuthenticateParams) {
	go func() { res, err := r.access.authenticate(callContext(ctx), req, p); r.out.reply(req, res, err) }()
}

func (r routes) Logout(_ context.Context, req *acp.Request) {
	go func() { res, err := r.access.logout(); r.out.reply(req, res, err) }()
}

func (r routes) NewSession(ctx context.Context, req *acp.Request, p *acp.NewSessionParams) {
	go func() {
		res, after, err := r.newSession(callContext(ctx), p)
		r.out.reply(req, res, err)
		if after != nil {
			after()
		}
	}()
}

func (r routes) ListSessions(ctx context.Context, req *acp.Request, p *acp.ListParams) {
	go func() { res, err := r.archive.list(callContext(ctx), p); r.out.reply(req, res, err) }()
}

func (r routes) Session(ctx context.Context, c acp.SessionCall) {
	r.queues.enqueue(c.SessionID, func() { c.Serve(work{r, ctx}) })
}

// work is the routes serving one call of a session's queue, with the
// call's context: the calls that reach the agent make their A2A calls
// under it, and those that may wait (a prompt, a load, a resume) end when
// the client cancels them.
type work struct {
	routes
	ctx context.Context
}

func (w work) Prompt(req *acp.Request, p *acp.PromptParams) { w.prompts.prompt(w.ctx, req, p) }

func (w work) Load(req *acp.Request, p *acp.SessionParams) {
	w.open(callContext(w.ctx), req, p, true)
}

func (w work) Resume(req *acp.Request, p *acp.SessionParams) {
	w.open(callContext(w.ctx), req, p, false)
}

func (w work) Steer(req *acp.Request, p *acp.SteeringParams) {
	w.steering.native(callContext(w.ctx), req, p)
}

func (r routes) Cancel(req *acp.Request, p *acp.SessionParams) {
	r.prompts.cancel(p.SessionID)
	// A notification; sent by mistake as a request, it gets null.
	r.out.reply(req, nil, nil)
}

// open answers session/load (replay) or session/resume, then sends the
// session's commands (and, once per session, that the editor's MCP
// servers are not forwarded).
func (r routes) open(ctx context.Context, req *acp.Request, p *acp.SessionParams, replay bool) {
	sess, err := r.archive.load(ctx, req, *p, replay)
	if err != nil {
		r.out.reply(req, nil, err)
		return
	}
	r.out.reply(req, r.modes.openResult(sess), nil)
	r.commands.send(p.SessionID)
	r.notices.mcp(p.SessionID, len(p.MCPServers))
}

func (r routes) Close(req *acp.Request, p *acp.SessionParams) {
	if !r.store.Close(p.SessionID) {
		r.out.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	r.out.reply(req, struct{}{}, nil)
}

// Delete handles session/delete: the thread leaves this editor's history
// (marked deleted in the index, never listed again); the remote thread
// stays, and so does a session open in this process. An unknown id
// succeeds.
func (r routes) Delete(req *acp.Request, p *acp.SessionParams) {
	if p.SessionID == "" {
		r.out.reply(req, nil, acp.InvalidParams("session/delete needs {sessionId}"))
		return
	}
	if _, _, ok := r.store.ThreadIndex(); !ok {
		r.out.log.Warn("session/delete: there is no thread index to mark the thread in", "session", p.SessionID)
	} else {
		r.store.Update(p.SessionID, func(e *threads.Entry) { e.Deleted = true })
		r.out.log.Info("thread deleted from this editor's history (the agent keeps it)", "session", p.SessionID)
	}
	r.out.reply(req, struct{}{}, nil)
}

func (r routes) SetMode(req *acp.Request, p *acp.SetModeParams) { r.modes.setMode(req, p) }

func (r routes) SetModel(req *acp.Request, p *acp.SetModelParams) { r.modes.setModel(req, p) }

func (r routes) SetConfigOption(req *acp.Request, p *acp.SetConfigOptionParams) {
	r.modes.setConfigOption(req, p)
}

// newSession handles session/new. after, when set, runs once the response
// was written (updates for a session never precede the response that
// introduced its id).
//
// A session/new the client cancels ($/cancel_request) before its session
// exists answers -32800 and leaves no session and no index entry.
func (r routes) newSession(ctx context.Context, p *acp.NewSessionParams) (result any, after func(), err error) {
	if err := sessions.CheckCWD(acp.MethodSessionNew, p.CWD, true); err != nil {
		return nil, nil, err
	}
	dirs, err := sessions.CheckDirs(acp.MethodSessionNew, p.AdditionalDirectories)
	if err != nil {
		return nil, nil, err
	}
	// The requests sent at once after the card each need a connection
	// of their own over HTTP/1.1: opened while the card is read (the
	// card takes the first, and hands it to one of them after).
	r.agent.Preconnect(sentAfterCard)
	c, err := r.agent.Discovered(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Minted now: the busy signal of the session is learnt beside the
	// auth probe (unused when a console hand-off is claimed).
	id := editor.MintContextID(r.editor.ContextPrefix(), time.Now())
	h, err := r.afterCard(ctx, c, p.CWD, id)
	if err != nil {
		if h != nil {
			r.out.log.Warn("a console hand-off was claimed but the agent refused the session; start it again from the console", "session", h.SessionID)
		}
		return nil, nil, err
	}
	mcp := len(p.MCPServers)
	if h != nil {
		// Claimed: the console handed the session over; it is opened
		// even when the request was cancelled meanwhile.
		sess, after := r.archive.openHandoff(c, p.CWD, dirs, h)
		told := r.notices.mcpAfterReply(sess.ID(), mcp)
		return r.newResult(sess), func() { after(); r.commands.send(sess.ID()); told() }, nil
	}
	if ctx.Err() != nil {
		return nil, nil, acp.Cancelled()
	}
	sess := turn.NewSession(id, p.CWD, true, false)
	sess.SetDirs(dirs)
	// Not in the thread index until its first prompt (SPEC §18): a chat
	// that never got one is no conversation to list.
	r.store.Add(sess)
	told := r.notices.mcpAfterReply(id, mcp)
	return r.newResult(sess), func() { r.commands.send(id); told() }, nil
}

// afterCard sends what session/new needs once the card is read, at once
// (SPEC §19): the auth probe, the hand-off claim, the roots the first
// prompt's preamble needs (the prompt never waits for them), and whether
// the server has the busy signal of the session id minted (learnt here,
// off the prompts' path). When the card offers an extended card, read
// with the probe, the others wait for it: a card refused sends nothing
// after it (SPEC §17).
func (r routes) afterCard(ctx context.Context, c *a2aclient.Client, cwd, id string) (*a2aclient.Handoff, error) {
	var h *a2aclient.Handoff
	var beside sync.WaitGroup
	others := func() {
		beside.Go(func() { r.loadRoots(ctx) })
		beside.Go(func() { r.learnOperator(ctx, c, id) })
		beside.Go(func() { h = r.archive.claimHandoff(ctx, c, cwd) })
	}
	card := c.KnownCard()
	extended := card != nil && card.ExtendedCard && !card.Extended
	if !extended {
		others()
	}
	_, err := r.agent.Probed(ctx)
	if extended && err == nil {
		others()
	}
	beside.Wait()
	return h, err
}

// sentAfterCard is how many requests session/new sends at once after the
// card: the auth probe, the hand-off claim, the three roots routes, the
// busy signal and the sessions list.
const sentAfterCard = 7

// rootsTimeout bounds the roots lookup session/new makes, and what it
// learns of the operator API.
const rootsTimeout = 10 * time.Second

// learnOperator learns whether the server has the busy signal of the
// session id, off the prompts' path (operator.API.Learn): a later
// prompt's busy check then sends nothing on a server without it (SPEC
// §19). A cancelled session/new does not cut it short.
func (r routes) learnOperator(ctx context.Context, c *a2aclient.Client, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rootsTimeout)
	defer cancel()
	c.Operator().Learn(ctx, id)
}

// loadRoots reads the server's project roots (once per process; a failure
// is logged, the map works with what it has). A cancelled session/new
// does not cut it short: the roots serve the next one.
func (r routes) loadRoots(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rootsTimeout)
	defer cancel()
	_ = r.store.Roots().Load(ctx)
}

// newResult answers session/new: the id, the options and the modes.
func (r routes) newResult(sess *turn.Session) acp.NewSessionResult {
	open := r.modes.openResult(sess)
	return acp.NewSessionResult{SessionID: sess.ID(), ConfigOptions: open.ConfigOptions, Modes: open.Modes}
}

// callContext is the context of a request with its trace context (SPEC
// §14) in the form the A2A client puts on every request it causes.
func callContext(req context.Context) context.Context {
	tr := acp.TraceOf(req)
	return a2a.WithTrace(req, tr.Parent, tr.State)
}
