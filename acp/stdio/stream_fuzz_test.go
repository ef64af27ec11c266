package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/acp"
)

// FuzzStdioLine feeds arbitrary input to the ACP stdio transport: it never
// panics or hangs; every line is either handed on as a JSON-RPC message or
// answered with exactly one error response, and every byte it writes is a
// JSON-RPC 2.0 error object on a line of its own.
func FuzzStdioLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":"a","result":{"outcome":{"outcome":"cancelled"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
		`{"id":1.5,"method":"x"}`, `{"id":-3,"method":"x"}`, `{"id":true,"method":"x"}`,
		`{"method":7}`, `{"foo":1}`, `"str"`, `null`, "\xff\xfe", "",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\r\n{\"id\":2}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		var out bytes.Buffer
		s := newStream(strings.NewReader(input), &out, slog.New(slog.DiscardHandler), lineMaxBytes)
		accepted := 0
		for i := 0; i < 10000; i++ {
			var m json.RawMessage
			var req jsonrpc2.Request
			err := s.ReadObject(&m)
			if err != nil {
				if err != io.EOF {
					t.Fatalf("ReadObject: %v", err)
				}
				break
			}
			accepted++
			if !json.Valid(m) {
				t.Fatalf("handed on invalid JSON %q", m)
			}
			// A request as jsonrpc2 reads one: an exact "method" key
			// (encoding/json's struct fields would also match "mEthod";
			// jsonrpc2 answers such a line -32600 itself).
			var probe map[string]json.RawMessage
			_ = json.Unmarshal(m, &probe)
			if _, ok := probe["method"]; ok {
				if err := json.Unmarshal(m, &req); err != nil {
					t.Fatalf("handed on a request jsonrpc2 cannot read: %q: %v", m, err)
				}
			}
		}
		s.flushClose() // writes are asynchronous: wait for them
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.JSONRPC != "2.0" || e.Error == nil || e.ID == nil {
				t.Fatalf("wrote %q", sc.Bytes())
			}
			switch e.Error.Code {
			case acp.CodeParseError, acp.CodeInvalidRequest:
			default:
				t.Fatalf("unexpected code %d", e.Error.Code)
			}
		}
	})
}

// FuzzIdInHead reads the id of every beginning of a line: it never
// panics; what it finds is a valid id (a JSON string or a non-negative
// integer); and on a whole object whose "id" key is its only one it finds
// what encoding/json reads (jsonrpc2 too), whenever it finds anything.
func FuzzIdInHead(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"id" : "a\"b", "method":"x"}`, `{"params":{"id":3},"id":4}`, `{"id":12`, `{"id":"ab`,
		`{"id":-1}`, `{"id":1.5}`, `{"a":[1,{"id":2}],"id":"x"}`, `["id",1]`, `{"id":1,"id":"2"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var whole struct {
			ID json.RawMessage `json:"id"`
		}
		// encoding/json matches keys in any case and reads escapes in them.
		complete := json.Unmarshal([]byte(line), &whole) == nil && strings.Count(strings.ToLower(line), `"id"`) == 1 &&
			!strings.Contains(line, `\`)
		want, _ := validID(whole.ID)
		for k := 0; k <= len(line); k++ {
			got := idInHead([]byte(line[:k]))
			if got == nil {
				continue
			}
			if v, ok := validID(got); !ok || v == nil || !json.Valid(got) {
				t.Fatalf("head %q: id %s is not a valid id", line[:k], got)
			}
			if complete && !bytes.Equal(got, want) {
				t.Fatalf("head %q: id %s, encoding/json reads %s", line[:k], got, want)
			}
		}
	})
}
