package stdio

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"

	"github.com/shimdev/shim/acp"
)

// initOnly answers initialize and nothing else.
type initOnly struct{ unserved }

func (h *initOnly) Initialize(_ context.Context, req *acp.Request, _ *acp.InitializeParams) {
	_ = h.c.Reply(req, acp.InitializeResult{ProtocolVersion: 1, AuthMethods: []acp.AuthMethod{}, AgentInfo: acp.Implementation{Name: "test", Version: "test"}}, nil)
}

// startConn serves a connection that answers initialize and bounds a stdin
// line at lineMax, driven by the schema-checking test client.
func startConn(t *testing.T, lineMax int) *acptest.Client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := newConn(inR, outW, slog.New(slog.DiscardHandler), lineMax)
	c.Start(context.Background(), &initOnly{unserved{c}})
	t.Cleanup(func() { inW.Close(); <-c.Done(); outW.Close() })
	return acptest.NewClient(t, outR, inW, nil)
}

// TestStdinLineCap: a line over the limit is answered -32600 "message too
// large", with the request's id when the line's first 64 KiB hold it whole
// (else null), whatever the rest holds; the rest of it is skipped and the
// next line, just under the limit, is served.
func TestStdinLineCap(t *testing.T) {
	pad := strings.Repeat("p", 3<<20)
	for _, tc := range []struct {
		name, line, id string
	}{
		{"id first", `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"pad":"` + pad + `"}}`, "5"},
		{"string id", `{"id" : "req-\"7\"", "jsonrpc":"2.0","method":"session/prompt","params":{"pad":"` + pad + `"}}`, `"req-\"7\""`},
		{"id after the params", `{"jsonrpc":"2.0","method":"session/prompt","params":{"pad":"` + pad + `"},"id":6}`, "null"},
		{"id past the first 64 KiB", `{"jsonrpc":"2.0","x":"` + strings.Repeat("x", 70<<10) + `","id":6,"params":{"pad":"` + pad + `"}}`, "null"},
		{"id at the cut", `{"jsonrpc":"2.0","x":"` + strings.Repeat("x", (64<<10)-len(`{"jsonrpc":"2.0","x":"","id":12`)) + `","id":1234,"params":{"pad":"` + pad + `"}}`, "null"},
		{"nested id", `{"jsonrpc":"2.0","method":"session/prompt","params":{"id":9,"pad":"` + pad + `"}}`, "null"},
		{"invalid id", `{"jsonrpc":"2.0","id":-3,"method":"session/prompt","params":{"pad":"` + pad + `"}}`, "null"},
		{"not an object", `["` + pad + `"]`, "null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startConn(t, 1<<20)
			s.WriteLine([]byte(tc.line))
			s.WaitFor("the -32600 answer", func(ms []acptest.Message) bool {
				for _, m := range ms {
					if m.Error != nil {
						return true
					}
				}
				return false
			})
			var e *acptest.Message
			for _, m := range s.Messages() {
				if m.Error != nil {
					e = &m
					break
				}
			}
			if e.Error.Code != -32600 || e.Error.Message != "message too large" || string(e.ID) != tc.id {
				t.Fatalf("want -32600 message too large with id %s, got %+v id %s", tc.id, e.Error, e.ID)
			}
			m := s.Call("initialize", map[string]any{"protocolVersion": 1, "pad": strings.Repeat("q", (1<<20)-200)})
			if m.Error != nil {
				t.Fatalf("the next line: %v", m.Error)
			}
		})
	}
}

// TestMethodKeyExact: a line whose only method-like key is spelled in
// another case ("mEthod") is no request to jsonrpc2: it is answered -32600
// with its id and the connection goes on serving.
func TestMethodKeyExact(t *testing.T) {
	s := startConn(t, lineMaxBytes)
	s.WriteLine([]byte(`{"jsonrpc":"2.0","id":7,"mEthod":"initialize","params":{"protocolVersion":1}}`))
	m := s.Call("initialize", map[string]any{"protocolVersion": 1})
	if m.Error != nil {
		t.Fatalf("not served after the odd line: %+v", m.Error)
	}
	var odd *acptest.Message
	for _, x := range s.Messages() {
		if string(x.ID) == "7" {
			odd = &x
			break
		}
	}
	if odd == nil || odd.Error == nil || odd.Error.Code != -32600 {
		t.Fatalf("the odd line's answer: %+v", odd)
	}
}
