// Package textcut cuts text by characters (runes), never copying a long
// text whole: a title, a command's description, an error's message, a
// park's value.
package textcut

// FirstChars is s's first n characters ("" for n <= 0).
func FirstChars(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// Cut is s cut to n characters, with "…" added when it was cut.
func Cut(s string, n int) string {
	if c := FirstChars(s, n); len(c) < len(s) {
		return c + "…"
	}
	return s
}
