package a2aclient

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
)

// restCard is a 1.0 card whose only interface is HTTP+JSON.
func restCard(endpoint, tenant string, streaming bool) string {
	b, _ := json.Marshal(map[string]any{
		"name": "rest", "capabilities": map[string]any{"streaming": streaming},
		"supportedInterfaces": []map[string]any{
			{"url": endpoint, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": tenant},
		},
	})
	return string(b)
}

// TestRESTErrors: HTTP+JSON error bodies, google.rpc.Status and RFC 9457
// problem+json, in a unary answer and in a stream frame, map to the
// JSON-RPC errors of the same meaning; 401 is a refused credential; an
// HTML page is an HTTP error.
func TestRESTErrors(t *testing.T) {
	const status404 = `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found: x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`
	const statusBare = `{"code":400,"status":"FAILED_PRECONDITION","message":"task is not cancelable","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE"}]}`
	const problem = `{"type":"https://a2a-protocol.org/errors/unsupported-operation","title":"Unsupported operation","status":400,"detail":"the task is terminal"}`
	const problemPlain = `{"type":"about:blank","title":"Not Found","status":404}`
	tests := []struct {
		name, ct, body string
		status         int
		code           int
		msg            string
		unauthorized   bool
		html           bool
	}{
		{name: "google.rpc.Status", ct: "application/json", body: status404, status: 404, code: a2a.CodeTaskNotFound, msg: "task not found: x"},
		{name: "bare status", ct: "application/json", body: statusBare, status: 400, code: a2a.CodeTaskNotCancelable, msg: "task is not cancelable"},
		{name: "problem+json by type", ct: "application/problem+json", body: problem, status: 400, code: a2a.CodeUnsupported, msg: "Unsupported operation: the task is terminal"},
		{name: "problem+json by status", ct: "application/problem+json", body: problemPlain, status: 404, code: a2a.CodeTaskNotFound, msg: "Not Found"},
		{name: "401", ct: "application/json", body: `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"no"}}`, status: 401, unauthorized: true},
		{name: "html", ct: "text/html", body: "<html><title>Bad gateway page</title></html>", status: 404, html: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, restCard("http://"+r.Host+"/v1", "", true))
			})
			mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ct)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			c := newClient(t, Config{URL: srv.URL})
			_, err := c.GetTask(ctxT(t), "x", 0)
			var rpc *a2a.RPCError
			var herr *a2a.HTTPError
			switch {
			case tt.unauthorized:
				if !a2a.IsUnauthorized(err) {
					t.Fatalf("want unauthorized, got %v", err)
				}
			case tt.html:
				if !errors.As(err, &herr) || !herr.HTML || herr.Detail != "Bad gateway page" {
					t.Fatalf("want an HTML HTTP error, got %v", err)
				}
			default:
				if !errors.As(err, &rpc) || rpc.Code != tt.code || rpc.Message != tt.msg {
					t.Fatalf("want RPCError %d %q, got %#v", tt.code, tt.msg, err)
				}
			}
		})
	}

	t.Run("stream frame", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, restCard("http://"+r.Host+"/v1", "", true))
		})
		mux.HandleFunc("POST /v1/message:stream", func(w http.ResponseWriter, r *http.Request) {
			sseStart(w)
			sseFrames(w, `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}`, status404)
		})
		srv := httptest.NewServer(mux)
		defer srv.Close()
		c := newClient(t, Config{URL: srv.URL})
		s, err := c.Stream(ctxT(t), a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hi"}}})
		if err != nil {
			t.Fatal(err)
		}
		evs, err := drain(t, s)
		var rpc *a2a.RPCError
		if kinds(evs) != "task:submitted" || !errors.As(err, &rpc) || rpc.Code != a2a.CodeTaskNotFound {
			t.Fatalf("events %s, err %v", kinds(evs), err)
		}
	})
}

