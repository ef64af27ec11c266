package main

// The cold start: spawn → initialize response of shim, its variants and floor, next to the ACP peers from npm.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

type peer struct {
	name string
	argv []string
}

func (b coldRun) peers() []peer {
	var out []peer
	find := func(pkg, name string, node bool) {
		dir := filepath.Join(b.h.cfg.peers, "node_modules", pkg)
		bin, err := packageBin(dir)
		if err != nil {
			b.r.note("%s: not installed (%v); its cold-start column is empty", pkg, err)
			return
		}
		argv := []string{bin}
		if node {
			argv = []string{"node", bin}
		}
		out = append(out, peer{name, argv})
	}
	find("@zed-industries/codex-acp-linux-x64", "codex-acp 0.16.0 (Rust)", false)
	find("@zed-industries/claude-agent-acp", "claude-agent-acp 0.23.1 (node)", true)
	return out
}

// coldOnce spawns argv, writes initialize and waits for its response line.
func (b coldRun) coldOnce(argv []string) (time.Duration, error) {
	t0 := time.Now()
	p, err := startAgent(argv, b.h.env(), io.Discard)
	if err != nil {
		return 0, err
	}
	defer p.stop()
	ch, err := p.request("initialize", initParams())
	if err != nil {
		return 0, err
	}
	select {
	case line, ok := <-ch:
		d := time.Since(t0)
		if !ok {
			return 0, fmt.Errorf("%s exited before answering initialize", filepath.Base(argv[len(argv)-1]))
		}
		if !bytes.Contains(line, []byte(`"result"`)) {
			return 0, fmt.Errorf("initialize failed: %.200s", line)
		}
		return d, nil
	case <-time.After(30 * time.Second):
		return 0, errors.New("no initialize response in 30 s")
	}
}

func (b coldRun) coldStart() error {
	all := b.h.variantArgvs()
	agents := append(append([]peer{all[0]}, b.peers()...), all[1:]...)
	if b.h.cfg.floor != "" {
		agents = append(agents, peer{"floor: a static Go binary that only answers the line", []string{b.h.cfg.floor}})
	}
	// Warm the page cache, then interleave the agents run by run so that
	// drifts of the machine touch them alike. An agent other than shim
	// that fails is left out with a note.
	var ok []peer
	for i, a := range agents {
		var err error
		for range 3 {
			if _, err = b.coldOnce(a.argv); err != nil {
				break
			}
		}
		if err != nil {
			if i == 0 {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			b.r.note("cold start: %s left out: %v", a.name, err)
			continue
		}
		ok = append(ok, a)
	}
	agents = ok
	times := make([][]time.Duration, len(agents))
	for range b.h.cfg.runs {
		for i, a := range agents {
			d, err := b.coldOnce(a.argv)
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			times[i] = append(times[i], d)
		}
	}
	shimMed := pct(times[0], 50)
	floorMed := time.Duration(0)
	for i, a := range agents {
		if strings.HasPrefix(a.name, "floor") {
			floorMed = pct(times[i], 50)
		}
	}
	// spread is a row's median with its fastest and slowest run, and p90.
	spread := func(ts []time.Duration) string {
		return fmt.Sprintf("median %s (min %s, max %s), p90 %s", ms(pct(ts, 50)), ms(pct(ts, 0)), ms(pct(ts, 100)), ms(pct(ts, 90)))
	}
	// ofFloor is a median against the floor's.
	ofFloor := func(med time.Duration) string {
		if floorMed == 0 {
			return ""
		}
		return fmt.Sprintf("; %.1f× the floor", float64(med)/float64(floorMed))
	}
	b.r.add("cold start", fmt.Sprintf("shim: spawn → initialize response (%d runs)", b.h.cfg.runs),
		spread(times[0])+ofFloor(shimMed), "median ≤ 3 ms", verdict(shimMed <= 3*time.Millisecond))
	for i, a := range agents[1:] {
		med := pct(times[i+1], 50)
		if strings.HasPrefix(a.name, "variant") {
			b.r.add("cold start", a.name, fmt.Sprintf("%s (%+.1f ms against shim%s)", spread(times[i+1]),
				float64(med-shimMed)/float64(time.Millisecond), ofFloor(med)), "", "")
			continue
		}
		if strings.HasPrefix(a.name, "floor") {
			// The gate of issue 30: shim within 3× the floor, side by side.
			b.r.add("cold start", a.name, fmt.Sprintf("%s; shim takes %s more, %.1f× it", spread(times[i+1]),
				ms(shimMed-med), float64(shimMed)/float64(med)), "shim ≤ 3× the floor", verdict(shimMed <= 3*med))
			continue
		}
		native := strings.Contains(a.name, "(Rust)")
		target := ""
		if native {
			target = "the native peer ≥ 5× slower"
		}
		b.r.add("cold start", a.name, fmt.Sprintf("%s; shim is %.1f× faster", spread(times[i+1]),
			float64(med)/float64(shimMed)), target, verdictIf(native, 5*shimMed <= med))
	}
	return nil
}
