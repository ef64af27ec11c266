package render

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsStayLow: render imports, of this module, the vocabularies
// it maps between (a2a, acp), the past turn and tool views below it, its
// own packages below it (question, failure, notice, session, toolpath,
// shown), the roots and the steer texts, and internal helpers: nothing of the A2A
// client or what lies below it (its transports, the wire, auth, the
// operator API), nothing of bridge above it.
func TestImportsStayLow(t *testing.T) {
	const mod = "github.com/shimdev/shim/"
	allowed := map[string]bool{"a2a": true, "acp": true, "bridge/render": true, "bridge/past": true,
		"bridge/toolview": true, "roots": true, "steer": true,
		"bridge/render/question": true, "bridge/render/failure": true, "bridge/render/notice": true,
		"bridge/render/session": true, "bridge/render/toolpath": true, "bridge/render/shown": true}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, d := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(d, mod)
		if !ok {
			continue
		}
		n++
		if !allowed[rel] && !strings.HasPrefix(rel, "internal/") {
			t.Errorf("render depends on %s", rel)
		}
	}
	if n < len(allowed) {
		t.Fatalf("go list named %d packages of the module:\n%s", n, out)
	}
}
