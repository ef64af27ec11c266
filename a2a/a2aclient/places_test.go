package a2aclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth"
)

// decorated is a Source that puts a header of its own on every request
// and the stored secret, as a managed platform's does.
type decorated struct{ stored *auth.Stored }

func (d decorated) Check() error { return nil }
func (d decorated) Empty() bool  { return false }
func (d decorated) Apply(req *http.Request) error {
	req.Header.Set("X-Platform", "yes")
	if d.stored.Empty() {
		return nil
	}
	return d.stored.Apply(req)
}

// TestCardPlacesInOrder: the card is read from Cards in order, each
// request with its own dialect's headers: a place that has no card (404)
// passes to the next, a refusal (401) stops there. EndpointOverride is
// where calls go whatever the card names; NoStreaming polls a card that
// says nothing of streaming; the Source puts its headers and the stored
// secret on every request; NoOperator asks no operator API.
func TestCardPlacesInOrder(t *testing.T) {
	var rec recorder
	srv := placesServer(t, &rec, false)
	cfg := Config{URL: srv.URL, Token: "stored-0123456789",
		Cards:            []CardPlace{{URL: srv.URL + "/v1/card", Dialect: a2a.V10}, {URL: srv.URL + "/v0/card", Dialect: a2a.V03}},
		EndpointOverride: srv.URL + "/calls", NoStreaming: true, NoOperator: true,
		Credential: func(st *auth.Stored) auth.Credential { return decorated{st} }}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got.Endpoint != srv.URL+"/calls" || got.Streaming || got.Dialect != a2a.V03 || c.CardURL() != srv.URL+"/v0/card" {
		t.Fatalf("card %+v read from %s", got, c.CardURL())
	}
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Operator().Roots(context.Background()) // asks nothing: no request below
	reqs := rec.all()
	if len(reqs) != 3 {
		t.Fatalf("requests %+v", reqs)
	}
	for i, want := range []struct{ path, version string }{{"/v1/card", "1.0"}, {"/v0/card", ""}, {"/calls", ""}} {
		r := reqs[i]
		if r.Path != want.path || r.Header.Get("A2A-Version") != want.version || r.Header.Get("X-Platform") != "yes" ||
			r.Header.Get("Authorization") != "Bearer stored-0123456789" {
			t.Errorf("request %d: %s %v", i, r.Path, r.Header)
		}
	}
}

// placesServer has no card at /v1/card (refuses it with refuse), a 0.3
// card at /v0/card naming a container's address, and answers tasks/get
// at /calls.
func placesServer(t *testing.T, rec *recorder, refuse bool) *httptest.Server {
	card := `{"name":"P","url":"http://0.0.0.0:9000/","protocolVersion":"0.3","preferredTransport":"JSONRPC"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := rec.add(r)
		switch {
		case r.URL.Path == "/v1/card" && refuse:
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/v0/card":
			_, _ = w.Write([]byte(card))
		case r.URL.Path == "/calls" && x.RPC == "tasks/get":
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCardPlaceRefused: a place that refuses the credential (401) stops
// the search: the next place is not asked.
func TestCardPlaceRefused(t *testing.T) {
	var rec recorder
	srv := placesServer(t, &rec, true)
	c, err := New(Config{URL: srv.URL, Cards: []CardPlace{{URL: srv.URL + "/v1/card"}, {URL: srv.URL + "/v0/card", Dialect: a2a.V03}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Discover(context.Background())
	var h *a2a.HTTPError
	if !errors.As(err, &h) || h.StatusCode != http.StatusUnauthorized || rec.count() != 1 {
		t.Errorf("a refused card: %v after %d requests", err, rec.count())
	}
}
