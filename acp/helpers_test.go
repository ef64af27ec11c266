package acp

import "context"

// notify queues one notification the way Conn.Notify does.
func (s *stream) notify(method string, params any) error {
	if err := s.out.appendNotification(method, params, nil); err != nil {
		return err
	}
	return s.out.waitRoom()
}

// flushClose waits until everything queued was written (or the writer
// failed), then closes: tests read the output after it. The queue is
// closed once the writer took the last of it, and the writer stops after
// that write.
func (s *stream) flushClose() {
	q := s.out
	q.mu.Lock()
	for len(q.buf) > 0 && q.err == nil {
		q.cond.Wait()
	}
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	<-q.done
}

func idOf(n uint64) ID { return ID{Num: n} }

// unserved is a Handler that answers every call -32601: a test's handler
// embeds it and serves what it tests.
type unserved struct{ c *Conn }

func (u unserved) refuse(req *Request) { _ = u.c.Reply(req, nil, MethodNotFound(req.Method)) }

func (u unserved) Initialize(_ context.Context, req *Request, _ *InitializeParams) { u.refuse(req) }
func (u unserved) Authenticate(_ context.Context, req *Request, _ *AuthenticateParams) {
	u.refuse(req)
}
func (u unserved) Logout(_ context.Context, req *Request) { u.refuse(req) }
func (u unserved) NewSession(_ context.Context, req *Request, _ *NewSessionParams) {
	u.refuse(req)
}
func (u unserved) ListSessions(_ context.Context, req *Request, _ *ListParams) { u.refuse(req) }
func (u unserved) Session(_ context.Context, c SessionCall)                    { c.Serve(u) }
func (u unserved) Prompt(req *Request, _ *PromptParams)                        { u.refuse(req) }
func (u unserved) Cancel(req *Request, _ *SessionParams)                       { u.refuse(req) }
func (u unserved) Load(req *Request, _ *SessionParams)                         { u.refuse(req) }
func (u unserved) Resume(req *Request, _ *SessionParams)                       { u.refuse(req) }
func (u unserved) Close(req *Request, _ *SessionParams)                        { u.refuse(req) }
func (u unserved) Delete(req *Request, _ *SessionParams)                       { u.refuse(req) }
func (u unserved) SetMode(req *Request, _ *SetModeParams)                      { u.refuse(req) }
func (u unserved) SetConfigOption(req *Request, _ *SetConfigOptionParams) {
	u.refuse(req)
}
func (u unserved) SetModel(req *Request, _ *SetModelParams) { u.refuse(req) }
func (u unserved) Steer(req *Request, _ *SteeringParams)    { u.refuse(req) }
