package main

// Streaming throughput and CPU per chunk: shim's session/update lines next to the raw SSE reader on the same stream.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
	"github.com/shimdev/shim/bench/internal/procfs"
)

func (b throughputRun) throughput() error {
	const reps = 5
	for _, flush := range []bool{true, false} {
		spec := benchagent.Spec{N: b.h.cfg.chunks, Flush: flush}
		how := "server flushes every frame (as A2A servers do)"
		if !flush {
			how = "server writes 64 KiB at a time (no flush per frame)"
		}
		target := 0.6
		if !flush {
			target = 0.5
		}
		// Alternate the readers (raw, shim, then each variant), reps times
		// each; medians.
		agents := b.h.variantArgvs()
		var raws []float64
		shims := make([][]float64, len(agents))
		cpus := make([][]float64, len(agents))
		lines := make([]int, len(agents))
		wakes := make([]procWake, len(agents))
		peers := make([][]float64, len(agents))
		for range reps {
			raw, err := b.rawRate(spec)
			if err != nil {
				return err
			}
			raws = append(raws, raw)
			for i, a := range agents {
				r, err := b.shimRate(a.argv, spec)
				if err != nil {
					return fmt.Errorf("%s: %w", a.name, err)
				}
				if r.chunks != spec.N {
					b.r.note("throughput: %s delivered %d of %d chunks", a.name, r.chunks, spec.N)
				}
				shims[i], cpus[i] = append(shims[i], r.rate), append(cpus[i], r.cpuPerChunk)
				peers[i] = append(peers[i], r.peerPerChunk)
				lines[i], wakes[i] = r.lines, r.wakes
			}
		}
		raw := median(raws)
		b.r.add("throughput", fmt.Sprintf("raw SSE reader, %d appends; %s", spec.N, how),
			fmt.Sprintf("%.0f chunks/s (median of %d)", raw, reps), "", "")
		for i, a := range agents {
			r, cpu, peer := median(shims[i]), median(cpus[i]), median(peers[i])
			what, cpuWhat := "shim → ACP session/update lines, same stream", "shim CPU (user + system) per chunk, same runs"
			cpuMax := 1.0 // issue 25's target for the stream that measures shim (batching)
			if flush {
				cpuMax = 4
			}
			rateTarget, cpuTarget, rateOK, cpuOK := fmt.Sprintf("≥ %.2g× raw", target), fmt.Sprintf("≤ %g µs", cpuMax), verdict(r/raw >= target), verdict(cpu > 0 && cpu <= cpuMax)
			if i > 0 {
				what, cpuWhat = a.name+", same stream", a.name+", CPU per chunk"
				rateTarget, cpuTarget, rateOK, cpuOK = "", "", "", ""
			}
			b.r.add("throughput", what,
				fmt.Sprintf("%.0f chunks/s (median of %d) = %.3f× raw; %d lines, %d read calls, %d context switches for %d chunks (last run)",
					r, reps, r/raw, lines[i], wakes[i].reads, wakes[i].switches, spec.N),
				rateTarget, rateOK)
			b.r.add("throughput", cpuWhat, fmt.Sprintf("%.2f µs (median of %d); the bench's server and reader %.2f µs", cpu, reps, peer), cpuTarget, cpuOK)
		}
	}
	return nil
}

// chunksIn counts the bench chunks a session/update line carries: a
// merged update carries several. Short chunks are "chunk N "; sized ones
// end in a newline (escaped in the JSON).
func chunksIn(line []byte, sized bool) int {
	if sized {
		return bytes.Count(line, []byte(`\n`))
	}
	return bytes.Count(line, []byte("chunk "))
}

// procCPU is a process's user + system CPU time so far.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The fields after the command (which may hold spaces) in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("bad /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("bad /proc stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const clkTck = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / clkTck, nil
}

// procWake is what a process did that makes it wait or wake: its read
// calls (shim's are on the stream's socket, and a few on its stdin) and
// the voluntary context switches of all its threads.
type procWake struct{ reads, switches int64 }

