// Package bridge is the ACP side of shim: the stdio JSON-RPC connection,
// the sessions, and the turn driver that maps A2A events onto ACP session
// updates.
package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/a2a"
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
	Connect func() (*a2a.Client, error)
	// Logout forgets the stored token.
	Logout func() error
	// RefusedAdvice, when set, says what to do about a token the server
	// refused (it depends on where the token came from); the default
	// says to run `shim login`.
	RefusedAdvice func() string
	// Log receives diagnostics (stderr).
	Log *slog.Logger
}

// Server serves ACP on one connection.
type Server struct {
	opts   Options
	log    *slog.Logger
	conn   atomic.Pointer[jsonrpc2.Conn]
	callID atomic.Uint64 // the last id of shim's own calls to the client
	// toldNoReplay is set once the person was told a thread's history
	// cannot be replayed (an agent whose card says NoReplay).
	toldNoReplay atomic.Bool
	stream       *stdioStream
	ctx          context.Context

	connectMu   sync.Mutex
	mu          sync.Mutex
	client      *a2a.Client
	authOK      bool
	clientName  string
	clientTitle string
	termAuth    bool
	prefix      string
	sessions    map[string]*session
	queues      map[string]*serial
	mcpNoted    bool
	rootMap     *roots.Map
	// threadStates holds, per session id, what this process showed of the
	// thread (*threadState).
	threadStates sync.Map
}

// Serve serves ACP on in and out until in ends, then cancels the running
// turns (CancelTask on their tasks) and returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	return serve(ctx, in, out, opts, nil)
}

// serve is Serve with a hook that sees the server before it starts (tests).
func serve(ctx context.Context, in io.Reader, out io.Writer, opts Options, started func(*Server)) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:     opts,
		log:      opts.Log,
		sessions: map[string]*session{},
		queues:   map[string]*serial{},
		prefix:   opts.ContextPrefix,
	}
	if s.prefix == "" {
		s.prefix = "chat-acp"
	}
	s.rootMap = roots.New(opts.RootOverrides, s.loadRoots, opts.Home, s.log)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	if started != nil {
		started(s)
	}
	stream := newStdioStream(in, out, nil, s.log)
	s.stream = stream
	conn := jsonrpc2.NewConn(ctx, stream, stream.handler(s),
		jsonrpc2.SetLogger(log.New(slogWriter{s.log}, "", 0)))
	s.conn.CompareAndSwap(nil, conn)
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
	}
	s.shutdown()
	return nil
}

// slogWriter routes jsonrpc2's log lines to slog.
type slogWriter struct{ l *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Debug(strings.TrimSpace(string(p)))
	return len(p), nil
}

// shutdown cancels every running turn and waits (briefly) for their
// CancelTask calls.
func (s *Server) shutdown() {
	s.mu.Lock()
	sessions := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	s.mu.Unlock()
	var running []*turn
	for _, sess := range sessions {
		sess.mu.Lock()
		if t := sess.current; t != nil {
			running = append(running, t)
		}
		sess.mu.Unlock()
	}
	done := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for _, t := range running {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t.abandon(800 * time.Millisecond)
			}()
		}
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(900 * time.Millisecond):
	}
}

// Handle dispatches one request or notification. It runs on the reader
// goroutine, so anything that can wait runs elsewhere; per-session work
// goes through the session's queue to keep arrival order.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.conn.CompareAndSwap(nil, conn)
	switch req.Method {
	case mInitialize:
		res, err := s.initialize(req)
		s.reply(req, res, err)
	case mAuthenticate:
		go func() { res, err := s.authenticate(req); s.reply(req, res, err) }()
	case mLogout:
		go func() { res, err := s.logout(); s.reply(req, res, err) }()
	case mSessionNew:
		go func() {
			res, err, after := s.newSession(req)
			s.reply(req, res, err)
			if after != nil {
				after()
			}
		}()
	case mSessionList:
		go func() { res, err := s.listSessions(req); s.reply(req, res, err) }()
	case mSessionPrompt, mSessionCancel, mSessionLoad, mSessionResume, mSessionClose:
		var p sessionParams
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		s.queue(p.SessionID).push(func() { s.handleSession(req, p) })
	default:
		if req.Notif {
			// Unknown notifications, "$/…" and "_…" ones included, are ignored.
			s.log.Debug("ignoring notification", "method", req.Method)
			return
		}
		s.reply(req, nil, rpcError(codeMethodNotFound, "Method not found: "+req.Method, nil))
	}
}

func (s *Server) queue(id string) *serial {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[id]
	if q == nil {
		q = &serial{}
		s.queues[id] = q
	}
	return q
}

func (s *Server) handleSession(req *jsonrpc2.Request, p sessionParams) {
	switch req.Method {
	case mSessionPrompt:
		s.prompt(req)
	case mSessionCancel:
		s.cancel(p.SessionID)
		// A notification; sent by mistake as a request, it gets null.
		s.reply(req, nil, nil)
	case mSessionLoad, mSessionResume:
		res, err := s.loadSession(req, p, req.Method == mSessionLoad)
		s.reply(req, res, err)
	case mSessionClose:
		res, err := s.closeSession(p)
		s.reply(req, res, err)
	}
}

// rpcError builds an ACP error with optional data.
func rpcError(code int64, msg string, data any) *jsonrpc2.Error {
	e := &jsonrpc2.Error{Code: code, Message: msg}
	if data != nil {
		e.SetError(data)
	}
	return e
}

