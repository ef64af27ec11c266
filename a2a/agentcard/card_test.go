package agentcard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestCaptureCards picks the endpoint and dialect of each recorded card.
func TestCaptureCards(t *testing.T) {
	tests := []struct {
		file    string
		forced  a2a.Dialect
		dialect a2a.Dialect
		url     string
	}{
		{"card-v1only.json", 0, a2a.V10, "http://127.0.0.1:41300/a2a"},
		{"card-compat-v1.json", 0, a2a.V10, "http://127.0.0.1:41301/a2a"},
		{"card-compat-v1.json", a2a.V03, a2a.V03, "http://127.0.0.1:41301/a2a"},
		{"card-compat-noheader.json", 0, a2a.V10, "http://127.0.0.1:41301/a2a"},
		{"go-card.json", 0, a2a.V10, "http://127.0.0.1:41310/a2a"},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("testdata/captures", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		card, err := Parse(b, tt.forced, 0)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if card.Dialect != tt.dialect || card.Endpoint != tt.url || !card.Streaming {
			t.Errorf("%s forced=%v: got %+v", tt.file, tt.forced, card)
		}
	}
	// A 0.3-only card (no supportedInterfaces) selects 0.3.
	card, err := Parse([]byte(`{"name":"old","url":"http://h/rpc","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{"streaming":false}}`), 0, 0)
	if err != nil || card.Dialect != a2a.V03 || card.Endpoint != "http://h/rpc" || card.Streaming {
		t.Errorf("0.3 card: %+v %v", card, err)
	}
	if _, err := Parse([]byte(`{"supportedInterfaces":[{"url":"http://h/g","protocolBinding":"GRPC"}]}`), 0, 0); err == nil {
		t.Error("a card with no JSONRPC interface must be refused")
	}
}
