package jsontext

import "strings"

// Members calls fn with the key (quotes included) and the span
// b[start:end] of the value of each top-level member of the JSON object b
// begins with, in order, until fn returns false. It reads no further than
// b holds members whole: a member whose key or value runs to the end of b
// (cut there, or perhaps cut) ends the walk, as does anything that is not
// a member. It decodes nothing, so a line too large to read can be
// searched from its head, and a valid one split without a decoder.
func Members(b []byte, fn func(key []byte, start, end int) bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return
		}
		k := i
		if i = skipString(b, i); i >= len(b) {
			return
		}
		key := b[k:i]
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return
		}
		v := skipSpace(b, i+1)
		if i = skipValue(b, v); i >= len(b) || !fn(key, v, i) {
			return
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}
