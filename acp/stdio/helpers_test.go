package stdio

import (
	"context"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/encode"
)

// notify queues one notification the way Conn.Notify does.
func (s *stream) notify(method string, params any) error {
	if err := s.out.appendLine(func(b []byte) ([]byte, error) { return encode.AppendNotification(b, method, params) }); err != nil {
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

func idOf(n uint64) acp.ID { return acp.ID{Num: n} }

// unserved is a Handler that answers every call -32601: a test's handler
// embeds it and serves what it tests.
type unserved struct{ c *Conn }

func (u unserved) refuse(req *acp.Request) { _ = u.c.Reply(req, nil, acp.MethodNotFound(req.Method)) }

func (u unserved) Initialize(_ context.Context, req *acp.Request, _ *acp.InitializeParams) {
	u.refuse(req)
}
func (u unserved) Authenticate(_ context.Context, req *acp.Request, _ *acp.AuthenticateParams) {
	u.refuse(req)
}
func (u unserved) Logout(_ context.Context, req *acp.Request) { u.refuse(req) }
func (u unserved) NewSession(_ context.Context, req *acp.Request, _ *acp.NewSessionParams) {
	u.refuse(req)
}
func (u unserved) ListSessions(_ context.Context, req *acp.Request, _ *acp.ListParams) { u.refuse(req) }
func (u unserved) Session(_ context.Context, c acp.SessionCall)                        { c.Serve(u) }
func (u unserved) Prompt(req *acp.Request, _ *acp.PromptParams)                        { u.refuse(req) }
func (u unserved) Cancel(req *acp.Request, _ *acp.SessionParams)                       { u.refuse(req) }
func (u unserved) Load(req *acp.Request, _ *acp.SessionParams)                         { u.refuse(req) }
func (u unserved) Resume(req *acp.Request, _ *acp.SessionParams)                       { u.refuse(req) }
func (u unserved) Close(req *acp.Request, _ *acp.SessionParams)                        { u.refuse(req) }
func (u unserved) Delete(req *acp.Request, _ *acp.SessionParams)                       { u.refuse(req) }
func (u unserved) SetMode(req *acp.Request, _ *acp.SetModeParams)                      { u.refuse(req) }
func (u unserved) SetConfigOption(req *acp.Request, _ *acp.SetConfigOptionParams) {
	u.refuse(req)
}
func (u unserved) SetModel(req *acp.Request, _ *acp.SetModelParams) { u.refuse(req) }
func (u unserved) Steer(req *acp.Request, _ *acp.SteeringParams)    { u.refuse(req) }
