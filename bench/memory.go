package main

// Peak memory (VmHWM): idle, a large answer in appends, its full replace, many sessions at once.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

type memResult struct {
	hwm, rss int64 // KiB
	took     time.Duration
	chunks   int
	bytes    int64
}

// memRun streams specs (one per session, all at once) through a fresh
// agent and reads its peak RSS.
func (b *bench) memRun(argv []string, specs []streamSpec) (memResult, error) {
	p, ids, err := b.session(argv, len(specs))
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
	if r.hwm, err = procStatus(p.pid(), "VmHWM"); err != nil {
		return r, err
	}
	r.rss, _ = procStatus(p.pid(), "VmRSS")
	return r, nil
}

func (b *bench) memCase(name string) bool {
	return slices.Contains(strings.Split(b.cfg.memcases, ","), name)
}

func (b *bench) memory() error {
	const kib = 1024
	mb := b.cfg.memMB
	if b.memCase("idle") {
		p, _, err := b.session(b.shimArgv(), 1)
		if err != nil {
			return err
		}
		idle, _ := procStatus(p.pid(), "VmHWM")
		p.close(5 * time.Second)
		b.add("memory", "peak RSS after initialize + session/new", mib(idle), "", "")
	}
	big := mb * 1024 // 1 KiB chunks
	if b.memCase("appends") {
		r, err := b.memRun(b.shimArgv(), []streamSpec{{n: big, size: kib}})
		if err != nil {
			return fmt.Errorf("%d MiB in appends: %w", mb, err)
		}
		b.add("memory", fmt.Sprintf("peak RSS, %d MiB answer in 1 KiB appends", mb), fmt.Sprintf("%s (streamed in %s)", mib(r.hwm), secs(r.took)),
			"< 40 MB", verdict(r.hwm*kib < 40e6))
		if r.chunks != big {
			b.note("%d MiB in appends: %d of %d chunks arrived", mb, r.chunks, big)
		}
	}
	if b.memCase("replace1") {
		r, err := b.memRun(b.shimArgv(), []streamSpec{{n: 1024, size: kib, replace: true}})
		if err != nil {
			return fmt.Errorf("1 MiB + replace: %w", err)
		}
		b.add("memory", "peak RSS, 1 MiB answer in appends + its full replace", fmt.Sprintf("%s (%s)", mib(r.hwm), secs(r.took)),
			"< 40 MB", verdict(r.hwm*kib < 40e6))
		if r.chunks != 1024 {
			b.note("1 MiB + replace: %d chunks arrived, 1024 expected (the replace must add nothing)", r.chunks)
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
		r, err := b.memRun(b.shimArgv(), []streamSpec{{n: big, size: kib, replace: true}})
		if err != nil {
			b.add("memory", what, "failed: "+err.Error(), target, "MISSED")
		} else {
			b.add("memory", what, fmt.Sprintf("%s = %.1f×S (%s)", mib(r.hwm), float64(r.hwm*kib)/float64(s), secs(r.took)),
				target, verdict(r.hwm*kib < 4*s))
			if r.chunks != big {
				b.note("%d MiB + replace: %d chunks arrived, %d expected", mb, r.chunks, big)
			}
		}
	}
	if b.memCase("sessions") {
		const sessions, each = 20, 5 * 1024
		specs := make([]streamSpec, sessions)
		for i := range specs {
			specs[i] = streamSpec{n: each, size: kib}
		}
		r, err := b.memRun(b.shimArgv(), specs)
		if err != nil {
			return fmt.Errorf("20 sessions: %w", err)
		}
		b.add("memory", fmt.Sprintf("peak RSS, %d sessions prompting at once (5 MiB each in 1 KiB appends)", sessions),
			fmt.Sprintf("%s (%s)", mib(r.hwm), secs(r.took)), "< 40 MB", verdict(r.hwm*kib < 40e6))
	}
	return nil
}
