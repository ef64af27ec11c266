package textcut

import "testing"

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"hello", 10, "hello"}, {"hello", 5, "hello"}, {"hello", 4, "hell…"}, {"héllo", 2, "hé…"}, {"abc", 0, "…"}, {"", 3, ""}} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	if got := FirstChars("héllo", -1); got != "" {
		t.Errorf("FirstChars(-1) = %q", got)
	}
}
