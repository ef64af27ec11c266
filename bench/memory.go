package main

// Peak memory (VmHWM): idle, a large answer in appends, its full replace, many sessions at once.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
	"github.com/shimdev/shim/bench/internal/procfs"
)

type memResult struct {
	hwm, rss int64 // KiB
	took     time.Duration
	chunks   int
	bytes    int64
}

// memRun streams specs (one per session, all at once) through a fresh
// agent and reads its peak RSS.
func (b memoryRun) memRun(argv []string, specs []benchagent.Spec) (memResult, error) {
	p, ids, err := b.h.session(argv, len(specs))
	if err != nil {
		return memResult{}, err
	}
	defer p.close(5 * time.Second)
	var r memResult
	p.onNote = func(line []byte, at time.Duration) {
		if bytes.Contains(line, agentChunk) {
			r.chunks += chunksIn(line, true)
			r.bytes += int64(len(line))
		}
	}
	t0 := time.Now()
	var chans []<-chan []byte
	for i, s := range specs {
		ch, err := p.request("session/prompt", promptParams(ids[i], s))
		if err != nil {
			return r, err
		}
		chans = append(chans, ch)
	}
	for _, ch := range chans {
		select {
		case line, ok := <-ch:
			if !ok {
				return r, fmt.Errorf("the agent exited (%v)", p.err)
			}
			if !bytes.Contains(line, []byte(`"end_turn"`)) {
				return r, fmt.Errorf("prompt answered %.300s", line)
			}
		case <-time.After(5 * time.Minute):
			return r, errors.New("prompt: no answer in 5 minutes")
		}
	}
	r.took = time.Since(t0)
	if r.hwm, err = procfs.Status(p.pid(), "VmHWM"); err != nil {
		return r, err
	}
	r.rss, _ = procfs.Status(p.pid(), "VmRSS")
	return r, nil
}

func (b memoryRun) memCase(name string) bool {
	return slices.Contains(strings.Split(b.h.cfg.memcases, ","), name)
}

