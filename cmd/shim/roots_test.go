package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/examples/agent"
)

// TestRelativeRootResolvesInWorkingDir: `--root demo=.` (as an editor
// recipe writes it) is the directory shim was started in, so the process
// starts and a tool's relative path becomes an absolute location there.
func TestRelativeRootResolvesInWorkingDir(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	srv.Start()
	srv.Config.Handler = agent.NewHandler(srv.URL, agent.Options{Name: "Go Agent", Delay: 1})
	defer srv.Close()
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	p := startCmdIn(t, project, append(os.Environ(), "SHIM_URL=", "SHIM_TOKEN=", "SHIM_TOKEN_FILE="),
		"--state-dir", state, "--config-dir", state, "--keyring", "off", "--url", srv.URL, "--root", "demo=.")
	if m := p.call(t, 1, "initialize", initParams(false)); m["result"] == nil {
		t.Fatalf("initialize: %v\nstderr: %s", m, p.logs())
	}
	m := p.call(t, 2, "session/new", map[string]any{"cwd": project, "mcpServers": []any{}})
	sid, _ := m["result"].(map[string]any)["sessionId"].(string)
	p.call(t, 3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "use the tool"}}})
	want := filepath.Join(project, "README.md")
	var got []string
	for _, n := range p.seen {
		b, _ := json.Marshal(n)
		if strings.Contains(string(b), `"locations"`) {
			var u struct {
				Params struct {
					Update struct {
						Locations []struct{ Path string } `json:"locations"`
					} `json:"update"`
				} `json:"params"`
			}
			_ = json.Unmarshal(b, &u)
			for _, l := range u.Params.Update.Locations {
				got = append(got, l.Path)
			}
		}
	}
	if len(got) == 0 || got[0] != want {
		t.Errorf("locations %v, want %s", got, want)
	}
}

func TestRootOverridesRelative(t *testing.T) {
	rs, err := rootOverrides([]string{"a=.", "b=sub/dir", "c=/abs", "d=~/x"}, "/work/proj")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a=/work/proj", "b=/work/proj/sub/dir", "c=/abs", "d=~/x"}
	for i, r := range rs {
		if got := r.Name + "=" + r.Path; got != want[i] {
			t.Errorf("root %d = %s, want %s", i, got, want[i])
		}
	}
	if _, err := rootOverrides([]string{"bad"}, "/work/proj"); err == nil || !strings.Contains(err.Error(), `--root "bad"`) {
		t.Errorf("bad spec: %v", err)
	}
}
