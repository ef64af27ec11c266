package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/examples/agent"
)

// multiAgent is one server hosting two demo agents (a2a-go v2) the way
// agent frameworks host several (SPEC §12.8): each card at
// /api/.well-known/<agent>/agent-card.json, each endpoint at
// /api/a2a/<agent>, nothing at /.well-known/agent-card.json.
type multiAgent struct {
	origin string
	mu     sync.Mutex
	seen   []seenReq
}

// startMultiAgent runs the server in dialect; a token, when set, is
// required on everything but the cards (as real servers keep cards
// public).
func startMultiAgent(t *testing.T, dialect, token string) *multiAgent {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	m := &multiAgent{origin: "http://" + srv.Listener.Addr().String()}
	mux := http.NewServeMux()
	for _, name := range []string{"coder", "writer"} {
		card, endpoint := "/api/.well-known/"+name+"/agent-card.json", "/api/a2a/"+name
		h := agent.NewHandler(m.origin, agent.Options{Name: strings.ToUpper(name[:1]) + name[1:], Dialect: dialect, Delay: 1,
			CardPath: card, EndpointPath: endpoint})
		mux.Handle(card, h)
		mux.Handle(endpoint, h)
	}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.seen = append(m.seen, seenReq{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization")})
		m.mu.Unlock()
		if token != "" && !strings.HasSuffix(r.URL.Path, "/agent-card.json") && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return m
}

func (m *multiAgent) requests() []seenReq {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]seenReq(nil), m.seen...)
}

func promptParams(sid, text string) map[string]any {
	return map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// chunks is the text of p's session updates of kind, in order, from the
// notifications read so far.
func (p *proc) chunks(sid, kind string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, n := range p.seen {
		params, _ := n["params"].(map[string]any)
		u, _ := params["update"].(map[string]any)
		if params["sessionId"] != sid || u["sessionUpdate"] != kind {
			continue
		}
		c, _ := u["content"].(map[string]any)
		s, _ := c["text"].(string)
		b.WriteString(s)
	}
	return b.String()
}

// indexEntries reads <state>/threads.json: server key → session ids.
func (e *shimEnv) indexEntries(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.state, "threads.json"))
	if err != nil {
		t.Fatalf("threads.json: %v", err)
	}
	var f struct {
		Servers map[string]map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for server, entries := range f.Servers {
		for id := range entries {
			out[server] = append(out[server], id)
		}
	}
	return out
}

// TestCardsAnywhere: against a real server hosting several agents under
// their own paths, in both dialects, --card-url, a --url that is a card
// URL and --endpoint alone each reach the right agent, file the thread
// under the card URL (the endpoint for --endpoint alone), and a second
// process lists it, loads it (a 0.3 thread's history comes only from the
// task ids the index keeps) and continues it. `shim threads` and
// `shim doctor` take the same flags.
func TestCardsAnywhere(t *testing.T) {
	for _, dialect := range []string{"1.0", "0.3"} {
		t.Run(dialect, func(t *testing.T) {
			m := startMultiAgent(t, dialect, "")
			card := m.origin + "/api/.well-known/coder/agent-card.json"
			endpoint := m.origin + "/api/a2a/coder"
			for _, c := range []cardsCase{
				{"card-url", []string{"--card-url", card}, card},
				{"url is a card", []string{"--url", card}, card},
				{"endpoint alone", []string{"--endpoint", endpoint, "--a2a-version", dialect}, endpoint},
			} {
				t.Run(c.name, func(t *testing.T) { cardsAnywhereCase(t, m, c, card, endpoint) })
			}
		})
	}
}

// cardsAnywhereCase opens a session and prompts through one way of
// naming the agent, then reloads it and runs the commands.
func cardsAnywhereCase(t *testing.T, m *multiAgent, c cardsCase, card, endpoint string) {
	e := newShimEnv(t)
	root := t.TempDir()
	n := len(m.requests())
	p := e.start(t, c.args...)
	if r := p.call(t, 1, "initialize", initParams(false)); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	r := p.call(t, 2, "session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
	res, _ := r["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v\n%s", r, p.logs())
	}
	if r := p.call(t, 3, "session/prompt", promptParams(sid, "hello there")); r["result"] == nil {
		t.Fatalf("prompt: %v\n%s", r, p.logs())
	}
	if got := p.chunks(sid, "agent_message_chunk"); !strings.Contains(got, "You asked: hello there") {
		t.Fatalf("answer %q\n%s", got, p.logs())
	}
	for _, q := range m.requests()[n:] {
		if strings.Contains(q.Path, "writer") || q.Path == "/.well-known/agent-card.json" {
			t.Errorf("a request went to %s %s", q.Method, q.Path)
		}
	}
	if ids := e.indexEntries(t)[c.key]; len(ids) != 1 || ids[0] != sid {
		t.Fatalf("threads.json under %s: %v (all: %v)", c.key, ids, e.indexEntries(t))
	}
	cardsAnywhereReload(t, e, c, root, sid)
	cardsAnywhereCommands(t, e, c, card, endpoint, sid)
}

