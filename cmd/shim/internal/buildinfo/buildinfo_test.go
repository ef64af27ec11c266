package buildinfo

import "testing"

func TestBuildCommit(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"v0.0.0-20261129120000-abcdef012345", "abcdef012345"},
		{"v1.2.4-0.20261129120000-0123456789ab", "0123456789ab"},
		{"v1.2.3", "unknown"},
		{"dev", "unknown"},
	} {
		// Test binaries carry no VCS revision, so the version decides.
		if got := commit(tt.version); got != tt.want {
			t.Errorf("commit(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}
