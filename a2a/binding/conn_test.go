package binding

import (
	"net/http"
	"testing"

	"github.com/hashicorp/go-cleanhttp"
)

// TestDedicated: a dedicated Conn's requests go over a transport of one
// connection of its own, also under the credentials' wrapper.
func TestDedicated(t *testing.T) {
	base := cleanhttp.DefaultPooledTransport()
	var wrapped []http.RoundTripper
	c := New(Options{Base: base, Wrap: func(rt http.RoundTripper) http.RoundTripper {
		wrapped = append(wrapped, rt)
		return rt
	}})
	d, closeIdle := c.Dedicated()
	if len(wrapped) != 2 || wrapped[0] != base {
		t.Fatalf("wrapped %v", wrapped)
	}
	own, ok := wrapped[1].(*http.Transport)
	if !ok || own == base || own.MaxConnsPerHost != 1 || own.MaxIdleConnsPerHost != 1 || own.DisableKeepAlives {
		t.Fatalf("the dedicated transport: %+v", wrapped[1])
	}
	if d.streaming.Transport != own || d.unary.HTTPClient.Transport != own {
		t.Fatal("the dedicated Conn's clients do not use its transport")
	}
	closeIdle()
}
