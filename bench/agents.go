package main

// How every section starts an agent: its environment, shim's argv (or the stand-in's), and an initialized agent with its sessions.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
)

// harness starts the agents every section measures: shim (or its
// stand-in, its variants) against the bench's A2A server, in a scratch
// home, with its state and config there.
type harness struct {
	cfg  config
	srv  *benchagent.Server
	home string
	log  io.Writer
}

// env is the environment every agent runs in: a scratch HOME, shim's
// state and config there, no keyring to find.
func (h *harness) env() []string {
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
	return append(env, "HOME="+h.home,
		"SHIM_STATE_DIR="+filepath.Join(filepath.Dir(h.home), "state"),
		"SHIM_CONFIG_DIR="+filepath.Join(filepath.Dir(h.home), "config"))
}

const benchToken = "bench-token-0123456789abcdef"

// shimArgv is how an editor starts shim for the bench server.
func (h *harness) shimArgv() []string {
	if h.cfg.standin != "" {
		exe, _ := os.Executable()
		return append([]string{exe, "inproc", "--url", h.srv.Base(), "--token", benchToken,
			"--state-dir", filepath.Join(filepath.Dir(h.home), "state")}, strings.Fields(h.cfg.standin)...)
	}
	return []string{h.cfg.shim, "--url", h.srv.Base(), "--token", benchToken, "--log-level", "error"}
}

// variantArgvs is shim, then each -variant binary run as shim is.
func (h *harness) variantArgvs() []peer {
	agents := []peer{{"shim", h.shimArgv()}}
	for _, v := range h.cfg.variants {
		label, path, _ := strings.Cut(v, "=")
		argv := h.shimArgv()
		argv[0] = path
		agents = append(agents, peer{"variant: " + label, argv})
	}
	return agents
}

// inprocArgv runs the profiling stand-in.
func (h *harness) inprocArgv(cpu, mem string) []string {
	exe, _ := os.Executable()
	return []string{exe, "inproc", "--url", h.srv.Base(), "--token", benchToken,
		"--state-dir", filepath.Join(filepath.Dir(h.home), "state"), "--cpuprofile", cpu, "--memprofile", mem}
}

// session starts an agent, initializes it and opens n sessions.
func (h *harness) session(argv []string, n int) (*acpProc, []string, error) {
	p, err := startAgent(argv, h.env(), os.Stderr)
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.call("initialize", initParams(), 20*time.Second); err != nil {
		p.stop()
		return nil, nil, err
	}
	var ids []string
	for range n {
		res, err := p.call("session/new", map[string]any{"cwd": h.home, "mcpServers": []any{}}, 20*time.Second)
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

func promptParams(id string, spec benchagent.Spec) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []map[string]any{{"type": "text", "text": spec.Prompt()}}}
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

func (h *harness) shimVersion() string {
	out, err := execOutput(h.cfg.shim, "--version")
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
}
