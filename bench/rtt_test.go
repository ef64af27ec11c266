package main

import (
	"testing"
	"time"

	"github.com/shimdev/shim/bench/internal/delayproxy"
	"github.com/shimdev/shim/bench/internal/reqlog"
)

// TestRTTRunPhases: a request belongs to the phase shim sent it in: the
// first of a connection to the phase in which shim dialled, another to
// the phase RTT/2 before the server read it; connections count in the
// phase they were dialled in.
func TestRTTRunPhases(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rtt := 100 * time.Millisecond
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	r := &rttRun{
		rtt:   rtt,
		marks: []mark{{phNewFirst, at(0)}, {phFirstTok, at(400)}, {phTurn1Rest, at(1000)}, {"end", at(1100)}},
		conns: []*delayproxy.Conn{{N: 1, Accepted: at(5), Upstream: "a"}, {N: 2, Accepted: at(390), Upstream: "b"}},
	}
	r.connOf = map[string]int{"a": 1, "b": 2}
	r.reqs = []reqlog.Record{
		{At: at(155), Remote: "a", What: "card"},     // opens 1 in session/new
		{At: at(260), Remote: "a", What: "probe"},    // sent at 210
		{At: at(430), Remote: "a", What: "late"},     // sent at 380: still session/new
		{At: at(545), Remote: "b", What: "opener"},   // opens 2, dialled at 390: session/new
		{At: at(470), Remote: "a", What: "roots"},    // sent at 420: first token
		{At: at(1050), Remote: "b", What: "message"}, // sent at 1000: the rest of the turn
	}
	want := map[string]string{"card": phNewFirst, "probe": phNewFirst, "late": phNewFirst, "opener": phNewFirst,
		"roots": phFirstTok, "message": phTurn1Rest}
	for _, l := range r.lines() {
		if l.phase != want[l.rec.What] {
			t.Errorf("%s: in %q, want %q", l.rec.What, l.phase, want[l.rec.What])
		}
		if l.newConn != (l.rec.What == "card" || l.rec.What == "opener") {
			t.Errorf("%s: opens its connection = %v", l.rec.What, l.newConn)
		}
	}
	if n := r.newConns(phNewFirst); n != 2 {
		t.Errorf("%d connections in session/new, want 2", n)
	}
	if n := r.newConns(phFirstTok); n != 0 {
		t.Errorf("%d connections in the first token, want 0", n)
	}
	if d, ok := r.dur(phFirstTok); !ok || d != 600*time.Millisecond {
		t.Errorf("first token lasted %v (%v), want 600ms", d, ok)
	}
}

// TestRTTCellCountsOverRTT0: a cell is the round trips over the same
// phase at RTT 0 (the measure), with the time itself beside it.
func TestRTTCellCountsOverRTT0(t *testing.T) {
	for _, c := range []struct {
		med, med0, rtt time.Duration
		want           string
	}{
		{309 * time.Millisecond, 12 * time.Millisecond, 100 * time.Millisecond, "2.97 RTT (309.0 ms)"},
		{12 * time.Millisecond, 12 * time.Millisecond, 0, "12.0 ms"},
		{205 * time.Millisecond, 5 * time.Millisecond, 100 * time.Millisecond, "2.00 RTT (205.0 ms)"},
		{11 * time.Millisecond, 11400 * time.Microsecond, 200 * time.Millisecond, "0.00 RTT (11.0 ms)"},
	} {
		if got := rttCell(c.med, c.med0, c.rtt); got != c.want {
			t.Errorf("rttCell(%s, %s, %s) = %q, want %q", c.med, c.med0, c.rtt, got, c.want)
		}
	}
}
