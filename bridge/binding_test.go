package bridge

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/threads"
)

// The editor-side scenarios run over both A2A bindings against the
// official a2a-go v2 server: its JSON-RPC handler and its HTTP+JSON one,
// the binding chosen from the card. The editor sees the same either way.
var realBindings = []struct{ name, binding string }{{"jsonrpc", ""}, {"http+json", "http+json"}}

func TestBindingScenarios(t *testing.T) {
	for _, b := range realBindings {
		t.Run(b.name, func(t *testing.T) {
			opts := agent.Options{Name: "Go Agent", Binding: b.binding}
			t.Run("streams", func(t *testing.T) {
				s := startShim(t, startAgent(t, opts), nil, nil)
				s.init(t)
				id := s.newSession(t, "/tmp")
				if got := stopReason(t, s.prompt(t, id, "where is the handler?")); got != "end_turn" {
					t.Fatalf("stop %q", got)
				}
				ups := s.Updates(id)
				if got := answer(ups, "agent_message_chunk"); got != "You asked: where is the handler?\nHere is a streamed answer in several chunks." {
					t.Errorf("answer %q", got)
				}
				if n := count(ups, "agent_message_chunk"); n < 3 {
					t.Errorf("want several chunks, got %d", n)
				}
				if got := answer(ups, "agent_thought_chunk"); got != "Thinking about: where is the handler?" {
					t.Errorf("thought %q", got)
				}
			})
			t.Run("tool calls", func(t *testing.T) {
				s := startShim(t, startAgent(t, opts), nil, nil)
				s.init(t)
				id := s.newSession(t, "/tmp")
				stopReason(t, s.prompt(t, id, "use the tool"))
				got := describeTools(toolUpdates(t, s.Updates(id)), "/tmp")
				if !strings.Contains(got, `tool_call c1 title="read_file" kind=read status=in_progress`) ||
					!strings.Contains(got, `tool_call_update c1 status=completed content=["# Demo\nA demo project."]`) {
					t.Errorf("tool updates:\n%s", got)
				}
			})
			for _, choice := range []string{"approve", "deny"} {
				t.Run(choice, func(t *testing.T) {
					perms := &permissions{replies: []func() (any, *acptest.RPCError){func() (any, *acptest.RPCError) { return selected(choice) }}}
					s := startShim(t, startAgent(t, opts), nil, perms.handler)
					s.init(t)
					id := s.newSession(t, "/tmp")
					if got := stopReason(t, s.prompt(t, id, "please approve the tests")); got != "end_turn" {
						t.Fatalf("stop %q", got)
					}
					word := map[string]string{"approve": "approved", "deny": "denied"}[choice]
					if got := answer(s.Updates(id), "agent_message_chunk"); perms.count() != 1 || got != "You answered: "+word+". Done." {
						t.Errorf("%d permission requests, text %q", perms.count(), got)
					}
				})
			}
			t.Run("dropped stream reattached", func(t *testing.T) {
				upstream := startAgent(t, opts)
				target, _ := url.Parse(upstream)
				proxy := &dropProxy{target: target, after: 6}
				front := httptest.NewServer(proxy)
				defer front.Close()
				path := map[string]string{"": "/a2a", "http+json": "/rest"}[b.binding]
				s := startShim(t, front.URL, func(o *Options, c *a2aclient.Config) {
					c.Endpoint, c.Binding = front.URL+path, map[string]string{"": "jsonrpc", "http+json": "http+json"}[b.binding]
				}, nil)
				s.init(t)
				id := s.newSession(t, "/tmp")
				if got := stopReason(t, s.prompt(t, id, "slow please")); got != "end_turn" {
					t.Fatalf("stop %q", got)
				}
				if got, want := answer(s.Updates(id), "agent_message_chunk"), strings.Repeat("Still working on it. ", 20); got != want {
					t.Errorf("text: %d bytes, want %d", len(got), len(want))
				}
				if calls := proxy.all(); !strings.Contains(calls, "subscribe") {
					t.Errorf("no reattach: %s", calls)
				}
			})
			t.Run("history read back", func(t *testing.T) {
				url := startAgent(t, opts)
				ix := threads.Open(t.TempDir(), nil)
				s1 := startShim(t, url, withIndex(ix, url, nil), nil)
				s1.init(t)
				id := s1.newSession(t, "/tmp")
				stopReason(t, s1.prompt(t, id, "first prompt"))
				// The working status message is the thought the live
				// turn showed (SPEC §18).
				want := "user_message_chunk first prompt\n" +
					"agent_thought_chunk Thinking about: first prompt\n" +
					"agent_message_chunk You asked: first prompt\nHere is a streamed answer in several chunks.\n"
				// GetTask of the recorded task, then ListTasks of the
				// context in a process whose index does not know it.
				for _, ix2 := range []*threads.Index{ix, threads.Open(t.TempDir(), nil)} {
					s2 := startShim(t, url, withIndex(ix2, url, nil), nil)
					s2.init(t)
					if m := s2.Call("session/load", loadArgs(id, "/tmp")); m.Error != nil {
						t.Fatalf("load: %v", m.Error)
					}
					if got := transcript(decodeUpdates(t, s2.Updates(id))); got != want {
						t.Errorf("replay:\n%s\nwant:\n%s", got, want)
					}
				}
			})
			t.Run("cancel", func(t *testing.T) {
				url := startAgent(t, opts)
				s := startShim(t, url, nil, nil)
				s.init(t)
				id := s.newSession(t, "/tmp")
				ch, _ := s.Start("session/prompt", promptArgs(id, "slow please"))
				s.WaitFor("the first chunk", func(ms []acptest.Message) bool {
					return strings.Contains(string(lastRaw(ms)), "Still working")
				})
				s.Notify("session/cancel", map[string]any{"sessionId": id})
				if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
					t.Fatalf("stop %q", got)
				}
				waitTaskState(t, url, id, a2a.StateCanceled)
			})
		})
	}
}

