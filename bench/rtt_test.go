package main

import (
	"testing"
	"time"

	"github.com/shimdev/shim/bench/internal/delayproxy"
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
	r.reqs = []reqRecord{
		{at: at(155), remote: "a", what: "card"},     // opens 1 in session/new
		{at: at(260), remote: "a", what: "probe"},    // sent at 210
		{at: at(430), remote: "a", what: "late"},     // sent at 380: still session/new
		{at: at(545), remote: "b", what: "opener"},   // opens 2, dialled at 390: session/new
		{at: at(470), remote: "a", what: "roots"},    // sent at 420: first token
		{at: at(1050), remote: "b", what: "message"}, // sent at 1000: the rest of the turn
	}
	want := map[string]string{"card": phNewFirst, "probe": phNewFirst, "late": phNewFirst, "opener": phNewFirst,
		"roots": phFirstTok, "message": phTurn1Rest}
	for _, l := range r.lines() {
		if l.phase != want[l.rec.what] {
			t.Errorf("%s: in %q, want %q", l.rec.what, l.phase, want[l.rec.what])
		}
		if l.newConn != (l.rec.what == "card" || l.rec.what == "opener") {
			t.Errorf("%s: opens its connection = %v", l.rec.what, l.newConn)
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
