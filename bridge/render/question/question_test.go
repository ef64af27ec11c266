package question

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
)

// TestParkLines: a park's data as short key: value lines: one line each
// (line breaks as spaces), a value cut at 200 characters, the whole at
// 2,000, and a cut (or data a2a stopped reading) ends with "…".
func TestParkLines(t *testing.T) {
	long := strings.Repeat("ab", 150)
	for _, tc := range []struct {
		name string
		d    *a2a.ParkData
		want string
	}{
		{"none", nil, ""},
		{"no fields", &a2a.ParkData{}, ""},
		{"lines", &a2a.ParkData{Fields: []a2a.ParkField{{Key: "toolName", Value: "delete_file"}, {Key: "args.content", Value: "line 1\n\tline 2"}, {Value: "text alone"}}},
			"toolName: delete_file\nargs.content: line 1  line 2\ntext alone"},
		{"a long value", &a2a.ParkData{Fields: []a2a.ParkField{{Key: "k", Value: long}}}, "k: " + long[:199] + "…"},
		{"more than a2a kept", &a2a.ParkData{Fields: []a2a.ParkField{{Key: "k", Value: "v"}}, More: true}, "k: v…"},
	} {
		if got := Lines(tc.d); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	var many a2a.ParkData
	for i := 0; i < 100; i++ {
		many.Fields = append(many.Fields, a2a.ParkField{Key: "key", Value: strings.Repeat("é", 50)})
	}
	got := Lines(&many)
	if n := utf8.RuneCountInString(got); n != 2001 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "key: é") {
		t.Errorf("%d characters: %q", n, got)
	}
}
