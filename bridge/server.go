package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// Options configures a Server.
type Options struct {
	// Version is shim's version, for agentInfo.
	Version string
	// Executable is the absolute path of the running binary (terminal auth).
	Executable string
	// ContextPrefix overrides the prefix of minted context ids.
	ContextPrefix string
	// SteerGrace is the window after a cancel in which a prompt steers.
	SteerGrace time.Duration
	// NoPreamble disables the editor-context preamble.
	NoPreamble bool
	// ContextWindow is the remote model's context window, 0 when unknown.
	ContextWindow int64
	// BusyTimeout bounds the wait for a chat busy elsewhere.
	BusyTimeout time.Duration
	// BusyPoll is how often a busy chat is polled; 0 means every 2 s.
	BusyPoll time.Duration
	// ThreadsOnly lists and loads only this shim's threads.
	ThreadsOnly bool
	// ServerKey is the normalized URL: the thread index key.
	ServerKey string
	// CurrentKey, when set, gives the key as it is now (authenticate may
	// switch to the URL of a login made after start); it wins over
	// ServerKey.
	CurrentKey func() string
	// Index is the local thread index (nil: none).
	Index *threads.Index
	// RootOverrides are the --root flags; they always win.
	RootOverrides []roots.Root
	// Home is this machine's home directory, for "~" in roots.
	Home string
	// Connect builds the A2A client from the current configuration and
	// credentials. It is called lazily and again on authenticate.
	Connect func() (*a2aclient.Client, error)
	// Logout forgets the stored token.
	Logout func() error
	// RefusedAdvice, when set, says what to do about a token the server
	// refused (it depends on where the token came from); the default
	// says to run `shim login`.
	RefusedAdvice func() string
	// Models are the model ids the agent accepts (--models): offered as
	// the model picker; none, no picker.
	Models []string
	// SignIn, when set, is signing in from the editor (signin.go).
	SignIn *SignIn
	// CredentialSource, when set, says where the token in use came from
	// (never the token), for /status.
	CredentialSource func() string
	// Log receives diagnostics (stderr).
	Log *slog.Logger
}

// defaultPrefix prefixes minted context ids until initialize names the
// client.
const defaultPrefix = "chat-acp"

// Server serves ACP on one connection.
type Server struct {
	opts Options
	log  *slog.Logger
	conn *stdio.Conn
	ctx  context.Context

	connectMu sync.Mutex

	// clientMu guards the A2A client and whether its credentials were
	// accepted (probed; authenticate probes again).
	clientMu sync.Mutex
	client   *a2aclient.Client
	probed   bool

	// sessMu guards the sessions and their queues.
	sessMu   sync.Mutex
	sessions map[string]*turn.Session
	queues   map[string]*serial

	// infoMu guards what initialize said of the client, and the notes
	// logged once.
	infoMu      sync.Mutex
	clientName  string
	clientTitle string
	termAuth    bool
	// draws is what the client draws: elicitation forms, command calls
	// as terminals, notices (SPEC §11.3, §11.6, §14).
	draws render.Draws
	// urlElicitation: the client opens a page shim asks it to (SPEC §14).
	urlElicitation bool
	prefix         string
	mcpNoted       bool
	// noReplayTold: the person was told a thread's history cannot be
	// replayed (an agent whose card says NoReplay).
	noReplayTold bool

	rootMap *roots.Map

	// cmdMu guards the command list last sent (cardChanged compares).
	cmdMu        sync.Mutex
	commandsSent []acp.AvailableCommand
	// shown is what this process showed of each thread.
	shown history.Threads
	// loadBytes bounds the bytes one session/load reads.
	loadBytes int64
}

// Serve serves ACP on in and out until in ends, then cancels the running
// turns (CancelTask on their tasks) and returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	return newServer(opts, history.LoadBytesMax).serve(ctx, in, out)
}

