package main

// How every section starts an agent: its environment, shim's argv (or the stand-in's), and an initialized agent with its sessions.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// env is the environment every agent runs in: a scratch HOME, shim's
// state and config there, no keyring to find.
func (b *bench) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
			"DBUS_SESSION_BUS_ADDRESS", "SHIM_URL", "SHIM_TOKEN", "SHIM_TOKEN_FILE", "SHIM_LOG_LEVEL":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+b.home,
		"SHIM_STATE_DIR="+filepath.Join(filepath.Dir(b.home), "state"),
		"SHIM_CONFIG_DIR="+filepath.Join(filepath.Dir(b.home), "config"))
}

const benchToken = "bench-token-0123456789abcdef"

// shimArgv is how an editor starts shim for the bench server.
func (b *bench) shimArgv() []string {
	if b.cfg.standin != "" {
		exe, _ := os.Executable()
		return append([]string{exe, "inproc", "--url", b.srv.base, "--token", benchToken,
			"--state-dir", filepath.Join(filepath.Dir(b.home), "state")}, strings.Fields(b.cfg.standin)...)
	}
	return []string{b.cfg.shim, "--url", b.srv.base, "--token", benchToken, "--log-level", "error"}
}

// variantArgvs is shim, then each -variant binary run as shim is.
func (b *bench) variantArgvs() []peer {
	agents := []peer{{"shim", b.shimArgv()}}
	for _, v := range b.cfg.variants {
		label, path, _ := strings.Cut(v, "=")
		argv := b.shimArgv()
		argv[0] = path
		agents = append(agents, peer{"variant: " + label, argv})
	}
	return agents
}

// inprocArgv runs the profiling stand-in.
func (b *bench) inprocArgv(cpu, mem string) []string {
	exe, _ := os.Executable()
	return []string{exe, "inproc", "--url", b.srv.base, "--token", benchToken,
		"--state-dir", filepath.Join(filepath.Dir(b.home), "state"), "--cpuprofile", cpu, "--memprofile", mem}
}

// session starts an agent, initializes it and opens n sessions.
func (b *bench) session(argv []string, n int) (*acpProc, []string, error) {
	p, err := startAgent(argv, b.env(), os.Stderr)
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.call("initialize", initParams(), 20*time.Second); err != nil {
		p.stop()
		return nil, nil, err
	}
	var ids []string
	for range n {
		res, err := p.call("session/new", map[string]any{"cwd": b.home, "mcpServers": []any{}}, 20*time.Second)
		if err != nil {
			p.stop()
			return nil, nil, err
		}
		id := jsonField(res, "sessionId")
		if id == "" {
			p.stop()
			return nil, nil, fmt.Errorf("session/new answered %s", res)
		}
		ids = append(ids, id)
	}
	return p, ids, nil
}

func promptParams(id string, spec streamSpec) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []map[string]any{{"type": "text", "text": spec.prompt()}}}
}

var agentChunk = []byte(`"agent_message_chunk"`)

func jsonField(raw []byte, key string) string {
	i := bytes.Index(raw, []byte(`"`+key+`":"`))
	if i < 0 {
		return ""
	}
	rest := raw[i+len(key)+4:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
