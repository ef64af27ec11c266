package platform

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMain builds the credential helper (cmd/shim-platform) beside the
// test binary, where an agent resolved with no Options.Helper finds it.
func TestMain(m *testing.M) {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helper := filepath.Join(filepath.Dir(self), HelperName+exeSuffix())
	if out, err := exec.Command("go", "build", "-o", helper, "../../../cmd/shim-platform").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n%s", HelperName, err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.Remove(helper)
	os.Exit(code)
}