// newServer is a server whose session/load reads at most loadBytes.
func newServer(opts Options, loadBytes int64) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:      opts,
		log:       opts.Log,
		sessions:  map[string]*turn.Session{},
		queues:    map[string]*serial{},
		prefix:    opts.ContextPrefix,
		loadBytes: loadBytes,
	}
	if s.prefix == "" {
		s.prefix = defaultPrefix
	}
	s.rootMap = roots.New(opts.RootOverrides, s.loadRoots, opts.Home, s.log)
	return s
}

// serve serves ACP on in and out until in ends (or ctx does), then shuts
// down.
func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	s.conn = stdio.NewConn(in, out, s.log)
	s.conn.Start(ctx, routes{s})
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.shutdown()
	return nil
}

// shutdown runs once the editor is gone (or the context ended): what is
// still queued for it is dropped, and every running turn is given up (its
// task cancelled) and waited for.
func (s *Server) shutdown() {
	_ = s.conn.Close()
	var wg sync.WaitGroup
	for _, t := range s.runningTurns() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Abandon()
		}()
	}
	wg.Wait()
}

// runningTurns is the current turn of every session.
func (s *Server) runningTurns() []*turn.Turn {
	s.sessMu.Lock()
	sessions := make([]*turn.Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	s.sessMu.Unlock()
	var running []*turn.Turn
	for _, sess := range sessions {
		if t := sess.Current(); t != nil {
			running = append(running, t)
		}
	}
	return running
}

// routes is the Server as acp's Handler: where each call runs. Its
// methods run on the reader goroutine, so anything that can wait runs
// elsewhere; a session's calls go through that session's queue, in
// arrival order (it is also the acp.SessionWork they are served on).
type routes struct{ *Server }

// Initialize runs at once: the calls after it read what it learned of
// the client.
func (r routes) Initialize(_ context.Context, req *acp.Request, p *acp.InitializeParams) {
	res, err := r.initialize(p)
	r.reply(req, res, err)
}

// The calls that may wait make their A2A calls under their request's
// context, with its trace context (callContext): the client may cancel one
// ($/cancel_request), and it then leaves nothing half done.

func (r routes) Authenticate(ctx context.Context, req *acp.Request, p *acp.AuthenticateParams) {
	go func() { res, err := r.authenticate(callContext(ctx), req, p); r.reply(req, res, err) }()
}

func (r routes) Logout(_ context.Context, req *acp.Request) {
	go func() { res, err := r.logout(); r.reply(req, res, err) }()
}

func (r routes) NewSession(ctx context.Context, req *acp.Request, p *acp.NewSessionParams) {
	go func() {
		res, after, err := r.newSession(callContext(ctx), p)
		r.reply(req, res, err)
		if after != nil {
			after()
		}
	}()
}

func (r routes) ListSessions(ctx context.Context, req *acp.Request, p *acp.ListParams) {
	go func() { res, err := r.listSessions(callContext(ctx), p); r.reply(req, res, err) }()
}

// callContext is the context of a request with its trace context (SPEC
// §14) in the form the A2A client puts on every request it causes.
func callContext(req context.Context) context.Context {
	tr := acp.TraceOf(req)
	return a2a.WithTrace(req, tr.Parent, tr.State)
}

// turnContext is the context of the turn a prompt starts: the server's
// (a turn outlives its prompt), with the prompt's trace context.
func (s *Server) turnContext(req context.Context) context.Context {
	tr := acp.TraceOf(req)
	return a2a.WithTrace(s.ctx, tr.Parent, tr.State)
}

func (r routes) Session(ctx context.Context, c acp.SessionCall) {
	r.enqueue(c.SessionID, func() { c.Serve(work{r, ctx}) })
}

// work is the routes serving one call of a session's queue, with the
// call's context: the calls that reach the agent make their A2A calls
// under it, and those that may wait (a prompt, a load, a resume) end when
// the client cancels them.
type work struct {
	routes
	ctx context.Context
}

func (w work) Prompt(req *acp.Request, p *acp.PromptParams) { w.prompt(w.ctx, req, p) }

func (w work) Load(req *acp.Request, p *acp.SessionParams) {
	w.open(callContext(w.ctx), req, p, true)
}

func (w work) Resume(req *acp.Request, p *acp.SessionParams) {
	w.open(callContext(w.ctx), req, p, false)
}

func (w work) Steer(req *acp.Request, p *acp.SteeringParams) {
	w.nativeSteer(callContext(w.ctx), req, p)
}

// enqueue runs f in the session's queue, after what arrived before it;
// the queue is found (or made) and f queued under s.sessMu, so that dropQueue
// never forgets a queue that has work.
func (s *Server) enqueue(id string, f func()) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	q := s.queues[id]
	if q == nil {
		q = &serial{}
		s.queues[id] = q
	}
	q.push(func() {
		f()
		s.dropQueue(id, q)
	})
}

