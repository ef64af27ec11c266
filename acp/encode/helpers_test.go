package encode

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// encodingJSON is how encoding/json writes v with HTML escaping off.
func encodingJSON(t testing.TB, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var jsonTextCases = []string{"", "plain", "a\"b\\c/d", "\b\f\n\r\t\x00\x01\x1f\x7f", "<b>&amp;</b>", "é ü 中文 🎉",
	"\u2028\u2029", "bad \xff utf8 \xe2\x82", "\xed\xa0\x80 surrogate", "\"}}}}\n{\"jsonrpc\""}

// randomText is n runes of text with escapes and multi-byte runes; with
// raw set, also arbitrary bytes (invalid UTF-8).
func randomText(rng *rand.Rand, n int, raw bool) string {
	pool := []string{"a", "b", " ", "\n", "\t", "\"", "\\", "\x01", "é", "中", "🎉", "\u2028", "<", "&"}
	var b strings.Builder
	for range n {
		if raw && rng.IntN(8) == 0 {
			b.WriteByte(byte(rng.IntN(256)))
			continue
		}
		b.WriteString(pool[rng.IntN(len(pool))])
	}
	return b.String()
}

// fieldNames is the names of the fields of struct v, in order.
func fieldNames(v any) string {
	typ := reflect.TypeOf(v)
	var names []string
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name)
	}
	return strings.Join(names, " ")
}