// waitTaskState waits until the context's task on the server is in state.
func waitTaskState(t *testing.T, url, contextID string, want a2a.State) {
	t.Helper()
	c, err := a2aclient.New(a2aclient.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	var last a2a.State
	for range 200 {
		tasks, err := c.ListTasks(context.Background(), contextID, 0)
		if err == nil && len(tasks) == 1 {
			if last = tasks[0].Status.State; last == want {
				return
			}
		}
		// The cancel is sent beside the prompt's answer; poll for it.
		<-time.After(10 * time.Millisecond)
	}
	t.Fatalf("the task is %q, want %q", last, want)
}

// TestNonStreamingCancel: an agent whose card says streaming: false is
// polled, so the editor sees progress before the end and a cancel reaches
// the running task at once (over both bindings, real a2a-go server).
func TestNonStreamingCancel(t *testing.T) {
	for _, b := range realBindings {
		t.Run(b.name, func(t *testing.T) {
			url := startAgent(t, agent.Options{Name: "Go Agent", Binding: b.binding, NoStreaming: true})
			s := startShim(t, url, nil, nil)
			s.init(t)
			id := s.newSession(t, "/tmp")
			ch, _ := s.Start("session/prompt", promptArgs(id, "slow please"))
			s.WaitFor("progress before the end", func(ms []acptest.Message) bool {
				return strings.Contains(string(lastRaw(ms)), "Still working")
			})
			s.Notify("session/cancel", map[string]any{"sessionId": id})
			if got := stopReason(t, s.Wait(ch, "the cancelled prompt")); got != "cancelled" {
				t.Fatalf("stop %q", got)
			}
			waitTaskState(t, url, id, a2a.StateCanceled)
		})
	}
}

// TestRequiredExtensionUnsupported: a card requiring an extension shim
// does not speak: session/new answers -32603 with data.state
// "unsupported" naming it.
func TestRequiredExtensionUnsupported(t *testing.T) {
	url := startAgent(t, agent.Options{Name: "Go Agent", Required: "https://example.com/ext/handshake-v9"})
	s := startShim(t, url, nil, nil)
	s.init(t)
	m := s.Call("session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}})
	d := errData(t, m)
	if m.Error.Code != -32603 || d["state"] != "unsupported" || !strings.Contains(m.Error.Message, "https://example.com/ext/handshake-v9") {
		t.Errorf("error %d %q %v", m.Error.Code, m.Error.Message, d)
	}
}

// dropProxy forwards to a real server and cuts the first streaming send's
// answer after a number of SSE events, whatever the binding; it records
// each call by its route or JSON-RPC method.
type dropProxy struct {
	target *url.URL
	after  int
	cut    atomic.Bool
	mu     sync.Mutex
	calls  []string
}

func (p *dropProxy) all() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.calls, " ")
}

func (p *dropProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	call := r.URL.Path
	if bytes.Contains(body, []byte(`"method":"SubscribeToTask"`)) {
		call = "subscribe"
	}
	streaming := strings.HasSuffix(r.URL.Path, "message:stream") || bytes.Contains(body, []byte(`"method":"SendStreamingMessage"`))
	p.mu.Lock()
	p.calls = append(p.calls, call)
	p.mu.Unlock()
	rp := httputil.NewSingleHostReverseProxy(p.target)
	rp.FlushInterval = -1
	if streaming && p.cut.CompareAndSwap(false, true) {
		rp.ModifyResponse = func(resp *http.Response) error {
			resp.Body = &cutBody{r: resp.Body, events: p.after}
			return nil
		}
	}
	rp.ServeHTTP(w, r)
}
