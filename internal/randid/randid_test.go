package randid

import (
	"encoding/hex"
	"regexp"
	"testing"
)

func TestHex(t *testing.T) {
	for _, n := range []int{0, 3, 6, 16} {
		id := Hex(n)
		if len(id) != 2*n {
			t.Errorf("Hex(%d) = %q: %d characters, want %d", n, id, len(id), 2*n)
		}
		if _, err := hex.DecodeString(id); err != nil {
			t.Errorf("Hex(%d) = %q is not hex: %v", n, id, err)
		}
	}
	if a, b := Hex(8), Hex(8); a == b {
		t.Errorf("two calls gave the same id %q", a)
	}
}

func TestUUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := UUID(), UUID()
	for _, id := range []string{a, b} {
		if !v4.MatchString(id) {
			t.Errorf("UUID() = %q, not a version 4 UUID", id)
		}
	}
	if a == b {
		t.Errorf("two calls gave the same UUID %q", a)
	}
}
