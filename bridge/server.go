package bridge

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/remote"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/roots"
)

// Server serves ACP on one connection: routes (routes.go) over a session
// store and small values with one job each, composed here once.
type Server struct {
	out      *out
	agent    *remote.Agent
	editor   *editor.Editor
	store    *sessions.Store
	queues   *queues
	notices  *notices
	archive  *archive
	commands *commands
	modes    *modes
	access   *access
	steering *steering
	prompts  *prompts
	// answered runs Options.Answered once, after the first initialize.
	answered func()
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
	log := opts.Log
	o := &out{log: log}
	ag := remote.New(opts.Connect, opts.RefusedAdvice)
	ed := editor.New(opts.Version, opts.ContextPrefix)
	st := sessions.New(log, opts.Index, opts.ServerKey, opts.CurrentKey,
		roots.New(opts.RootOverrides, ag.LoadRoots, opts.Home, log))
	qs := newQueues(st)
	s := &Server{out: o, agent: ag, editor: ed, store: st, queues: qs, answered: func() {}}
	if opts.Answered != nil {
		s.answered = sync.OnceFunc(func() { go opts.Answered() })
	}
	s.notices = &notices{out: o, editor: ed, store: st, queues: qs, agent: ag}
	s.archive = &archive{out: o, agent: ag, editor: ed, store: st, queues: qs, notices: s.notices, log: log,
		loadBytes: loadBytes, threadsOnly: opts.ThreadsOnly}
	s.commands = &commands{out: o, agent: ag, store: st, queues: qs, log: log, version: opts.Version, source: opts.CredentialSource}
	s.modes = &modes{out: o, store: st, log: log, models: opts.Models}
	s.access = &access{out: o, editor: ed, agent: ag, log: log, executable: opts.Executable, signIn: opts.SignIn, forget: opts.Logout}
	s.steering = &steering{out: o, editor: ed, store: st, log: log, grace: opts.SteerGrace}
	s.prompts = &prompts{out: o, agent: ag, editor: ed, store: st, commands: s.commands, modes: s.modes,
		archive: s.archive, steering: s.steering, log: log, opts: opts}
	// The extended card (or a new sign-in) may bring other skills: the
	// open sessions get the new commands.
	ag.OnCard(s.commands.cardChanged)
	return s
}

// serve serves ACP on in and out until in ends (or ctx does), then shuts
// down.
func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.out.ctx = ctx
	s.out.conn = stdio.NewConn(in, out, s.out.log)
	s.out.conn.Start(ctx, routes{s})
	select {
	case <-s.out.conn.Done():
	case <-ctx.Done():
	}
	s.shutdown()
	return nil
}

// shutdown runs once the editor is gone (or the context ended): what is
// still queued for it is dropped, and every running turn is given up (its
// task cancelled) and waited for.
func (s *Server) shutdown() {
	_ = s.out.conn.Close()
	var wg sync.WaitGroup
	for _, t := range s.store.Running() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Abandon()
		}()
	}
	wg.Wait()
}
