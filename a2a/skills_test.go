package a2a

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestCardSkills: the skills of a recorded 1.0 card and of a 0.3 card are
// read in the card's order; one with neither id nor name is left out.
func TestCardSkills(t *testing.T) {
	cardSkills := func(body []byte) []Skill {
		var c Card
		cardExtras(body, &c)
		return c.Skills
	}
	b, err := os.ReadFile(filepath.Join("testdata/captures", "card-v1only.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cardSkills(b), []Skill{{ID: "cap", Name: "cap", Description: "capture", Examples: []string{}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("1.0 capture: %+v", got)
	}
	v03 := `{"name":"old","url":"http://h/rpc","protocolVersion":"0.3.0","skills":[
		{"id":"review-pr","name":"Review PR","description":"Reviews a pull request\nin depth","examples":["review #12","review the diff"]},
		{"description":"nameless"},
		{"id":"plan","name":"Plan","description":""}]}`
	want := []Skill{
		{ID: "review-pr", Name: "Review PR", Description: "Reviews a pull request\nin depth", Examples: []string{"review #12", "review the diff"}},
		{ID: "plan", Name: "Plan"},
	}
	if got := cardSkills([]byte(v03)); !reflect.DeepEqual(got, want) {
		t.Errorf("0.3 card: %+v", got)
	}
}

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
	if want := []Skill{{ID: "a", Name: "A"}, {ID: "b", Name: "B", Examples: []string{"go"}}}; !reflect.DeepEqual(card.Skills, want) {
		t.Errorf("skills %+v", card.Skills)
	}
}
