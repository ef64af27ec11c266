package operator

import (
	"testing"
	"time"
)

// TestFracDigits: the server's precision is read from the timestamp as
// given, trailing zeros included.
func TestFracDigits(t *testing.T) {
	for s, want := range map[string]int{
		"2026-09-24T10:22:10.986764":       6,
		"2026-09-24T09:30:00.120":          3,
		"2026-09-24 09:30:00.100":          3,
		"2026-09-24T09:00:00.500+02:00":    3,
		"2026-09-24T09:00:00Z":             0,
		"2026-09-24T09:00:00":              0,
		"2026-09-25T02:57:17.607684+00:00": 6,
		"":                                 0,
	} {
		if got := FracDigits(s); got != want {
			t.Errorf("FracDigits(%q) = %d, want %d", s, got, want)
		}
		if s != "" && ParseTime(s).IsZero() {
			t.Errorf("ParseTime(%q) failed", s)
		}
	}
}

// parseTimeInOrder is ParseTime trying its layouts in one fixed order.
func parseTimeInOrder(s string) time.Time {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// FuzzParseTime: which layout ParseTime tries first changes nothing (no
// text parses in two).
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-09-24T10:22:10.986764", "2026-09-24 09:30:00.100", "2026-09-24T09:00:00.500+02:00",
		"2026-09-24T09:00:00Z", "2026-09-24T09:00:00", "2026-09-25T02:57:17.607684-00:00", "2026-09-24t09:00:00z", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ParseTime(s), parseTimeInOrder(s); !got.Equal(want) || got.Location().String() != want.Location().String() {
			t.Errorf("ParseTime(%q) = %v, in order %v", s, got, want)
		}
	})
}
