package termsafe

import (
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, é and 日本 and \\x1b as typed", "plain text, é and 日本 and \\x1b as typed"},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},       // clear the screen
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`}, // retitle the window
		{"\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\click\x1b]8;;\x1b\`}, // OSC 8 link
		{"\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\x07`},                                                     // write the clipboard
		{"\u009b2J\u009d0;t\u009c", `\u009b2J\u009d0;t\u009c`},                                                           // C1 CSI, OSC, ST
		{"a\x00b\x7fc\x08", `a\x00b\x7fc\x08`},
		{"line\r\nnext\ttab", `line\r\nnext\ttab`},
		{"bad \xff\x9b utf-8", `bad \xff\x9b utf-8`},
		{"\u00a0 is kept", "\u00a0 is kept"},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzString: whatever goes in, what comes out is valid UTF-8 with no C0,
// C1 or DEL character, and a string with none of them comes out as it is.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b]52;c;eA==\x07", "\u009b", "\xc2", "\xc2\x9b", "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, out)
		}
		clean := true
		for _, r := range out {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("String(%q) = %q holds %U", s, out, r)
			}
		}
		for _, r := range s {
			clean = clean && r >= 0x20 && !(r >= 0x7f && r < 0xa0) && r != utf8.RuneError
		}
		if clean && utf8.ValidString(s) && out != s {
			t.Fatalf("String(%q) = %q changed a clean string", s, out)
		}
	})
}
