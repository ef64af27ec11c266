package operator

import "testing"

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