// TestRESTRoutesAndHeaders: the HTTP+JSON routes under the interface URL
// and its tenant, ProtoJSON bodies (a bare StreamResponse per SSE frame),
// shim's headers and token on each, a card on another origin rebased.
// restRoutesServer is TestRESTRoutesAndHeaders' agent: a card on another
// origin, and an HTTP+JSON interface under /api/v1/ with the tenant
// "t 1" that records each request (rec) and each query (queries).
func restRoutesServer(t *testing.T, rec *recorder) (srv *httptest.Server, queries func() []string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, restCard("http://elsewhere.invalid:9/api/v1/", "t 1", true))
	})
	var qmu sync.Mutex
	var qs []string // "path?query" of the requests that carry one
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		if r.URL.RawQuery != "" {
			qmu.Lock()
			qs = append(qs, r.URL.Path+"?"+r.URL.RawQuery)
			qmu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "message:stream"), strings.HasSuffix(r.URL.Path, ":subscribe"):
			sseStart(w)
			sseFrames(w, `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`)
		case r.URL.Path == "/api/v1/t 1/tasks" && r.URL.Query().Get("pageToken") == "":
			io.WriteString(w, `{"tasks":[{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":"p 2"}`)
		case r.URL.Path == "/api/v1/t 1/tasks":
			io.WriteString(w, `{"tasks":[{"id":"t2","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":""}`)
		case strings.HasSuffix(r.URL.Path, "extendedAgentCard"):
			io.WriteString(w, `{"name":"ext"}`)
		default:
			io.WriteString(w, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}`)
		}
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, func() []string {
		qmu.Lock()
		defer qmu.Unlock()
		return append([]string(nil), qs...)
	}
}

func TestRESTRoutesAndHeaders(t *testing.T) {
	rec := &recorder{}
	srv, queries := restRoutesServer(t, rec)
	c := newClient(t, Config{URL: srv.URL, Token: "sekrit-token-1234"})
	ctx := ctxT(t)
	s, err := c.Stream(ctx, a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if evs, err := drain(t, s); !errors.Is(err, io.EOF) || kinds(evs) != "status:completed" {
		t.Fatalf("stream %s %v", kinds(evs), err)
	}
	if _, err := c.GetTask(ctx, "t/1", 5); err != nil {
		t.Fatal(err)
	}
	if err := c.CancelTask(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if tasks, err := c.ListTasks(ctx, "c1", 2); err != nil || len(tasks) != 2 {
		t.Fatalf("ListTasks: %d tasks, %v", len(tasks), err)
	}
	s, err = c.Resubscribe(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	var got []string
	for _, r := range rec.all() {
		got = append(got, r.Method+" "+r.Path)
		if r.Header.Get("Authorization") != "Bearer sekrit-token-1234" || r.Header.Get("A2A-Version") != "1.0" ||
			!strings.Contains(r.Header.Get("A2A-Extensions"), a2a.ExtToolCall) {
			t.Errorf("%s %s headers %v", r.Method, r.Path, r.Header)
		}
	}
	want := "POST /api/v1/t 1/message:stream|GET /api/v1/t 1/tasks/t/1|POST /api/v1/t 1/tasks/t1:cancel|GET /api/v1/t 1/tasks|GET /api/v1/t 1/tasks|GET /api/v1/t 1/tasks/t1:subscribe"
	if strings.Join(got, "|") != want {
		t.Errorf("routes\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	// SPEC §12.3's query parameters: GetTask's historyLength; ListTasks by
	// contextId with its artifacts, the next page by pageToken.
	gotQ := strings.Join(queries(), "|")
	wantQ := "/api/v1/t 1/tasks/t/1?historyLength=5" +
		"|/api/v1/t 1/tasks?contextId=c1&historyLength=2&includeArtifacts=true&pageSize=100" +
		"|/api/v1/t 1/tasks?contextId=c1&historyLength=2&includeArtifacts=true&pageSize=100&pageToken=p+2"
	if gotQ != wantQ {
		t.Errorf("queries\n got %s\nwant %s", gotQ, wantQ)
	}
	reqs := rec.all()
	var body struct {
		Message map[string]any `json:"message"`
	}
	_ = json.Unmarshal(reqs[0].Body, &body)
	if body.Message["role"] != "ROLE_USER" || body.Message["contextId"] != "c1" {
		t.Errorf("send body %s", reqs[0].Body)
	}
	if reqs[0].Header.Get("Accept") != "text/event-stream" {
		t.Errorf("stream Accept %q", reqs[0].Header.Get("Accept"))
	}
	if q := reqs[3].Header; q == nil {
		t.Fatal("no list request")
	}
}

// TestRESTSubscribeFallsBackToPost: a server that routes subscribe only
// to POST (as a2a-go v2.3.1 does) answers GET with 404; shim asks again
// with POST and keeps POST for the next reattach.
func TestRESTSubscribeFallsBackToPost(t *testing.T) {
	var gets, posts atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, restCard("http://"+r.Host+"/v1", "", true))
	})
	mux.HandleFunc("GET /v1/tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found"}}`)
	})
	mux.HandleFunc("POST /v1/tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		sseStart(w)
		sseFrames(w, `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := newClient(t, Config{URL: srv.URL})
	for range 2 {
		s, err := c.Resubscribe(ctxT(t), "t1")
		if err != nil {
			t.Fatal(err)
		}
		if evs, _ := drain(t, s); kinds(evs) != "status:completed" {
			t.Fatalf("events %s", kinds(evs))
		}
	}
	if gets.Load() != 1 || posts.Load() != 2 {
		t.Errorf("GET %d POST %d, want 1 and 2", gets.Load(), posts.Load())
	}
}

// TestCardBindingChoice: auto takes JSON-RPC when the card has it, else
// HTTP+JSON (1.0 supportedInterfaces; 0.3 preferredTransport or
// additionalInterfaces); --binding forces one.
func TestCardBindingChoice(t *testing.T) {
	tests := []struct {
		name, card string
		bind       a2a.Binding
		want       a2a.Binding
		endpoint   string
		err        bool
	}{
		{name: "1.0 both, auto", card: `{"supportedInterfaces":[{"url":"http://h/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},{"url":"http://h/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
			want: a2a.BindingJSONRPC, endpoint: "http://h/rpc"},
		{name: "1.0 both, forced", card: `{"supportedInterfaces":[{"url":"http://h/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},{"url":"http://h/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
			bind: a2a.BindingHTTPJSON, want: a2a.BindingHTTPJSON, endpoint: "http://h/rest"},
		{name: "1.0 rest only", card: `{"supportedInterfaces":[{"url":"http://h/g","protocolBinding":"GRPC"},{"url":"http://h/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			want: a2a.BindingHTTPJSON, endpoint: "http://h/rest"},
		{name: "0.3 preferred", card: `{"url":"http://h/v1","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0"}`,
			want: a2a.BindingHTTPJSON, endpoint: "http://h/v1"},
		{name: "0.3 additional", card: `{"url":"http://h/g","preferredTransport":"GRPC","protocolVersion":"0.3.0","additionalInterfaces":[{"url":"http://h/v1","transport":"HTTP+JSON"}]}`,
			want: a2a.BindingHTTPJSON, endpoint: "http://h/v1"},
		{name: "0.3 jsonrpc first", card: `{"url":"http://h/v1","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0","additionalInterfaces":[{"url":"http://h/rpc","transport":"JSONRPC"}]}`,
			want: a2a.BindingJSONRPC, endpoint: "http://h/rpc"},
		{name: "forced missing", card: `{"supportedInterfaces":[{"url":"http://h/rpc","protocolBinding":"JSONRPC"}]}`, bind: a2a.BindingHTTPJSON, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card, err := agentcard.Parse([]byte(tt.card), 0, tt.bind)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), "HTTP+JSON") {
					t.Fatalf("want an error naming HTTP+JSON, got %v", err)
				}
				return
			}
			if err != nil || card.Binding != tt.want || card.Endpoint != tt.endpoint {
				t.Fatalf("card %+v %v", card, err)
			}
		})
	}
}

// TestCodecPinsTheBinding: CodecProtoJSON03 speaks 0.3's HTTP+JSON at the
// base URL whatever the card (or Version and Binding) say, reads the card
// for its name, skills and extended card (at 0.3's /v1/card), and keeps
// the base when the extended card names another interface; with an
// endpoint it skips the card; an unknown codec is refused.
func TestCodecPinsTheBinding(t *testing.T) {
	if _, err := New(Config{URL: "http://h", Codec: "grpc"}); err == nil || !strings.Contains(err.Error(), "protojson-0.3") {
		t.Errorf("unknown codec: %v", err)
	}
	rec := &recorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /platform/a2a/v1/card", func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		io.WriteString(w, `{"name":"extended","url":"http://elsewhere.example/x","preferredTransport":"HTTP+JSON","protocolVersion":"0.3","skills":[{"id":"s","name":"S"}]}`)
	})
	mux.HandleFunc("GET /card.json", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"name":"public","url":"http://0.0.0.0:8080/","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","supportsAuthenticatedExtendedCard":true}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"task not found","status":"NOT_FOUND"}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL + "/platform/a2a"
	c := newClient(t, Config{URL: base, CardURL: srv.URL + "/card.json", Codec: CodecProtoJSON03, Version: "1.0", Binding: "jsonrpc"})
	if err := c.Probe(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	card := c.KnownCard()
	if card.Name != "extended" || !card.Extended || len(card.Skills) != 1 || card.Endpoint != base ||
		card.Dialect != a2a.V03 || card.Binding != a2a.BindingHTTPJSON {
		t.Fatalf("card %+v", card)
	}
	if _, err := c.GetTask(ctxT(t), "t1", 2); err == nil {
		t.Fatal("no error for a missing task")
	}
	var paths []string
	for _, r := range rec.all() {
		paths = append(paths, r.Method+" "+strings.TrimPrefix(r.Path, "/platform/a2a"))
	}
	if got := strings.Join(paths, " | "); !strings.HasPrefix(got, "GET /v1/tasks/shim-probe-") || !strings.HasSuffix(got, " | GET /v1/card | GET /v1/tasks/t1") {
		t.Errorf("requests %s", got)
	}

	c = newClient(t, Config{Endpoint: base, Codec: CodecProtoJSON03})
	card, err := c.Discover(ctxT(t))
	if err != nil || card.Endpoint != base || card.Dialect != a2a.V03 || card.Binding != a2a.BindingHTTPJSON {
		t.Fatalf("endpoint card %+v %v", card, err)
	}
}