// cardsAnywhereReload lists and loads the session sid in a second shim
// and prompts it again.
func cardsAnywhereReload(t *testing.T, e *shimEnv, c cardsCase, root, sid string) {
	q := e.start(t, c.args...)
	q.call(t, 1, "initialize", initParams(false))
	r := q.call(t, 2, "session/list", map[string]any{"cwd": root})
	if b, _ := json.Marshal(r["result"]); !strings.Contains(string(b), sid) {
		t.Fatalf("session/list: %v\n%s", r, q.logs())
	}
	if r := q.call(t, 3, "session/load", map[string]any{"sessionId": sid, "cwd": root, "mcpServers": []any{}}); r["result"] == nil {
		t.Fatalf("session/load: %v\n%s", r, q.logs())
	}
	if got := q.chunks(sid, "user_message_chunk"); got != "hello there" {
		t.Errorf("replayed question %q", got)
	}
	if got := q.chunks(sid, "agent_message_chunk"); !strings.Contains(got, "You asked: hello there") {
		t.Errorf("replayed answer %q", got)
	}
	if r := q.call(t, 4, "session/prompt", promptParams(sid, "and then")); r["result"] == nil {
		t.Fatalf("prompt after load: %v\n%s", r, q.logs())
	}
	if got := q.chunks(sid, "agent_message_chunk"); !strings.Contains(got, "You asked: and then") {
		t.Errorf("answer after load %q", got)
	}
}

// cardsAnywhereCommands runs `shim threads` and `shim doctor` with the
// case's flags.
func cardsAnywhereCommands(t *testing.T, e *shimEnv, c cardsCase, card, endpoint, sid string) {
	th := e.run(t, "", slices.Concat(c.args, []string{"threads"})...)
	if th.code != 0 || !strings.Contains(th.stdout, sid) || !strings.Contains(th.stdout, "hello there") {
		t.Errorf("shim threads %v: exit %d\n%s%s", c.args, th.code, th.stdout, th.stderr)
	}
	d := e.run(t, "", slices.Concat(c.args, []string{"doctor"})...)
	rows := doctorRows(t, d.stdout)
	if d.code != 0 || rows["endpoint"] != "ok "+endpoint {
		t.Errorf("doctor %v: exit %d\n%s%s", c.args, d.code, d.stdout, d.stderr)
	}
	if c.key == card && rows["agent card"] != fmt.Sprintf("ok Coder (%s)", card) {
		t.Errorf("doctor's card row %q", rows["agent card"])
	}
}

// TestCardURLSignIn: `shim login --card-url` checks the token against the
// agent the card names and files it under the card URL, which becomes the
// default: doctor and a session with no flag use the card and the token;
// logout forgets it.
func TestCardURLSignIn(t *testing.T) {
	const tok = "tok-card-url-0123456789"
	m := startMultiAgent(t, "1.0", tok)
	card := m.origin + "/api/.well-known/writer/agent-card.json"
	e := newShimEnv(t)
	r := e.run(t, tok+"\n", "login", "--card-url", card)
	if r.code != 0 || !strings.Contains(r.stderr, "accepted the token") {
		t.Fatalf("login: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	last, tokens := e.credentialsFile(t)
	if last != card || tokens[card] != tok || len(tokens) != 1 {
		t.Fatalf("stored lastUrl %q, tokens %v", last, tokens)
	}
	d := e.run(t, "", "doctor")
	rows := doctorRows(t, d.stdout)
	if d.code != 0 || rows["agent URL"] != "ok "+card || rows["agent card"] != "ok Writer ("+card+")" || !strings.HasPrefix(rows["auth probe"], "ok") {
		t.Fatalf("doctor: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
	p := e.start(t)
	p.call(t, 1, "initialize", initParams(false))
	if r := p.call(t, 2, "session/new", newSessionParams()); r["result"] == nil {
		t.Fatalf("session/new with the remembered card URL: %v\n%s", r, p.logs())
	}
	for _, q := range m.requests() {
		if strings.HasPrefix(q.Path, "/api/a2a/") && q.Auth != "Bearer "+tok {
			t.Errorf("%s %s went without the token", q.Method, q.Path)
		}
	}
	r = e.run(t, "", "logout", "--card-url", card)
	if _, tokens := e.credentialsFile(t); r.code != 0 || len(tokens) != 0 || !strings.Contains(r.stdout, "Forgot the token for "+card) {
		t.Fatalf("logout: exit %d %s%s; tokens %v", r.code, r.stdout, r.stderr, tokens)
	}
}

// cardsCase is one way of naming the agent in TestCardsAnywhere: the
// flags and the key its threads are filed under.
type cardsCase struct {
	name string
	args []string
	key  string
}
