package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// folders is n absolute folders of size bytes each.
func folders(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "/" + strings.Repeat(string(rune('a'+i%26)), size-1)
	}
	return out
}

// TestSessionFoldersBounded: additionalDirectories on session/new, load
// and resume take at most 32 folders of at most 1,024 bytes, no NUL
// (SPEC §15): past that, -32602 naming what was refused, no request to
// the agent, and threads.json left byte for byte as it was (no temporary
// file beside it). 32 folders of 1,024 bytes are taken and indexed (with
// the session's first prompt, SPEC §18).
func TestSessionFoldersBounded(t *testing.T) {
	env := newShimEnv(t)
	f := newFakeA2A(t, "", "")
	p := env.start(t, "--url", f.url())
	p.call(t, 1, "initialize", initParams(false))
	most := folders(32, 1024)
	m := p.call(t, 2, "session/new", map[string]any{"cwd": "/tmp", "mcpServers": []any{}, "additionalDirectories": most})
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("32 folders of 1,024 bytes: %v", m)
	}
	// The session enters the index with its first prompt (SPEC §18).
	if m := p.call(t, 100, "session/prompt", promptParams(sid, "first")); rpcErrorOf(m) != nil {
		t.Fatalf("the first prompt: %v", m)
	}
	index := filepath.Join(env.state, "threads.json")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Servers map[string]map[string]struct {
			AdditionalDirectories []string `json:"additionalDirectories"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(before, &doc); err != nil || !slices.Equal(doc.Servers[f.url()][sid].AdditionalDirectories, most) {
		t.Fatalf("the index does not keep the 32 folders (%v): %.300s", err, before)
	}
	requests := len(f.requests())

	id := 3
	for _, tc := range []struct {
		name string
		dirs []string
		says string
	}{
		{"33 folders", folders(33, 10), "at most 32 additionalDirectories, got 33"},
		{"10,000 folders", folders(10_000, 10), "at most 32 additionalDirectories, got 10000"},
		{"a folder of 1,025 bytes", append(folders(1, 10), folders(1, 1025)...), "additionalDirectories[1] is 1025 bytes long"},
		{"a folder of 8 MiB", folders(1, 8<<20), "additionalDirectories[0] is 8388608 bytes long"},
		{"a NUL", []string{"/work/a\x00b"}, "additionalDirectories[0] holds a NUL"},
	} {
		for _, method := range []string{"session/new", "session/load", "session/resume"} {
			params := map[string]any{"cwd": "/tmp", "mcpServers": []any{}, "additionalDirectories": tc.dirs}
			if method != "session/new" {
				params["sessionId"] = sid
			}
			m := p.call(t, id, method, params)
			id++
			e := rpcErrorOf(m)
			if e == nil || errCode(m) != -32602 || !strings.Contains(e["message"].(string), tc.says) {
				t.Errorf("%s with %s: %v, want -32602 saying %q", method, tc.name, e, tc.says)
			}
			if len(fmtMessage(e)) > 300 {
				t.Errorf("%s with %s: a message of %d bytes", method, tc.name, len(fmtMessage(e)))
			}
		}
	}
	after, err := os.ReadFile(index)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("threads.json changed (%v): %d bytes, was %d", err, len(after), len(before))
	}
	// What the first session/new remembered of the agent (SPEC §19) may
	// be there too; nothing else.
	for _, name := range stateNames(t, env.state) {
		if !slices.Contains([]string{"threads.json", "threads.json.lock", "remembered.json", "remembered.json.lock"}, name) {
			t.Errorf("the state directory holds %s", name)
		}
	}
	if got := f.requests()[requests:]; len(got) != 0 {
		t.Errorf("refused requests reached the agent: %v", got)
	}
	// Still serving: the session takes a prompt.
	if m := p.call(t, id, "session/prompt", promptParams(sid, "hi")); rpcErrorOf(m) != nil {
		t.Errorf("prompt after the refusals: %v", m)
	}
}

func fmtMessage(e map[string]any) string {
	s, _ := e["message"].(string)
	return s
}

// stateNames lists a directory's names, sorted.
func stateNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}
