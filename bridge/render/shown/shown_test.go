package shown

import (
	"strings"
	"testing"
)

// TestShownText: what an artifact's appends and replaces show, whatever
// the pieces the text came in (the running hash of what was shown is
// compared with a replace's text hashed whole, and with a catch-up's
// pieces).
func TestShownText(t *testing.T) {
	type step struct {
		replace bool
		text    string
		want    string
	}
	a := func(s, want string) step { return step{false, s, want} }
	r := func(s, want string) step { return step{true, s, want} }
	long := strings.Repeat("0123456789abcdef", 20) // past a hash's 128-byte buffer
	cases := []struct {
		name  string
		steps []step
	}{
		{"appends", []step{a("Hel", "Hel"), a("lo", "lo"), a(" world", " world")}},
		{"a replace that extends what was shown adds the rest", []step{a("Hel", "Hel"), a("lo ", "lo "), r("Hello world", "world")}},
		{"a replace equal to what was shown adds nothing", []step{a("a", "a"), a("bc", "bc"), r("abc", "")}},
		{"a replace that differs diverges until one matches", []step{a("abc", "abc"), r("abX and more", ""), a(" more", ""), r("abc and more", " and more")}},
		{"a shorter replace catches up by appends", []step{a("ab", "ab"), a("cdef", "cdef"), r("abc", ""), a("d", ""), a("efgh", "gh"), a("i", "i")}},
		{"a catch-up that differs diverges", []step{a("abcdef", "abcdef"), r("ab", ""), a("cdXf", ""), a("g", "")}},
		{"long text in many pieces, then its replace", []step{a(long[:5], long[:5]), a(long[5:200], long[5:200]), a(long[200:], long[200:]), r(long+"!", "!")}},
		{"long text caught up in other pieces", []step{a(long, long), r(long[:7], ""), a(long[7:150], ""), a(long[150:]+"tail", "tail")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := New()
			for i, s := range c.steps {
				var got string
				if s.replace {
					got = st.Replace(s.text)
				} else {
					got = st.Append(s.text)
				}
				if got != s.want {
					t.Fatalf("step %d (replace %v, %q): showed %q, want %q", i, s.replace, s.text, got, s.want)
				}
			}
		})
	}
}
