package a2aclient

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// a2aJSONServer answers everything typed application/a2a+json (A2A
// 1.0.1): its card (streaming or not), unary results, JSON-RPC errors, the
// operator API, and a google.rpc.Status for anything else.
func a2aJSONServer(t *testing.T, streaming bool) string {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/a2a+json")
		body, _ := io.ReadAll(r.Body)
		switch s := string(body); {
		case r.URL.Path == "/.well-known/agent-card.json":
			_, _ = w.Write([]byte(card10(srv.URL+"/a2a", "", streaming)))
		case strings.Contains(s, `"CancelTask"`):
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Task cannot be canceled"}}`))
		case strings.Contains(s, `"SendStreamingMessage"`):
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"overloaded"}}`))
		case r.URL.Path == "/a2a":
			_, _ = w.Write([]byte(taskResult))
		case r.URL.Path == "/api/chat/sessions":
			_, _ = w.Write([]byte(`{"sessions":[{"session_id":"chat-1","title":"One"}]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":404,"status":"NOT_FOUND","message":"no such route"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestA2AJSONMediaType: responses typed application/a2a+json read as JSON
// like application/json: the card, unary results, a blocking send's
// result, JSON-RPC errors (to a unary call and to a stream), the operator
// API (SPEC §12.8).
func TestA2AJSONMediaType(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, Config{URL: a2aJSONServer(t, false)})
	if task, err := c.GetTask(ctx, "t1", 0); err != nil || task.ID != "t1" {
		t.Fatalf("GetTask: %v %v", task, err)
	}
	s, err := c.Stream(ctx, a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "hi"}}})
	if err != nil {
		t.Fatalf("a blocking send: %v", err)
	}
	if evs, _ := drain(t, s); !strings.Contains(kinds(evs), "completed") {
		t.Errorf("a blocking send: %s", kinds(evs))
	}
	s.Close()
	var rpc *a2a.RPCError
	if err := c.CancelTask(ctx, "t1"); !errors.As(err, &rpc) || rpc.Code != -32002 {
		t.Errorf("an error typed a2a+json: %v", err)
	}
	rows, err := c.Operator().Sessions(ctx)
	if err != nil || len(rows) != 1 || rows[0].ID != "chat-1" {
		t.Errorf("operator API: %v %v", rows, err)
	}
	streaming := newClient(t, Config{URL: a2aJSONServer(t, true)})
	if _, err := streaming.Stream(ctx, a2a.OutMessage{ContextID: "c1", Parts: []a2a.Part{{Text: "hi"}}}); !errors.As(err, &rpc) || rpc.Message != "overloaded" {
		t.Errorf("a stream answered by an error typed a2a+json: %v", err)
	}
}
