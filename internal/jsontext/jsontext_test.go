package jsontext

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

var unquoteSeeds = []string{`plain`, `a\"b\\c\/d\b\f\n\r\t`, `\u00e9\u65e5 \ud83d\ude00`, `\ud83d x \ude00`, `\ud83d\u0041`,
	`\ud83d`, `\ud83d\ud83d\ude00`, "bad \xff\xfe é", "", `\u0000`, `a\'b`, `bad \x`, `\u12`, `\u12G4`, `tail\`, "ctl \x01",
	`quote " inside`, "del \x7f", "\u2028\u2029", `\uD83D\uDE00`}

// FuzzUnquote holds Unquote side by side with encoding/json on the inside
// of any string: the same text, and false exactly where encoding/json
// refuses the string.
func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want string
		wantErr := json.Unmarshal([]byte(`"`+string(in)+`"`), &want)
		got, ok := Unquote(in)
		if ok != (wantErr == nil) {
			t.Fatalf("%q: Unquote ok %v, encoding/json err %v", in, ok, wantErr)
		}
		if ok && got != want {
			t.Fatalf("%q: Unquote %q, encoding/json %q", in, got, want)
		}
	})
}

// TestUnquoteOwnsItsText: the string Unquote returns is its own: the
// input written over afterwards leaves it as it was.
func TestUnquoteOwnsItsText(t *testing.T) {
	in := []byte(`plain text`)
	got, ok := Unquote(in)
	copy(in, "XXXXX")
	if !ok || got != "plain text" {
		t.Fatalf("got %q %v", got, ok)
	}
}

// TestLenIsAppendStringLen: Len is the length AppendString writes, on a
// table and on random strings (any bytes).
func TestLenIsAppendStringLen(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []string{"", "plain", "q\"b\\s\n\r\t\b\f\x01\x1f\x7f", "bad \xff\xfe utf8 \u2028\u2029 é 日本"}
	pool := []string{"a", " ", "\n", "\"", "\\", "\x01", "\x7f", "é", "中", "🎉", "\u2028", "<", "\xff", "\xe2\x82"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pool[rng.IntN(len(pool))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := Len(s), len(AppendString(nil, s)); got != want {
			t.Fatalf("%q: Len %d, AppendString writes %d bytes", s, got, want)
		}
	}
}
