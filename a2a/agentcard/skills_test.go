package agentcard

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestCardSkills: the skills of a recorded 1.0 card and of a 0.3 card are
// read in the card's order; one with neither id nor name is left out.
func TestCardSkills(t *testing.T) {
	cardSkills := func(body []byte) []a2a.Skill {
		var c a2a.Card
		cardExtras(body, &c)
		return c.Skills
	}
	b, err := os.ReadFile(filepath.Join("testdata/captures", "card-v1only.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cardSkills(b), []a2a.Skill{{ID: "cap", Name: "cap", Description: "capture", Examples: []string{}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("1.0 capture: %+v", got)
	}
	v03 := `{"name":"old","url":"http://h/rpc","protocolVersion":"0.3.0","skills":[
		{"id":"review-pr","name":"Review PR","description":"Reviews a pull request\nin depth","examples":["review #12","review the diff"]},
		{"description":"nameless"},
		{"id":"plan","name":"Plan","description":""}]}`
	want := []a2a.Skill{
		{ID: "review-pr", Name: "Review PR", Description: "Reviews a pull request\nin depth", Examples: []string{"review #12", "review the diff"}},
		{ID: "plan", Name: "Plan"},
	}
	if got := cardSkills([]byte(v03)); !reflect.DeepEqual(got, want) {
		t.Errorf("0.3 card: %+v", got)
	}
}