func (b memoryRun) memory() error {
	const kib = 1024
	mb := b.h.cfg.memMB
	if b.memCase("idle") {
		if err := b.idleMemory(); err != nil {
			return err
		}
	}
	big := mb * 1024 // 1 KiB chunks
	if b.memCase("appends") {
		r, err := b.memRun(b.h.shimArgv(), []benchagent.Spec{{N: big, Size: kib}})
		if err != nil {
			return fmt.Errorf("%d MiB in appends: %w", mb, err)
		}
		b.r.add("memory", fmt.Sprintf("peak RSS, %d MiB answer in 1 KiB appends", mb), fmt.Sprintf("%s (streamed in %s)", mib(r.hwm), secs(r.took)),
			"< 40 MB", verdict(r.hwm*kib < 40e6))
		if r.chunks != big {
			b.r.note("%d MiB in appends: %d of %d chunks arrived", mb, r.chunks, big)
		}
	}
	if b.memCase("replace1") {
		r, err := b.memRun(b.h.shimArgv(), []benchagent.Spec{{N: 1024, Size: kib, Replace: true}})
		if err != nil {
			return fmt.Errorf("1 MiB + replace: %w", err)
		}
		b.r.add("memory", "peak RSS, 1 MiB answer in appends + its full replace", fmt.Sprintf("%s (%s)", mib(r.hwm), secs(r.took)),
			"< 40 MB", verdict(r.hwm*kib < 40e6))
		if r.chunks != 1024 {
			b.r.note("1 MiB + replace: %d chunks arrived, 1024 expected (the replace must add nothing)", r.chunks)
		}
	}
	if b.memCase("replace") {
		// One frame carries the whole answer: it must stay under the
		// 64 MiB event limit (SPEC §13), so the replace is at most 60 MiB.
		mb := min(mb, 60)
		big := mb * 1024
		what := fmt.Sprintf("peak RSS, %d MiB answer in appends + its full replace (one %d MiB frame)", mb, mb)
		s := int64(big) * kib
		target := fmt.Sprintf("< 4×S = %d MiB", 4*mb)
		r, err := b.memRun(b.h.shimArgv(), []benchagent.Spec{{N: big, Size: kib, Replace: true}})
		if err != nil {
			b.r.add("memory", what, "failed: "+err.Error(), target, "MISSED")
		} else {
			b.r.add("memory", what, fmt.Sprintf("%s = %.1f×S (%s)", mib(r.hwm), float64(r.hwm*kib)/float64(s), secs(r.took)),
				target, verdict(r.hwm*kib < 4*s))
			if r.chunks != big {
				b.r.note("%d MiB + replace: %d chunks arrived, %d expected", mb, r.chunks, big)
			}
		}
	}
	if b.memCase("sessions") {
		// The case first: 20 sessions, a 1 MiB answer each, in the
		// two shapes an answer has (appended 1 KiB chunks; the same chunks
		// then one full replace, a 1 MiB frame per session); then 5 MiB each
		// in appends (the case of earlier runs).
		const sessions = 20
		for _, c := range []struct {
			what string
			spec benchagent.Spec
		}{
			{"1 MiB each in 1 KiB appends", benchagent.Spec{N: 1024, Size: kib}},
			{"1 MiB each in 1 KiB appends, then its full replace (one 1 MiB frame)", benchagent.Spec{N: 1024, Size: kib, Replace: true}},
			{"5 MiB each in 1 KiB appends", benchagent.Spec{N: 5 * 1024, Size: kib}},
		} {
			specs := make([]benchagent.Spec, sessions)
			for i := range specs {
				specs[i] = c.spec
			}
			r, err := b.memRun(b.h.shimArgv(), specs)
			if err != nil {
				return fmt.Errorf("%d sessions, %s: %w", sessions, c.what, err)
			}
			target, ok := "≤ 32 MiB", r.hwm*kib <= 32<<20
			if strings.HasPrefix(c.what, "5 MiB") {
				target, ok = "< 40 MB", r.hwm*kib < 40e6
			}
			b.r.add("memory", fmt.Sprintf("peak RSS, %d sessions prompting at once (%s)", sessions, c.what),
				fmt.Sprintf("%s (%s)", mib(r.hwm), secs(r.took)), target, verdict(ok))
		}
	}
	return nil
}

// idleMemory is what an idle session costs: a shim process after
// initialize and one session/new (what each editor window that starts
// shim pays), its resident memory split into anonymous (the process's
// own) and file-backed (the binary's pages, shared between processes);
// then what each further idle session of one process adds.
func (b memoryRun) idleMemory() error {
	p, _, err := b.h.session(b.h.shimArgv(), 1)
	if err != nil {
		return err
	}
	defer p.close(5 * time.Second)
	hwm, _ := procfs.Status(p.pid(), "VmHWM")
	rss, _ := procfs.Status(p.pid(), "VmRSS")
	anon, _ := procfs.Status(p.pid(), "RssAnon")
	file, _ := procfs.Status(p.pid(), "RssFile")
	b.r.add("memory", "one idle session: a shim process after initialize + session/new",
		fmt.Sprintf("RSS %s (anonymous %s, file-backed %s shared with other shim processes); peak %s", mib(rss), mib(anon), mib(file), mib(hwm)), "", "")
	const more = 100
	for range more {
		if _, err := p.call("session/new", map[string]any{"cwd": b.h.home, "mcpServers": []any{}}, 20*time.Second); err != nil {
			return err
		}
	}
	anon2, _ := procfs.Status(p.pid(), "RssAnon")
	b.r.add("memory", fmt.Sprintf("each further idle session of the same process (%d more)", more),
		fmt.Sprintf("%+.1f KiB each (anonymous RSS %s → %s)", float64(anon2-anon)/more, mib(anon), mib(anon2)), "", "")
	return nil
}
