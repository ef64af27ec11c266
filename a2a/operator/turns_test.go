package operator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/internal/turnsbody"
)

// serveTurns is an operator API whose /turns answers body.
func serveTurns(tb testing.TB, body []byte) *API {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return New(binding.New(binding.Options{Origin: srv.URL}), srv.URL, func() a2a.Dialect { return a2a.V10 })
}

// A turn's artifacts and messages are read where the turn keeps them, in
// the server's order, with a null one left out.
func TestTurnsModel(t *testing.T) {
	body := []byte(`{"turns":[{"task_id":"t1","state":"TASK_STATE_COMPLETED","last_updated":"2026-09-24T10:00:00Z",` +
		`"artifacts":[null,{"artifactId":"a1","parts":[{"text":"one"}]},{"artifactId":"a2","parts":[{"text":"two"},{"text":"2"}]}],` +
		`"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]},null,` +
		`{"messageId":"m2","role":"ROLE_AGENT","parts":[],"metadata":{"https://proto-labs.ai/a2a/ext/tool-call-v1":{"toolCallId":"c1","name":"read_file","phase":"started","args":{"path":"a"}}}}]},` +
		`{"task_id":"t2","state":"TASK_STATE_WORKING","history":[null]}]}`)
	ts, err := serveTurns(t, body).Turns(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 {
		t.Fatalf("%d turns", len(ts))
	}
	checkFirstTurn(t, ts[0])
	if ts[1].TaskID != "t2" || ts[1].State != a2a.StateWorking || ts[1].History != nil || ts[1].Artifacts != nil {
		t.Errorf("second turn %+v", ts[1])
	}
}

// checkFirstTurn checks TestTurnsModel's first turn: its artifacts and
// its history, the null ones left out, a message's tool call read.
func checkFirstTurn(t *testing.T, turn Turn) {
	t.Helper()
	a := turn.Artifacts
	if len(a) != 2 || a[0].ID != "a1" || len(a[0].Parts) != 1 || a[0].Parts[0].Text != "one" ||
		a[1].ID != "a2" || len(a[1].Parts) != 2 || a[1].Parts[1].Text != "2" {
		t.Errorf("artifacts %+v", a)
	}
	h := turn.History
	if len(h) != 2 || h[0].ID != "m1" || h[0].Role != "user" || h[0].Text() != "hi" || h[1].ID != "m2" || h[1].Role != "agent" {
		t.Fatalf("history %+v", h)
	}
	if tc := h[1].ToolCalls(); len(tc) != 1 || tc[0].ID != "c1" || tc[0].Phase != a2a.PhaseStarted || tc[0].Args != `{"path":"a"}` {
		t.Errorf("tool calls %+v", tc)
	}
}

// BenchmarkTurns reads the 10,000 turns of make bench's replay (10 MiB)
// from a local server, as session/load does.
func BenchmarkTurns(b *testing.B) {
	body := turnsbody.Body(0, 10000)
	api := serveTurns(b, body)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ts, err := api.Turns(context.Background(), "s1")
		if err != nil {
			b.Fatal(err)
		}
		if len(ts) != 10000 || len(ts[9999].History) != 3 {
			b.Fatalf("%d turns", len(ts))
		}
	}
}
