package bridge

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the shim binary shimBinary built (a run left 17–26 MB
// in the temporary directory each time).
func TestMain(m *testing.M) {
	code := m.Run()
	if shimPath != "" {
		os.RemoveAll(filepath.Dir(shimPath))
	}
	os.Exit(code)
}
