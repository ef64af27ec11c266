package platformtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// rpcBody is a JSON-RPC request.
func rpcBody(t *testing.T, method string, params any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// msg03 is an A2A 0.3 JSON-RPC message with one text part.
func msg03(text string) map[string]any {
	return map[string]any{"kind": "message", "role": "user", "messageId": randomToken("m-", 8),
		"parts": []any{map[string]any{"kind": "text", "text": text}}}
}

// msg10 is an A2A 1.0 message with one text part.
func msg10(text string) map[string]any {
	return map[string]any{"role": "ROLE_USER", "messageId": randomToken("m-", 8),
		"parts": []any{map[string]any{"text": text}}}
}

// newRequest builds a request with a body the test can sign.
func newRequest(t *testing.T, method, url string, body []byte) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// send does req with client (http.DefaultClient when nil) and reads the
// answer.
func send(t *testing.T, client *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// sseData returns the data of each event of an SSE body.
func sseData(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, json.RawMessage(strings.Join(cur, "\n")))
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			cur = append(cur, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return out
}

// field walks a decoded JSON value by keys.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return m
}

// streamText joins the text of every artifact chunk in a stream of
// JSON-RPC 0.3 events and returns it with the last state seen.
func streamText03(t *testing.T, events []json.RawMessage) (text, state string) {
	t.Helper()
	for _, ev := range events {
		res := field(decode(t, ev), "result")
		switch field(res, "kind") {
		case "artifact-update":
			for _, p := range field(res, "artifact", "parts").([]any) {
				text += field(p, "text").(string)
			}
		case "status-update", "task":
			state, _ = field(res, "status", "state").(string)
		}
	}
	return text, state
}
