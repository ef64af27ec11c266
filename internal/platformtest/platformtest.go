// Package platformtest runs scripted stand-ins for the managed agent
// platforms of SPEC §12.7 (Amazon Bedrock AgentCore Runtime, Google
// Vertex AI Agent Engine and Gemini Enterprise, Microsoft Foundry Agent
// Service, ServiceNow AI Agents) and the loopback credential endpoints the
// platforms' own credential libraries can be pointed at (a Google OAuth
// token server for service-account JSON, a Microsoft Entra token and
// device-code endpoint over TLS), and a recording proxy ([Proxy]) that
// every request to a host off this machine is sent to, so a test sees
// what would have left it. Only tests import it.
//
// Each fake checks what the platform's documentation says about a request
// (the URL shape, the headers, the signature or the token, the binding's
// bodies), refuses a request that breaks it the way the platform does, and
// records what it saw so a test can assert it. Behind the checks runs the
// official a2a-go server (github.com/a2aproject/a2a-go/v2) with a scripted
// [Agent]. Each fake's doc comment says what it checks; SPEC §12.7 says
// what the platforms expect.
package platformtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Seen is one request a fake received and what it made of it.
type Seen struct {
	Method string
	// Path is the path as it came on the request line (still escaped).
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// Status is the HTTP status the fake answered.
	Status int
	// Refused says which documented check the request broke; empty when
	// the request passed every check.
	Refused string
}

// recorder keeps what a fake saw, in order.
type recorder struct {
	mu   sync.Mutex
	seen []Seen
}

func (r *recorder) add(s Seen) {
	r.mu.Lock()
	r.seen = append(r.seen, s)
	r.mu.Unlock()
}

// Requests returns what the fake saw so far, oldest first.
func (r *recorder) Requests() []Seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Seen(nil), r.seen...)
}

// maxBody bounds what a fake reads of a request body.
const maxBody = 8 << 20

// exchange is one request being checked: its body read once, the answer's
// status captured, the outcome recorded when it ends.
type exchange struct {
	w       *statusWriter
	r       *http.Request
	seen    Seen
	refused string
}

// begin reads the request's body (so a check can hash it and the handler
// behind can still read it) and starts its record.
func begin(w http.ResponseWriter, r *http.Request) *exchange {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	path, query, _ := strings.Cut(r.RequestURI, "?")
	if !strings.HasPrefix(path, "/") { // an absolute-form request line
		path, query = r.URL.EscapedPath(), r.URL.RawQuery
	}
	return &exchange{
		w: &statusWriter{ResponseWriter: w, status: http.StatusOK},
		r: r,
		seen: Seen{Method: r.Method, Path: path, Query: query,
			Header: r.Header.Clone(), Body: body},
	}
}

// refuse answers the request with the platform's error (write) and
// records why.
func (x *exchange) refuse(reason string, write func(w http.ResponseWriter)) {
	x.refused = reason
	write(x.w)
}

// end records the exchange.
func (x *exchange) end(rec *recorder) {
	x.seen.Status = x.w.status
	x.seen.Refused = x.refused
	rec.add(x.seen)
}

// statusWriter remembers the status written through it and passes Flush
// on (the streamed answers need it).
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wroteHeader {
		s.status, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wroteHeader = true
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Flush() {
	s.wroteHeader = true
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// randomToken returns n random bytes, hex-encoded, after prefix.
func randomToken(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// bearer returns the token of an "Authorization: Bearer" header, or "".
func bearer(h http.Header) string {
	scheme, token, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// HoldWord in a prompt makes the scripted agent keep the task working
// until it is canceled.
const HoldWord = "[hold]"

// Agent is the scripted agent behind every fake platform, run by the
// official a2a-go server. For a prompt it answers "Echo: <prompt>" as an
// artifact streamed in three appended chunks after a working task, then
// completes the task. A prompt holding [HoldWord] keeps its task working
// until a cancel. On a platform that is polled (ServiceNow) the answer also
// waits until the platform lets it go ([Agent.release]), so the first
// answer of a non-blocking send is always a working task.
type Agent struct {
	// gated: every answer waits for release of its task.
	gated bool

	mu    sync.Mutex
	gates map[a2a.TaskID]chan struct{}
}

// Answer is what the scripted agent answers to prompt.
func Answer(prompt string) string { return "Echo: " + prompt }

// gate returns the channel an answer of task waits on.
func (a *Agent) gate(task a2a.TaskID) chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gates == nil {
		a.gates = map[a2a.TaskID]chan struct{}{}
	}
	g, ok := a.gates[task]
	if !ok {
		g = make(chan struct{})
		a.gates[task] = g
	}
	return g
}

// release lets the answer of task go on (once; later calls do nothing).
func (a *Agent) release(task a2a.TaskID) {
	g := a.gate(task)
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-g:
	default:
		close(g)
	}
}

// Execute implements a2asrv.AgentExecutor.
func (a *Agent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		prompt := textOf(ec.Message)
		var task *a2a.Task
		if ec.StoredTask != nil {
			task = ec.StoredTask
		} else {
			task = a2a.NewSubmittedTask(ec, ec.Message)
		}
		task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking,
			Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Working on it"))}
		if !yield(task, nil) {
			return
		}
		if strings.Contains(prompt, HoldWord) {
			<-ctx.Done() // only a cancel ends it
			return
		}
		if a.gated && !answerNow(ec) {
			select {
			case <-ctx.Done():
				return
			case <-a.gate(ec.TaskID):
			}
		}
		id := a2a.ArtifactID(string(ec.TaskID) + "-answer")
		for i, chunk := range []string{"Echo", ": ", prompt} {
			ev := a2a.NewArtifactUpdateEvent(ec, id, a2a.NewTextPart(chunk))
			ev.Append = i > 0
			if !yield(ev, nil) {
				return
			}
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// answerNowParam, as a request header the platform's front adds, makes a
// gated agent answer without waiting (a blocking send).
const answerNowParam = "x-platformtest-answer-now"

func answerNow(ec *a2asrv.ExecutorContext) bool {
	if ec.ServiceParams == nil {
		return false
	}
	v, ok := ec.ServiceParams.Get(answerNowParam)
	return ok && len(v) > 0 && v[0] == "1"
}

// Cancel implements a2asrv.AgentExecutor.
func (a *Agent) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// textOf joins the text parts of m.
func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.Content.(a2a.Text); ok {
			b.WriteString(string(t))
		}
	}
	return b.String()
}

// platformUser signs every call that passed the platform's checks in as
// one user, so the a2a-go server lists that user's tasks.
type platformUser struct {
	a2asrv.PassthroughCallInterceptor
}

func (platformUser) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("platform-user", nil)
	return ctx, nil, nil
}

// newA2AHandler is the official a2a-go request handler running agent.
func newA2AHandler(agent *Agent) a2asrv.RequestHandler {
	return a2asrv.NewHandler(agent, a2asrv.WithCallInterceptors(platformUser{}))
}