// dropQueue forgets an idle queue of an id that is no session (closed,
// or never one): the map holds queues of live sessions only.
func (s *Server) dropQueue(id string, q *serial) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	if _, live := s.sessions[id]; live || s.queues[id] != q || !q.idleAfterThis() {
		return
	}
	delete(s.queues, id)
}

func (r routes) Cancel(req *acp.Request, p *acp.SessionParams) {
	r.cancel(p.SessionID)
	// A notification; sent by mistake as a request, it gets null.
	r.reply(req, nil, nil)
}

// open answers session/load (replay) or session/resume, then sends the
// session's commands (and, once per session, that the editor's MCP
// servers are not forwarded).
func (r routes) open(ctx context.Context, req *acp.Request, p *acp.SessionParams, replay bool) {
	res, err := r.loadSession(ctx, req, *p, replay)
	r.reply(req, res, err)
	if err == nil {
		r.sendCommands(p.SessionID)
		r.mcpNotice(p.SessionID, len(p.MCPServers))
	}
}

func (r routes) Close(req *acp.Request, p *acp.SessionParams) {
	res, err := r.closeSession(*p)
	r.reply(req, res, err)
}

func (r routes) Delete(req *acp.Request, p *acp.SessionParams) {
	res, err := r.deleteSession(*p)
	r.reply(req, res, err)
}

func (r routes) SetMode(req *acp.Request, p *acp.SetModeParams) { r.setModeRequest(req, p) }

func (r routes) SetModel(req *acp.Request, p *acp.SetModelParams) { r.setModel(req, p) }

func (r routes) SetConfigOption(req *acp.Request, p *acp.SetConfigOptionParams) {
	r.setConfigOption(req, p)
}

// reply answers a request (never a notification). It never waits on the
// editor.
func (s *Server) reply(req *acp.Request, result any, err error) {
	if req.Notif {
		return
	}
	var rerr *acp.Error
	if err != nil {
		if !errors.As(err, &rerr) {
			rerr = acp.Internal(err.Error(), nil)
		}
		s.logFailure(req.Method, rerr)
	}
	if werr := s.conn.Reply(req, result, rerr); werr != nil {
		s.log.Debug("reply failed", "err", werr)
	}
}

// logFailure puts a failure the editor is told about into the log too
// (editors show ACP errors briefly, if at all; the recipes point at the
// log): failed turns, an unreachable agent, a refused token, a busy
// timeout at warn, once, before the answer; a malformed request at debug.
func (s *Server) logFailure(method string, e *acp.Error) {
	var data struct {
		State string `json:"state"`
	}
	if e.Data != nil {
		_ = json.Unmarshal(*e.Data, &data)
	}
	switch e.Code {
	case acp.CodeInternal, acp.CodeAuthRequired:
		s.log.Warn("request failed", "method", method, "code", e.Code, "state", data.State, "err", e.Message)
	default:
		s.log.Debug("request refused", "method", method, "code", e.Code, "err", e.Message)
	}
}

// notify sends one session/update (and waits while the editor is behind).
func (s *Server) notify(sessionID string, update acp.Update) {
	if err := s.conn.Notify(sessionID, update); err != nil {
		s.log.Debug("update not delivered", "err", err)
	}
}

// roots returns the project root map.
func (s *Server) roots() *roots.Map { return s.rootMap }