// reply answers a request (never a notification).
func (s *Server) reply(req *jsonrpc2.Request, result any, err error) {
	if req.Notif {
		return
	}
	if err != nil {
		var rerr *jsonrpc2.Error
		if !errors.As(err, &rerr) {
			rerr = rpcError(codeInternal, err.Error(), nil)
		}
		s.logFailure(req.Method, rerr)
		if werr := s.conn.Load().ReplyWithError(s.ctx, req.ID, rerr); werr != nil {
			s.log.Debug("reply failed", "err", werr)
		}
		return
	}
	if werr := s.conn.Load().Reply(s.ctx, req.ID, result); werr != nil {
		s.log.Debug("reply failed", "err", werr)
	}
}

// logFailure puts a failure the editor is told about into the log too
// (editors show ACP errors briefly, if at all; the recipes point at the
// log): failed turns, an unreachable agent, a refused token, a busy
// timeout at warn, once, before the answer; a malformed request at debug.
func (s *Server) logFailure(method string, e *jsonrpc2.Error) {
	var data struct {
		State string `json:"state"`
	}
	if e.Data != nil {
		_ = json.Unmarshal(*e.Data, &data)
	}
	switch e.Code {
	case codeInternal, codeAuthRequired:
		s.log.Warn("request failed", "method", method, "code", e.Code, "state", data.State, "err", e.Message)
	default:
		s.log.Debug("request refused", "method", method, "code", e.Code, "err", e.Message)
	}
}

// notify sends one session/update.
func (s *Server) notify(sessionID string, update any) {
	if err := s.stream.notify(mSessionUpdate, notification{SessionID: sessionID, Update: update}); err != nil {
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
	if errors.Is(err, a2a.ErrAbsent) {
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
func (s *Server) callError(err error, taskID string) *jsonrpc2.Error {
	name := s.agentName()
	var rpc *a2a.RPCError
	var unreachable *a2a.UnreachableError
	var herr *a2a.HTTPError
	var unsup *a2a.UnsupportedError
	switch {
	case errors.As(err, &unsup): // SPEC §12.6: never a half-working session
		return rpcError(codeInternal, name+": "+err.Error(), stateData("unsupported", taskID, unsup.URI))
	case a2a.IsUnauthorized(err):
		return authRequired("the server refused the token (" + err.Error() + "): " + s.refusedAdvice())
	case errors.Is(err, a2a.ErrInsecure):
		return rpcError(codeInternal, err.Error(), map[string]any{"state": "insecure"})
	case errors.As(err, &rpc):
		return rpcError(codeInternal, name+": "+rpc.Message, stateData("failed", taskID, rpc.Message))
	case errors.Is(err, a2a.ErrTooLarge):
		return rpcError(codeInternal, name+": "+err.Error(), stateData("failed", taskID, err.Error()))
	case errors.As(err, &unreachable):
		return rpcError(codeInternal, name+" is unreachable: "+err.Error()+" (is the agent running, and is --url right?)", stateData("unreachable", taskID, err.Error()))
	case errors.Is(err, a2a.ErrNoCard):
		// It answered, but not as an agent.
		return rpcError(codeInternal, name+": "+err.Error()+": check --url (and --slug), or pass --endpoint with the agent's JSON-RPC URL",
			stateData("unreachable", taskID, err.Error()))
	case errors.As(err, &herr):
		return rpcError(codeInternal, name+": "+err.Error(), stateData("unreachable", taskID, err.Error()))
	}
	return rpcError(codeInternal, name+": "+err.Error(), stateData("unknown", taskID, err.Error()))
}

func stateData(state, taskID, detail string) map[string]any {
	d := map[string]any{"state": state}
	if taskID != "" {
		d["taskId"] = taskID
	}
	if detail != "" {
		d["detail"] = detail
	}
	return d
}

// newSession handles session/new. after, when set, runs once the response
// was written (updates for a session never precede the response that
// introduced its id).
func (s *Server) newSession(req *jsonrpc2.Request) (result any, err error, after func()) {
	var p newSessionParams
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
		return nil, rpcError(codeInvalidParams, "Invalid params: session/new needs {cwd, mcpServers}", nil), nil
	}
	if err := checkCWD(mSessionNew, p.CWD, true); err != nil {
		return nil, err, nil
	}
	c, err := s.ensureAuth(s.ctx)
	if err != nil {
		return nil, err, nil
	}
	s.mu.Lock()
	if len(p.MCPServers) > 0 && !s.mcpNoted {
		s.mcpNoted = true
		s.log.Info("mcpServers from the editor are not forwarded: the remote agent cannot reach this machine's MCP servers", "count", len(p.MCPServers))
	}
	s.mu.Unlock()
	if h := s.claimHandoff(c, p.CWD); h != nil {
		res, after := s.openHandoff(c, p.CWD, h)
		return res, nil, after
	}
	s.mu.Lock()
	id := mintContextID(s.prefix, time.Now())
	sess := &session{id: id, cwd: p.CWD, minted: true}
	s.sessions[id] = sess
	s.mu.Unlock()
	s.index(id, func(e *threads.Entry) {
		e.CWD = p.CWD
		e.UpdatedAt = time.Now()
	})
	return newSessionResult{SessionID: id}, nil, nil
}

// checkCWD refuses a cwd that is not absolute (an empty one only when the
// method requires a cwd).
func checkCWD(method, cwd string, required bool) error {
	if (cwd == "" && !required) || filepath.IsAbs(cwd) {
		return nil
	}
	return rpcError(codeInvalidParams, "Invalid params: "+method+" needs an absolute cwd, got "+strconv.Quote(cwd), nil)
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
	key := s.serverKey()
	if s.opts.Index == nil || key == "" {
		return
	}
	if err := s.opts.Index.Update(key, id, fn); err != nil {
		s.log.Warn("thread index not updated", "err", err)
	}
}

func (s *Server) session(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}
