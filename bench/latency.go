package main

// The latency shim adds: stamped chunks at 2,000/s, server write → client read, through shim and through the raw reader.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
)

var stampKey = []byte("[t=")

func stampOf(line []byte) (time.Duration, bool) {
	i := bytes.Index(line, stampKey)
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(stampKey):]
	j := bytes.IndexByte(rest, ']')
	if j < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return time.Duration(n), err == nil
}

func (b latencyRun) latency() error {
	spec := benchagent.Spec{N: b.h.cfg.latN, Pace: 2000, Stamp: true}
	argv := throughputRun(b).rawArgv("raw-lat", "lat", spec)
	out, err := execOutput(argv[0], argv[1:]...)
	if err != nil {
		return fmt.Errorf("raw reader: %w", err)
	}
	var raw []time.Duration
	for _, f := range strings.Fields(out) {
		n, _ := strconv.ParseInt(f, 10, 64)
		raw = append(raw, time.Duration(n))
	}
	shim, err := b.shimLatency(b.h.shimArgv(), spec)
	if err != nil {
		return err
	}
	if len(raw) == 0 || len(shim) == 0 {
		return fmt.Errorf("latency: raw saw %d chunks, shim %d", len(raw), len(shim))
	}
	r50, r99 := pct(raw, 50), pct(raw, 99)
	s50, s99 := pct(shim, 50), pct(shim, 99)
	b.r.add("latency", fmt.Sprintf("raw reader, server write → read (%d chunks at 2,000/s)", len(raw)),
		fmt.Sprintf("p50 %s, p99 %s", us(r50), us(r99)), "", "")
	b.r.add("latency", "through shim, server write → client read", fmt.Sprintf("p50 %s, p99 %s", us(s50), us(s99)), "", "")
	b.r.add("latency", "added by shim (shim − raw, per percentile): the time to first token shim adds",
		fmt.Sprintf("p50 %s, p99 %s", us(s50-r50), us(s99-r99)),
		"p50 ≤ 0.2 ms, p99 ≤ 0.5 ms", verdict(s50-r50 <= 200*time.Microsecond && s99-r99 <= 500*time.Microsecond))
	return nil
}

func (b latencyRun) shimLatency(argv []string, spec benchagent.Spec) ([]time.Duration, error) {
	p, ids, err := b.h.session(argv, 1)
	if err != nil {
		return nil, err
	}
	defer p.close(5 * time.Second)
	var lat []time.Duration
	p.onNote = func(line []byte, at time.Duration) {
		if bytes.Contains(line, agentChunk) {
			// A merged line carries several stamped chunks: each counts.
			for rest := line; ; {
				ts, ok := stampOf(rest)
				if !ok {
					break
				}
				lat = append(lat, at-ts)
				rest = rest[bytes.Index(rest, stampKey)+len(stampKey):]
			}
		}
	}
	if _, err := p.call("session/prompt", promptParams(ids[0], spec), 5*time.Minute); err != nil {
		return nil, err
	}
	return lat, nil
}
