package bridge

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
)

// cutProxy forwards to a real server and cuts the first streaming
// response after a number of SSE events, as a dropped connection would.
type cutProxy struct {
	target *url.URL
	after  int
	cut    atomic.Bool
	mu     sync.Mutex
	calls  []string
}

func (p *cutProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	method := ""
	for _, m := range []string{"SendStreamingMessage", "message/stream", "SubscribeToTask", "tasks/resubscribe", "GetTask", "tasks/get"} {
		if bytes.Contains(body, []byte(`"method":"`+m+`"`)) {
			method = m
			break
		}
	}
	p.mu.Lock()
	p.calls = append(p.calls, method)
	p.mu.Unlock()
	rp := httputil.NewSingleHostReverseProxy(p.target)
	rp.FlushInterval = -1
	if (method == "SendStreamingMessage" || method == "message/stream") && p.cut.CompareAndSwap(false, true) {
		rp.ModifyResponse = func(resp *http.Response) error {
			resp.Body = &cutBody{r: resp.Body, events: p.after}
			return nil
		}
	}
	rp.ServeHTTP(w, r)
}

// cutBody ends after n events.
type cutBody struct {
	r      io.ReadCloser
	events int
	seen   int
	done   bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.r.Read(p)
	for i := 0; i+1 < n; i++ {
		if p[i] == '\n' && p[i+1] == '\n' {
			b.seen++
			if b.seen == b.events {
				b.done = true
				return i + 2, nil
			}
		}
	}
	return n, err
}

func (b *cutBody) Close() error { return b.r.Close() }

// TestRealServerDrop: the a2a-go v2 server's stream is cut mid-answer;
// shim reattaches (SubscribeToTask, 0.3 tasks/resubscribe) and the editor
// sees the whole answer once, nothing repeated.
func TestRealServerDrop(t *testing.T) {
	for _, dialect := range []string{"1.0", "0.3"} {
		t.Run(dialect, func(t *testing.T) {
			upstream := startAgent(t, agent.Options{Name: "Go Agent", Dialect: dialect})
			target, _ := url.Parse(upstream)
			proxy := &cutProxy{target: target, after: 6}
			front := httptest.NewServer(proxy)
			defer front.Close()
			// The card names the upstream's endpoint; point shim at the proxy.
			s := startShim(t, front.URL, func(o *Options, c *a2aclient.Config) {
				c.Endpoint = front.URL + "/a2a"
				c.Version = dialect
			}, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			if got := stopReason(t, s.prompt(t, id, "slow please")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			want := strings.Repeat("Still working on it. ", 20)
			if got := answer(s.Updates(id), "agent_message_chunk"); got != want {
				t.Errorf("text: %d bytes, want %d\n%q", len(got), len(want), got)
			}
			proxy.mu.Lock()
			calls := strings.Join(proxy.calls, " ")
			proxy.mu.Unlock()
			if !strings.Contains(calls, "SubscribeToTask") && !strings.Contains(calls, "tasks/resubscribe") {
				t.Errorf("no reattach: %s", calls)
			}
		})
	}
}

// TestConcurrentSessions: 20 sessions streaming at once in one process all
// finish with their own answers.
func TestConcurrentSessions(t *testing.T) {
	url := startAgent(t, agent.Options{Name: "Go Agent"})
	s := startShim(t, url, nil, nil)
	s.init(t)
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		ids[i] = s.newSession(t, "/tmp")
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch, _ := s.Start("session/prompt", promptArgs(id, fmt.Sprintf("prompt number %d", i)))
			m := s.Wait(ch, "prompt")
			if m.Error != nil || !strings.Contains(string(m.Result), "end_turn") {
				errs <- fmt.Errorf("session %d: %s %v", i, m.Result, m.Error)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, id := range ids {
		want := fmt.Sprintf("You asked: prompt number %d\nHere is a streamed answer in several chunks.", i)
		if got := answer(s.Updates(id), "agent_message_chunk"); got != want {
			t.Errorf("session %d: %q", i, got)
		}
	}
}
