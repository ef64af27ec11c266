package acp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// stuckWriter is an editor that stopped reading: its first Write blocks
// until released.
type stuckWriter struct {
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	buf              bytes.Buffer
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered); <-w.release })
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// TestReplyNeverWaitsForRoom: with the editor not reading and the queue
// over its bound, an update waits for room but a reply (a cancel's
// "cancelled") is queued at once, after the updates queued before it.
func TestReplyNeverWaitsForRoom(t *testing.T) {
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	c := NewConn(strings.NewReader(""), w, slog.New(slog.DiscardHandler))
	if err := c.Send("s1", AgentMessageChunk{Content: Text("first")}); err != nil {
		t.Fatal(err)
	}
	<-w.entered // the writer is stuck in the editor's pipe
	big := strings.Repeat("x", 64<<10)
	for q := 0; q < 2*outMax; q += len(big) {
		if err := c.Send("s1", AgentMessageChunk{Content: Text(big)}); err != nil {
			t.Fatal(err)
		}
	}
	paced := make(chan error, 1)
	go func() { paced <- c.Notify("s1", AgentMessageChunk{Content: Text("paced")}) }()
	replied := make(chan error, 1)
	go func() {
		replied <- c.Reply(&Request{ID: idOf(7), Method: MethodSessionPrompt}, PromptResult{StopReason: StopCancelled}, nil)
	}()
	if err := <-replied; err != nil { // returns with the writer still stuck
		t.Fatal(err)
	}
	select {
	case err := <-paced:
		t.Fatalf("an update was let through a full queue (err %v)", err)
	default:
	}
	close(w.release)
	if err := <-paced; err != nil {
		t.Fatal(err)
	}
	c.s.flushClose()
	out := w.buf.String()
	reply := strings.Index(out, `"stopReason":"cancelled"`)
	if reply < 0 || reply < strings.LastIndex(out, big) {
		t.Fatalf("the reply is missing or precedes the updates queued before it")
	}
}

// TestResultLine: a successful answer's line is the one jsonrpc2 marshals
// for it, byte for byte, for ids and results of every shape.
func TestResultLine(t *testing.T) {
	ids := []jsonrpc2.ID{{Num: 0}, {Num: 1<<53 + 1}, {Str: "", IsString: true}, {Str: `a"b\\c<d>&é` + "\u2028\x01", IsString: true}}
	results := []any{
		nil,
		struct{}{},
		map[string]any{"z": 1, "a": []any{"<html>&", 1.5, nil, true}, "u": "\u2028\u2029\xff"},
		"plain",
		json.RawMessage(`{ "spaced" : [ 1 , 2 ] }`),
	}
	for _, id := range ids {
		for _, r := range results {
			res, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(&jsonrpc2.Response{ID: id, Result: (*json.RawMessage)(&res)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := resultLine(id, r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("id %v result %v:\n got %s\nwant %s", id, r, got, want)
			}
		}
	}
	if _, err := resultLine(jsonrpc2.ID{}, func() {}); err == nil {
		t.Error("a result that does not marshal must fail")
	}
}

// TestResultLineInitialize: initialize's answer is the envelope around the
// result as it writes itself.
func TestResultLineInitialize(t *testing.T) {
	r := InitializeResult{ProtocolVersion: 1, AgentInfo: Implementation{Name: "shim", Title: "R&D <agent>"}}
	got, err := resultLine(jsonrpc2.ID{Num: 0}, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":0,"result":` + string(r.appendJSON(nil)) + `,"jsonrpc":"2.0"}`; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	var back struct {
		Result InitializeResult `json:"result"`
	}
	if err := json.Unmarshal(got, &back); err != nil || back.Result.AgentInfo.Title != "R&D <agent>" {
		t.Errorf("read back %+v (%v)", back.Result, err)
	}
}
