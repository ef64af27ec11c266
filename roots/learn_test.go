package roots

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestLearn(t *testing.T) {
	home := abs("/home/u")
	tests := []struct {
		name  string
		input string
		want  []Root // the learned roots, in order
	}{
		{
			name:  "canonical",
			input: "- a [rw] " + abs("/x/a") + "\n- b [ro] " + abs("/x/b") + "\n",
			want:  []Root{{"a", abs("/x/a")}, {"b", abs("/x/b")}},
		},
		{
			name:  "extra spaces and tabs",
			input: "   -   a    [read-only]\t  " + abs("/x/a") + "   \n\t- b\t[rw]\t" + abs("/x/b/") + "\n",
			want:  []Root{{"a", abs("/x/a")}, {"b", abs("/x/b")}},
		},
		{
			name:  "missing mode brackets",
			input: "- a " + abs("/x/a") + "\n- b [] " + abs("/x/b") + "\n- c[rw] " + abs("/x/c"),
			want:  []Root{{"a", abs("/x/a")}, {"b", abs("/x/b")}, {"c", abs("/x/c")}},
		},
		{
			name:  "blank lines, header, CRLF",
			input: "Projects:\r\n\r\n\n- a [rw] " + abs("/x/a") + "\r\n   \n- b [rw] " + abs("/x/b") + "\r\n(2 projects)\n",
			want:  []Root{{"a", abs("/x/a")}, {"b", abs("/x/b")}},
		},
		{
			name:  "non-absolute paths dropped",
			input: "- a [rw] rel/a\n- b [rw] ./b\n- c [rw] ~bob/c\n- d [rw] " + abs("/x/d") + "\n",
			want:  []Root{{"d", abs("/x/d")}},
		},
		{
			name:  "tilde expanded; the home directory itself refused",
			input: "- a [rw] ~/dev/a\n- h [rw] ~\n",
			want:  []Root{{"a", filepath.Join(home, "dev", "a")}},
		},
		{
			name:  "markdown decoration, colon, path with spaces",
			input: "* `a` [rw] `" + abs("/x/a") + "`\n- **b**: " + abs("/x/my b") + "\n• c [rw] " + abs("/x/c") + "\n",
			want:  []Root{{"a", abs("/x/a")}, {"b", abs("/x/my b")}, {"c", abs("/x/c")}},
		},
		{
			name:  "malformed lines dropped",
			input: "- a\n-\n- [rw] " + abs("/x") + "\n- b [rw " + abs("/x/b") + "\nc [rw] " + abs("/x/c") + "\n- d [rw]\n",
			want:  nil,
		},
		{
			name:  "repeated name: first wins",
			input: "- a [rw] " + abs("/x/a1") + "\n- a [rw] " + abs("/x/a2") + "\n",
			want:  []Root{{"a", abs("/x/a1")}},
		},
		{name: "empty", input: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(nil, nil, home, nil)
			m.Learn(tt.input)
			if got := m.Roots(); !slices.Equal(got, tt.want) {
				t.Errorf("Learn(%q) roots = %v, want %v", tt.input, got, tt.want)
			}
			if m.Known() != (len(tt.want) > 0) {
				t.Errorf("Known() = %v", m.Known())
			}
		})
	}
}

// TestLearnNeverOverrides: learned roots never replace overrides, loaded
// roots, or earlier learned ones; a later result adds only new names.
func TestLearnNeverOverrides(t *testing.T) {
	ld := &fakeLoader{roots: []Root{{"l", abs("/loaded/l")}}}
	m := New([]Root{{"o", abs("/override/o")}}, ld.load, "", nil)
	if err := m.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	m.Learn("- o [rw] " + abs("/learned/o") + "\n- l [rw] " + abs("/learned/l") + "\n- n [rw] " + abs("/learned/n") + "\n")
	m.Learn("- n [rw] " + abs("/learned/n2") + "\n- m [rw] " + abs("/learned/m") + "\n")
	want := map[string]string{
		"o": abs("/override/o"),
		"l": abs("/loaded/l"),
		"n": abs("/learned/n"),
		"m": abs("/learned/m"),
	}
	for name, path := range want {
		if got, _ := m.Lookup(name); got != path {
			t.Errorf("Lookup(%q) = %q, want %q", name, got, path)
		}
	}
}
