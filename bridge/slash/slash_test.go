package slash

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// TestCommandNames pins SPEC §11.1's rules: lowercase, runs outside
// [a-z0-9_-] one "-", trimmed, cut at 32, clashes numbered, status
// reserved; the description's first line (at most 200 characters) else
// the skill's name; the first example (at most 80) as the input hint.
func TestCommandNames(t *testing.T) {
	long := strings.Repeat("d", 250)
	card := &a2a.Card{Skills: []a2a.Skill{
		{ID: "Review PR!", Name: "Review", Description: "  Reviews a pull request\nin depth", Examples: []string{"#12 please", "other"}},
		{ID: "review  pr", Name: "Second review"},
		{ID: "status", Name: "Agent status"},
		{ID: "--Ünïcode__and spaces: a very long identifier indeed--", Description: long, Examples: []string{strings.Repeat("é", 100)}},
		{ID: "Status", Name: "Another status", Examples: []string{""}},
		{ID: "***", Name: "Stars"},
	}}
	got := Of(card)
	want := []acp.AvailableCommand{
		{Name: "review-pr", Description: "Reviews a pull request", Input: &acp.CommandInput{Hint: "#12 please"}},
		{Name: "review-pr-2", Description: "Second review"},
		{Name: "status-2", Description: "Agent status"},
		{Name: "n-code__and-spaces-a-very-long-i", Description: strings.Repeat("d", 200), Input: &acp.CommandInput{Hint: strings.Repeat("é", 80)}},
		{Name: "status-3", Description: "Another status"},
		{Name: "stars", Description: "Stars"},
		{Name: "status", Description: got.List[len(got.List)-1].Description},
	}
	if a, b := mustJSON(t, got.List), mustJSON(t, want); a != b {
		t.Errorf("commands\n got %s\nwant %s", a, b)
	}
	for name, id := range map[string]string{"review-pr": "Review PR!", "review-pr-2": "review  pr", "status-2": "status", "stars": "***"} {
		if got.skillOf[name] != id {
			t.Errorf("%s names skill %q, want %q", name, got.skillOf[name], id)
		}
	}
	if _, ok := got.skillOf["status"]; ok {
		t.Error("status is shim's own, not a skill")
	}
	if none := Of(nil); len(none.List) != 1 || none.List[0].Name != "status" {
		t.Errorf("no card: %+v", none.List)
	}
}

// TestCommandsBounded: a card of 5,000 skills that share one id gives a
// list of at most 1,000 commands (SPEC §13 amended), shim's own last, the
// names unique and numbered in order.
func TestCommandsBounded(t *testing.T) {
	card := &a2a.Card{}
	for range 5000 {
		card.Skills = append(card.Skills, a2a.Skill{ID: "Same Skill", Name: "same"})
	}
	got := Of(card)
	if n := len(got.List); n != Max {
		t.Fatalf("%d commands, want %d", n, Max)
	}
	names := map[string]bool{}
	for _, c := range got.List {
		if names[c.Name] {
			t.Fatalf("name %q twice", c.Name)
		}
		names[c.Name] = true
	}
	if a, b, last := got.List[0].Name, got.List[Max-2].Name, got.List[Max-1].Name; a != "same-skill" || b != "same-skill-999" || last != "status" {
		t.Errorf("names %q … %q, %q", a, b, last)
	}
}

// TestCommandNamingLinear: naming n commands tries O(n) names whatever the
// skills are: here the worst case for a numbering that starts at 2 every
// time, k names "x-2" … "x-(k+1)" taken first and then k skills "x" (which
// tried k²/2 names).
func TestCommandNamingLinear(t *testing.T) {
	const k = 2000
	nm := newNamer(Status)
	var bases []string
	for i := range k {
		bases = append(bases, fmt.Sprintf("x-%d", i+2))
	}
	for range k {
		bases = append(bases, "x")
	}
	seen := map[string]bool{}
	for _, b := range bases {
		name := nm.name(b)
		if seen[name] {
			t.Fatalf("name %q given twice", name)
		}
		seen[name] = true
	}
	if nm.tried > 3*len(bases) {
		t.Errorf("%d names tried for %d commands, want at most %d", nm.tried, len(bases), 3*len(bases))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
