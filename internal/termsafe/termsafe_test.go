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

func TestText(t *testing.T) {
	for _, c := range []struct{ in, text, line string }{
		{"plain, é, 日本 and \\x1b as typed", "plain, é, 日本 and \\x1b as typed", "plain, é, 日本 and \\x1b as typed"},
		{"\x1b]0;pwned\x07title", "]0;pwnedtitle", "]0;pwnedtitle"},
		{"\x1b[2Jclear", "[2Jclear", "[2Jclear"},
		{"c1 \u009b2J\u009d0;t\u009c end", "c1 2J0;t end", "c1 2J0;t end"},
		{"a\x00b\x7fc\x08d\re", "abcde", "abcde"},
		{"two\nlines\tand tab\r\n", "two\nlines\tand tab\n", "two lines and tab "},
		{"evil\u202etxt.exe", "eviltxt.exe", "eviltxt.exe"},
		{"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069x", "x", "x"},
		{"\u200f and \u2065 and \u206a are kept", "\u200f and \u2065 and \u206a are kept", "\u200f and \u2065 and \u206a are kept"},
		{"\u00a0 kept, bad \xff", "\u00a0 kept, bad \ufffd", "\u00a0 kept, bad \ufffd"},
		{"\xc2\x00\x92 \xe2\x80\x07\xae", "\ufffd\ufffd \ufffd\ufffd\ufffd", "\ufffd\ufffd \ufffd\ufffd\ufffd"}, // stray bytes stay apart
		{"", "", ""},
	} {
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

// FuzzText: what Text gives holds no control character but newline and
// tab and no bidirectional override, what Line gives not even those, both
// are UTF-8, and a UTF-8 string with none of them comes out as it is.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b]52;c;eA==\x07", "\u009b", "\xc2", "a\u202eb", "tab\there\nnl"} {
		f.Add(s)
	}
	bad := func(r rune, line bool) bool {
		if r == '\n' || r == '\t' {
			return line
		}
		return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, line := range []bool{false, true} {
			out := clean(s, line)
			for _, r := range out {
				if bad(r, line) {
					t.Fatalf("clean(%q, %v) = %q holds %U", s, line, out, r)
				}
			}
			if !utf8.ValidString(out) {
				t.Fatalf("clean(%q, %v) = %q is not UTF-8", s, line, out)
			}
			same := utf8.ValidString(s)
			for _, r := range s {
				same = same && !bad(r, line)
			}
			if same && out != s {
				t.Fatalf("clean(%q, %v) = %q changed a clean string", s, line, out)
			}
		}
	})
}
