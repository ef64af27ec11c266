package toolview

import "testing"

func TestExitCode(t *testing.T) {
	tests := []struct {
		result string
		code   int
		ok     bool
	}{
		{"exit 0\nok", 0, true},
		{"FAIL\nexit code 2", 2, true},
		{"[exit status 127] sh: nope: not found", 127, true},
		{"Exit code: 1\nstderr: boom", 1, true},
		{"exit_code=3", 0, false},
		{"exited 4", 4, true},
		{"the exit was clean", 0, false},
		{"no code here", 0, false},
		{"exit -1", -1, true},
	}
	for _, tt := range tests {
		code, ok := ExitCode(tt.result)
		if code != tt.code || ok != tt.ok {
			t.Errorf("ExitCode(%q) = %d %v, want %d %v", tt.result, code, ok, tt.code, tt.ok)
		}
	}
}