func procWakes(pid int) procWake {
	var w procWake
	dir := "/proc/" + strconv.Itoa(pid)
	w.reads, _ = procfs.Field(dir+"/io", "syscr")
	tasks, _ := os.ReadDir(dir + "/task")
	for _, t := range tasks {
		if n, err := procfs.Field(dir+"/task/"+t.Name()+"/status", "voluntary_ctxt_switches"); err == nil {
			w.switches += n
		}
	}
	return w
}

func (w procWake) minus(v procWake) procWake {
	return procWake{w.reads - v.reads, w.switches - v.switches}
}

// rawArgv runs the raw reader in a process of its own.
func (b throughputRun) rawArgv(ctxID, mode string, spec benchagent.Spec) []string {
	exe, _ := os.Executable()
	return []string{exe, "rawread", "-url", b.h.srv.Base(), "-ctx", ctxID, "-mode", mode, "-spec", spec.Prompt()}
}

func (b throughputRun) rawRate(spec benchagent.Spec) (float64, error) {
	argv := b.rawArgv("raw-tp", "rate", spec)
	out, err := execOutput(argv[0], argv[1:]...)
	if err != nil {
		return 0, fmt.Errorf("raw reader: %w", err)
	}
	f := strings.Fields(out)
	if len(f) != 3 {
		return 0, fmt.Errorf("raw reader said %q", out)
	}
	count, _ := strconv.Atoi(f[0])
	first, _ := strconv.ParseInt(f[1], 10, 64)
	last, _ := strconv.ParseInt(f[2], 10, 64)
	if count < 2 || last <= first {
		return 0, fmt.Errorf("raw reader saw %d chunks", count)
	}
	return float64(count-1) / time.Duration(last-first).Seconds(), nil
}

// rateResult is one streamed run through an agent.
type rateResult struct {
	rate        float64 // chunks/s
	chunks      int     // chunks delivered
	lines       int     // agent_message_chunk lines that carried them
	cpuPerChunk float64 // µs of the agent's CPU per chunk, over the prompt
	// peerPerChunk is the bench process's CPU per chunk over the prompt:
	// the server writing the stream and the reader of the agent's lines.
	peerPerChunk float64
	// wakes is what the agent did over the prompt (procWake).
	wakes procWake
}

// shimRate streams spec through an agent and returns chunks/s between the
// first and the last chunk line read, and the agent's CPU per chunk. A
// merged line counts every chunk it carries; the rate is the chunks that
// arrived after the first line over the time from the first line to the
// last (the raw reader's (N−1) over the same span, one chunk a line).
func (b throughputRun) shimRate(argv []string, spec benchagent.Spec) (rateResult, error) {
	var r rateResult
	p, ids, err := b.h.session(argv, 1)
	if err != nil {
		return r, err
	}
	defer p.close(5 * time.Second)
	var first, last time.Duration
	inFirst := 0
	p.onNote = func(line []byte, at time.Duration) {
		if bytes.Contains(line, agentChunk) {
			n := chunksIn(line, spec.Size > 0)
			if r.chunks == 0 {
				first, inFirst = at, n
			}
			r.chunks += n
			r.lines++
			last = at
		}
	}
	cpu0, _ := procCPU(p.pid())
	peer0, _ := procCPU(os.Getpid())
	w0 := procWakes(p.pid())
	if _, err := p.call("session/prompt", promptParams(ids[0], spec), 5*time.Minute); err != nil {
		return r, err
	}
	r.wakes = procWakes(p.pid()).minus(w0)
	if cpu1, err := procCPU(p.pid()); err == nil && r.chunks > 0 {
		r.cpuPerChunk = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(r.chunks)
	}
	if peer1, err := procCPU(os.Getpid()); err == nil && r.chunks > 0 {
		r.peerPerChunk = float64(peer1-peer0) / float64(time.Microsecond) / float64(r.chunks)
	}
	if r.chunks-inFirst < 1 || last <= first {
		return r, fmt.Errorf("shim delivered %d chunks in %d lines", r.chunks, r.lines)
	}
	r.rate = float64(r.chunks-inFirst) / (last - first).Seconds()
	return r, nil
}
