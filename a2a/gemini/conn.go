package gemini

// The Gemini CLI profile's connections: one per session's task, kept in use while an approval is asked; CancelTask drops it.

import (
	"context"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/jsonrpc"
)

// geminiWarmEvery is how often the parked task's connection is used while
// an approval is asked (the server's keep-alive timeout is 5 s);
// geminiWarmWait bounds one such tasks/get.
var (
	geminiWarmEvery = 1500 * time.Millisecond
	geminiWarmWait  = 10 * time.Second
)

// geminiSession is one session's task on the server, with the connection
// its runs live on.
type geminiSession struct {
	g       *Binding
	session string
	rpc     *jsonrpc.Binding
	// closeIdle closes the session's connection when it is idle.
	closeIdle func()

	mu        sync.Mutex
	taskID    string
	contextID string
	// awaiting are the calls waiting for approval, in the order they asked.
	awaiting []geminiAwait
	// running is the stream of the run in progress.
	running *binding.Stream
	// warm stops the keep-alive of a parked task (cancel: its request in
	// flight too).
	warm func(cancel bool)
}

type geminiAwait struct {
	callID   string
	confType string
	title    string // the confirmation's own title ("" when it gives none)
	detail   string
}

// session returns the state of the session of context id ctxID, creating
// it with a connection of its own.
func (g *Binding) session(ctxID string) *geminiSession {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.sessions[ctxID]; s != nil {
		return s
	}
	s := &geminiSession{g: g, session: ctxID}
	conn, closeIdle := g.Conn().Dedicated() // the same credentials, log and trace; a connection of its own
	s.rpc, s.closeIdle = jsonrpc.New(conn, g.card), closeIdle
	g.sessions[ctxID] = s
	return s
}

// byTask returns the session whose task is id, or nil.
func (g *Binding) byTask(id string) *geminiSession {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tasks[id]
}

// CancelTask implements binding.Binding: it drops the connection of the task's
// running stream, which ends the run and leaves the task usable; it never
// sends tasks/cancel, which would make the task terminal.
func (g *Binding) CancelTask(ctx context.Context, id string) error {
	s := g.byTask(id)
	if s == nil {
		return nil
	}
	s.stopWarm(true)
	s.mu.Lock()
	st := s.running
	s.running = nil
	s.mu.Unlock()
	if st != nil {
		st.Close()
	}
	s.closeIdle()
	return nil
}

// warmUp keeps the parked task's connection in use while its approval is
// asked, until the next message, the task's cancel or ctx ends. A tasks/get
// in flight is let finish whatever ends the keep-alive but a cancel: a
// request cancelled in flight closes its connection, and the server aborts
// the parked run with it (the turn's context ends as the answer is sent).
func (s *geminiSession) warmUp(ctx context.Context, taskID string) {
	stop, done := make(chan struct{}), make(chan struct{})
	s.stopWarm(false)
	// The keep-alive's requests outlive ctx; drop cancels the one in flight.
	reqs, drop := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.warm = func(cancel bool) {
		if cancel {
			drop()
		}
		close(stop)
		<-done
		drop()
	}
	s.mu.Unlock()
	go func() {
		defer close(done)
		tick := time.NewTicker(geminiWarmEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-stop:
				return
			case <-tick.C:
			}
			if ctx.Err() != nil {
				return
			}
			get, cancel := context.WithTimeout(reqs, geminiWarmWait)
			_, err := s.rpc.GetTask(get, taskID, 1)
			cancel()
			if err != nil && reqs.Err() == nil {
				s.rpc.Conn().Log().Debug("keeping the parked task's connection", "task", taskID, "err", err)
			}
		}
	}()
}

// stopWarm ends the keep-alive of a parked task, if any, once its tasks/get
// in flight ended; cancel cancels that request instead (the task's cancel,
// which drops the connection anyway).
func (s *geminiSession) stopWarm(cancel bool) {
	s.mu.Lock()
	stop := s.warm
	s.warm = nil
	s.mu.Unlock()
	if stop != nil {
		stop(cancel)
	}
}

// getBehind sends a tasks/get on the task's connection on a context of its
// own (bounded by geminiWarmWait), for a request cancelled in flight closes
// its connection and the server aborts the task's run with it (a parked
// run while the person answers). When ctx ends first, the caller is
// answered with its error and the request finishes behind it.
func (s *geminiSession) getBehind(ctx context.Context, id string, historyLength int) (*a2a.Task, error) {
	type got struct {
		t   *a2a.Task
		err error
	}
	done := make(chan got, 1)
	get, cancel := context.WithTimeout(context.WithoutCancel(ctx), geminiWarmWait)
	go func() {
		defer cancel()
		t, err := s.rpc.GetTask(get, id, historyLength)
		done <- got{t, err}
	}()
	select {
	case r := <-done:
		return r.t, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// runningCtx is the context the running stream was opened with, for the
// keep-alive of its park.
func (s *geminiSession) runningCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		return nil
	}
	return s.running.Context()
}

// learn records the server's ids of the session's task.
func (s *geminiSession) learn(taskID, contextID string) {
	if taskID == "" {
		return
	}
	s.mu.Lock()
	first := s.taskID == ""
	if first {
		s.taskID = taskID
	}
	if s.contextID == "" && s.taskID == taskID {
		s.contextID = contextID
	}
	s.mu.Unlock()
	if first {
		s.g.mu.Lock()
		s.g.tasks[taskID] = s
		s.g.mu.Unlock()
	}
}
