package main

// Replay: session/load of a long thread, with the server ignoring and honouring the turns' limit.

import (
	"fmt"
	"time"
)

func (b replayRun) replayOnce(argv []string, id string) (time.Duration, int, error) {
	p, _, err := b.h.session(argv, 0)
	if err != nil {
		return 0, 0, err
	}
	defer p.close(5 * time.Second)
	updates := 0
	p.onNote = func(line []byte, at time.Duration) { updates++ }
	t0 := time.Now()
	if _, err := p.call("session/load", map[string]any{"sessionId": id, "cwd": b.h.home, "mcpServers": []any{}}, 2*time.Minute); err != nil {
		return 0, updates, err
	}
	return time.Since(t0), updates, nil
}

func (b replayRun) replay() error {
	n := b.h.cfg.turns
	for _, honour := range []bool{false, true} {
		b.h.srv.SetTurns(n, honour)
		var ds []time.Duration
		updates := 0
		for i := range 5 {
			d, u, err := b.replayOnce(b.h.shimArgv(), fmt.Sprintf("replay-%v-%d", honour, i))
			if err != nil {
				return err
			}
			ds = append(ds, d)
			updates = u
		}
		if honour {
			b.r.add("replay", fmt.Sprintf("session/load, server honours limit=200 of %d turns", n),
				fmt.Sprintf("median %s (%d updates)", ms(pct(ds, 50)), updates), "< 1 s", verdict(pct(ds, 50) < time.Second))
		} else {
			b.r.add("replay", fmt.Sprintf("session/load of %d turns (the server ignores limit=200 and sends all)", n),
				fmt.Sprintf("median %s (%d updates, %s body)", ms(pct(ds, 50)), updates, mib(int64(b.h.srv.TurnsSize())/1024)),
				"≤ 250 ms, every turn shown", verdict(pct(ds, 50) <= 250*time.Millisecond && updates >= 3*n))
		}
	}
	return nil
}