// loadRoots asks the operator API for the server's project roots.
func (s *Server) loadRoots(ctx context.Context) ([]roots.Root, error) {
	c, err := s.remote()
	if err != nil {
		return nil, nil
	}
	list, err := c.Operator().Roots(ctx)
	if errors.Is(err, a2aclient.ErrNoOperator) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]roots.Root, 0, len(list))
	for _, r := range list {
		out = append(out, roots.Root{Name: r.Name, Path: r.Path})
	}
	return out, nil
}

// callError maps an A2A client error to an ACP error.
func (s *Server) callError(err error, taskID string) *acp.Error {
	return render.CallError(s.agentName(), err, taskID, s.refusedAdvice())
}

// clientDraws is what the client draws (SPEC §11.3, §11.6, §14).
func (s *Server) clientDraws() render.Draws {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	return s.draws
}

// clientNotices reports whether the client advertised notices (SPEC §14).
func (s *Server) clientNotices() bool { return s.clientDraws().Notices }

// say tells the editor a notice about the session id outside a turn (a
// notice, or what a client without notices was always shown; nothing
// when such a client is not told).
func (s *Server) say(id string, n render.Notice) {
	if u := render.Said(n, s.clientNotices(), "shim-"+randid.Hex(6)); u != nil {
		s.notify(id, u)
	}
}

// mcpNotice says once per session that the n MCP servers the editor
// offered are not forwarded (a notice; the log says it once per process).
func (s *Server) mcpNotice(id string, n int) {
	if n == 0 {
		return
	}
	s.infoMu.Lock()
	if !s.mcpNoted {
		s.mcpNoted = true
		s.log.Info("mcpServers from the editor are not forwarded: the remote agent cannot reach this machine's MCP servers", "count", n)
	}
	s.infoMu.Unlock()
	if sess := s.session(id); sess != nil && s.clientNotices() && sess.TellMCP() {
		s.say(id, render.MCPNotice(n))
	}
}

// reporter tells the editor, as notices about the session id, what the
// A2A client did on its own in a call (a renewed sign-in); nil for a
// client without notices. It never waits for the editor.
func (s *Server) reporter(id string) a2a.Reporter {
	if !s.clientNotices() {
		return nil
	}
	return func(rep a2a.Report) {
		var n render.Notice
		switch rep.Kind {
		case a2a.ReportTokenRenewed:
			n = render.RenewedNotice()
		case a2a.ReportRenewalRefused:
			n = render.RenewalRefusedNotice(rep.Detail)
		default:
			return
		}
		if err := s.conn.Send(id, n.Update()); err != nil {
			s.log.Debug("update not delivered", "err", err)
		}
	}
}

// newSession handles session/new. after, when set, runs once the response
// was written (updates for a session never precede the response that
// introduced its id).
//
// A session/new the client cancels ($/cancel_request) before its session
// exists answers -32800 and leaves no session and no index entry.
func (s *Server) newSession(ctx context.Context, p *acp.NewSessionParams) (result any, after func(), err error) {
	if err := checkCWD(acp.MethodSessionNew, p.CWD, true); err != nil {
		return nil, nil, err
	}
	dirs, err := checkDirs(acp.MethodSessionNew, p.AdditionalDirectories)
	if err != nil {
		return nil, nil, err
	}
	c, err := s.probedClient(ctx)
	if err != nil {
		return nil, nil, err
	}
	mcp := len(p.MCPServers)
	if h := s.claimHandoff(ctx, c, p.CWD); h != nil {
		// Claimed: the console handed the session over; it is opened
		// even when the request was cancelled meanwhile.
		sess, after := s.openHandoff(c, p.CWD, dirs, h)
		told := s.mcpAfterReply(sess.ID(), mcp)
		return s.newResult(sess), func() { after(); s.sendCommands(sess.ID()); told() }, nil
	}
	if ctx.Err() != nil {
		return nil, nil, acp.Cancelled()
	}
	id := mintContextID(s.contextPrefix(), time.Now())
	sess := turn.NewSession(id, p.CWD, true, false)
	sess.SetDirs(dirs)
	s.sessMu.Lock()
	s.sessions[id] = sess
	s.sessMu.Unlock()
	s.index(id, func(e *threads.Entry) {
		e.CWD = p.CWD
		e.AdditionalDirectories = dirs
		e.UpdatedAt = time.Now()
	})
	told := s.mcpAfterReply(id, mcp)
	return s.newResult(sess), func() { s.sendCommands(id); told() }, nil
}

