package a2aclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestDiscoverSkills: discovery keeps the card's skills.
func TestDiscoverSkills(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"n","supportedInterfaces":[{"url":"` + "http://" + r.Host + `/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
			"skills":[{"id":"a","name":"A"},{"id":"b","name":"B","examples":["go"]}]}`))
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	card, err := c.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []a2a.Skill{{ID: "a", Name: "A"}, {ID: "b", Name: "B", Examples: []string{"go"}}}; !reflect.DeepEqual(card.Skills, want) {
		t.Errorf("skills %+v", card.Skills)
	}
}