// mcpAfterReply queues the MCP notice of a new session (mcpNotice) on the
// session's queue now, before any prompt of it, to run once release is
// called (the response was written).
func (s *Server) mcpAfterReply(id string, n int) (release func()) {
	if n == 0 {
		return func() {}
	}
	ready := make(chan struct{})
	s.enqueue(id, func() {
		<-ready
		s.mcpNotice(id, n)
	})
	return func() { close(ready) }
}

// newResult answers session/new: the id, the options and the modes.
func (s *Server) newResult(sess *turn.Session) acp.NewSessionResult {
	open := s.openResult(sess)
	return acp.NewSessionResult{SessionID: sess.ID(), ConfigOptions: open.ConfigOptions, Modes: open.Modes}
}

// The bounds of a session's additional directories (SPEC §15): what one
// session keeps of them, in memory and in the thread index, stays small.
const (
	maxDirs     = 32
	maxDirBytes = 1024
)

// checkDirs refuses additional directories that are not absolute (SPEC
// §14), more than maxDirs of them, one longer than maxDirBytes or holding
// a NUL (§15); it returns them cleaned. Its message quotes at most the
// start of a folder.
func checkDirs(method string, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	if len(dirs) > maxDirs {
		return nil, acp.InvalidParams(fmt.Sprintf("%s takes at most %d additionalDirectories, got %d: open the others in a session of their own",
			method, maxDirs, len(dirs)))
	}
	out := make([]string, 0, len(dirs))
	for i, d := range dirs {
		switch {
		case len(d) > maxDirBytes:
			return nil, acp.InvalidParams(fmt.Sprintf("%s: additionalDirectories[%d] is %d bytes long; a folder's path may take at most %d",
				method, i, len(d), maxDirBytes))
		case strings.IndexByte(d, 0) >= 0:
			return nil, acp.InvalidParams(fmt.Sprintf("%s: additionalDirectories[%d] holds a NUL character, which no folder's path has",
				method, i))
		case !filepath.IsAbs(d):
			return nil, acp.InvalidParams(method + " needs absolute additionalDirectories, got " + strconv.Quote(d))
		}
		out = append(out, filepath.Clean(d))
	}
	return out, nil
}

// checkCWD refuses a cwd that is not absolute (an empty one only when the
// method requires a cwd).
func checkCWD(method, cwd string, required bool) error {
	if (cwd == "" && !required) || filepath.IsAbs(cwd) {
		return nil
	}
	return acp.InvalidParams(method + " needs an absolute cwd, got " + strconv.Quote(cwd))
}

// threadIndex is the thread index and this agent's key in it; false when
// there is no index (or no key to file threads under).
func (s *Server) threadIndex() (*threads.Index, string, bool) {
	key := s.serverKey()
	if s.opts.Index == nil || key == "" {
		return nil, "", false
	}
	return s.opts.Index, key, true
}

// serverKey is the normalized URL the thread index keys this agent by.
func (s *Server) serverKey() string {
	if s.opts.CurrentKey != nil {
		return s.opts.CurrentKey()
	}
	return s.opts.ServerKey
}

// index updates the thread index; its failures are logged, never fatal.
func (s *Server) index(id string, fn func(*threads.Entry)) {
	index, key, ok := s.threadIndex()
	if !ok {
		return
	}
	if err := index.Update(key, id, fn); err != nil {
		s.log.Warn("thread index not updated", "err", err)
	}
}

func (s *Server) session(id string) *turn.Session {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	return s.sessions[id]
}
