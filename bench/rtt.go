package main

// Round trips (SPEC §19): shim driven as an editor drives it, against the
// bench's agent behind a delay proxy (bench/internal/delayproxy) at RTT 0, 50, 100 and
// 200 ms, over plain HTTP and over TLS with a test CA. Each phase is
// timed in the bench (never in a test) and shown in RTT multiples beside
// the minimum a client needs, with the requests the server received in
// it (bench/internal/reqlog) and the connections the proxy accepted.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
	"github.com/shimdev/shim/bench/internal/delayproxy"
	"github.com/shimdev/shim/bench/internal/reqlog"
	"github.com/shimdev/shim/bench/internal/testca"
)

var rttSteps = []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}

// The phases of one run, in order. Only those with a minimum are in the
// table; the others are the windows between them, so that every request
// of the run falls in one phase.
const (
	phInit      = "initialize"
	phNewFirst  = "session/new, first launch"
	phFirstTok  = "first token"
	phTurn1Rest = "rest of the first turn"
	phSecond    = "second prompt"
	phTurn2Rest = "rest of the second turn"
	phExit      = "exit"
	phInit2     = "initialize, relaunch"
	phNewAgain  = "session/new, relaunch"
	phFirstTok2 = "first token, relaunch"
	phTurn3Rest = "rest of the relaunch's turn"
	phExit2     = "exit, relaunch"
)

// tablePhases are the table's rows and their minimum in RTT, plain and
// TLS: the card then the auth probe on a new connection (one RTT of TCP
// handshake, one more of TLS 1.3), one RTT when the card is remembered,
// one RTT for a prompt's message on a warm connection (SPEC §19).
var tablePhases = []struct {
	name           string
	plain, withTLS int
}{
	{phInit, 0, 0},
	{phNewFirst, 3, 4},
	{phNewAgain, 2, 3},
	{phFirstTok, 1, 1},
	{phFirstTok2, 1, 1},
	{phSecond, 1, 1},
}

// rttRig is the server, its request log and the delay proxy in front of
// it, for one transport.
type rttRig struct {
	tls    bool
	proxy  *delayproxy.Proxy
	srv    *benchagent.Server
	log    *reqlog.Log
	caFile string
	url    string
}

func newRTTRig(withTLS bool, dir string) (*rttRig, error) {
	r := &rttRig{tls: withTLS, log: &reqlog.Log{}}
	// The proxy needs the server's address and the server's card the
	// proxy's: the proxy's listener comes first, aimed later.
	p, err := delayproxy.Listen()
	if err != nil {
		return nil, err
	}
	r.proxy = p
	scheme := "http"
	o := benchagent.Options{Wrap: r.log.Wrap}
	if withTLS {
		scheme = "https"
		if o.TLS, r.caFile, err = testca.New(dir); err != nil {
			p.Close()
			return nil, err
		}
	}
	r.url = scheme + "://" + p.Addr()
	o.Base = r.url
	if r.srv, err = benchagent.NewWith(o); err != nil {
		p.Close()
		return nil, err
	}
	p.Start(r.srv.Addr())
	return r, nil
}

func (r *rttRig) close() {
	r.proxy.Close()
	r.srv.Close()
}

func (r *rttRig) mode() string {
	if r.tls {
		return "TLS"
	}
	return "HTTP"
}

// mark is the start of a phase; a phase ends where the next begins.
type mark struct {
	phase string
	at    time.Time
}

// rttRun is one run at one RTT: its phases' marks, the requests the
// server read and the connections the proxy accepted.
type rttRun struct {
	rtt   time.Duration
	marks []mark
	reqs  []reqlog.Record
	conns []*delayproxy.Conn
	// connOf maps a request's RemoteAddr to its connection number.
	connOf map[string]int
}

func (r *rttRun) dur(phase string) (time.Duration, bool) {
	for i, m := range r.marks {
		if m.phase == phase && i+1 < len(r.marks) {
			return r.marks[i+1].at.Sub(m.at), true
		}
	}
	return 0, false
}

// phaseAt is the phase during which t fell.
func (r *rttRun) phaseAt(t time.Time) string {
	p := "before"
	for _, m := range r.marks {
		if t.Before(m.at) {
			break
		}
		p = m.phase
	}
	return p
}

// reqLine is a request as the log shows it.
type reqLine struct {
	rec     reqlog.Record
	conn    int
	newConn bool      // the first request of its connection
	sent    time.Time // when shim sent it, by the proxy's clock
	phase   string
}

// lines places each request in the phase shim sent it in: the first
// request of a connection was sent when shim dialled (the proxy accepted);
// another, RTT/2 before the server read it.
func (r *rttRun) lines() []reqLine {
	seen := map[int]bool{}
	var out []reqLine
	for _, q := range r.reqs {
		l := reqLine{rec: q, conn: r.connOf[q.Remote], sent: q.At.Add(-r.rtt / 2)}
		if l.conn > 0 && !seen[l.conn] {
			seen[l.conn], l.newConn = true, true
			l.sent = r.conns[l.conn-1].Accepted
		}
		l.phase = r.phaseAt(l.sent)
		out = append(out, l)
	}
	return out
}

// newConns counts the connections dialled during phase.
func (r *rttRun) newConns(phase string) int {
	n := 0
	for _, c := range r.conns {
		if r.phaseAt(c.Accepted) == phase {
			n++
		}
	}
	return n
}

// once runs shim through every phase at rtt: a first launch (initialize,
// session/new, two prompts), then a relaunch on the same state directory
// (initialize, session/new, a prompt).
func (r *rttRig) once(h *harness, rtt time.Duration, dir string) (*rttRun, error) {
	r.proxy.SetRTT(rtt)
	for _, d := range []string{"home", "state", "config"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	env := append(h.env(), "HOME="+filepath.Join(dir, "home"),
		"SHIM_STATE_DIR="+filepath.Join(dir, "state"), "SHIM_CONFIG_DIR="+filepath.Join(dir, "config"))
	if r.tls {
		env = append(env, "SSL_CERT_FILE="+r.caFile, "SSL_CERT_DIR="+filepath.Join(dir, "no-certs"))
	}
	argv := []string{h.cfg.shim, "--url", r.url, "--token", benchToken, "--log-level", "error"}
	cwd := filepath.Join(dir, "home")
	run := &rttRun{rtt: rtt}
	n0 := len(r.proxy.Connections())
	start := time.Now()
	timeout := 30*time.Second + 40*rtt
	d := &rttDriver{run: run, timeout: timeout}
	at, onNote, prompt := d.at, d.onNote, d.prompt
	// prompts are the phases of the launch's prompts: each a first token
	// and the rest of its turn.
	launch := func(initPhase, newPhase, exitPhase string, prompts ...[2]string) error {
		at(initPhase)
		p, err := startAgent(argv, env, os.Stderr)
		if err != nil {
			return err
		}
		p.onNote = onNote
		defer func() {
			at(exitPhase)
			p.close(10 * time.Second)
		}()
		if _, err := p.call("initialize", initParams(), timeout); err != nil {
			return err
		}
		at(newPhase)
		res, err := p.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, timeout)
		if err != nil {
			return err
		}
		id := jsonField(res, "sessionId")
		if id == "" {
			return fmt.Errorf("session/new answered %s", res)
		}
		for _, ph := range prompts {
			if err := prompt(p, id, ph[0], ph[1]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := launch(phInit, phNewFirst, phExit, [2]string{phFirstTok, phTurn1Rest}, [2]string{phSecond, phTurn2Rest}); err != nil {
		return nil, err
	}
	if err := launch(phInit2, phNewAgain, phExit2, [2]string{phFirstTok2, phTurn3Rest}); err != nil {
		return nil, err
	}
	at("end")
	// Let the last bytes through the proxy before reading its records.
	time.Sleep(rtt)
	run.conns = r.proxy.Connections()[n0:]
	// Renumber this run's connections from 1.
	run.connOf = map[string]int{}
	for i, c := range run.conns {
		run.connOf[c.Upstream] = i + 1
	}
	run.reqs = r.log.Since(start)
	return run, nil
}

// roundTrips is the bench's section: each transport, each RTT, -rtt-runs
// times, the RTTs interleaved.
func (b roundTripRun) roundTrips() error {
	if b.h.cfg.rttRuns < 1 {
		return errors.New("-rtt-runs must be at least 1")
	}
	base, err := os.MkdirTemp(b.h.cfg.work, "rtt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	if base, err = filepath.Abs(base); err != nil {
		return err
	}
	var sb strings.Builder
	var logs strings.Builder
	sb.WriteString("| phase | transport | RTT 0 | RTT 50 ms | RTT 100 ms | RTT 200 ms | minimum (RTT) | requests of the phase (at 200 ms, in order) | new connections |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	var rows []string
	var holds []time.Duration
	for _, withTLS := range []bool{false, true} {
		rig, err := newRTTRig(withTLS, base)
		if err != nil {
			return err
		}
		runs := map[time.Duration][]*rttRun{}
		floors := map[time.Duration][]map[string]time.Duration{}
		for rep := range b.h.cfg.rttRuns {
			for _, rtt := range rttSteps {
				dir := filepath.Join(base, fmt.Sprintf("%s-%d-%d", rig.mode(), rtt.Milliseconds(), rep))
				run, err := rig.once(b.h, rtt, dir)
				if err == nil {
					var f map[string]time.Duration
					if f, err = rig.floor(); err == nil {
						floors[rtt] = append(floors[rtt], f)
					}
				}
				if err != nil {
					rig.close()
					return fmt.Errorf("%s, RTT %s: %w", rig.mode(), rtt, err)
				}
				runs[rtt] = append(runs[rtt], run)
				fmt.Fprintf(b.h.log, "   %s RTT %3d ms: %s\n", rig.mode(), rtt.Milliseconds(), run.summary())
			}
		}
		rows = append(rows, floorRows(rig.mode(), withTLS, floors)...)
		holds = append(holds, rig.proxy.Holds()...)
		rig.close()
		last := rttSteps[len(rttSteps)-1]
		shown := runs[last][0]
		for _, ph := range tablePhases {
			minimum := ph.plain
			if withTLS {
				minimum = ph.withTLS
			}
			rows = append(rows, phaseRow(ph.name, rig.mode(), minimum, runs, shown))
		}
		fmt.Fprintf(&logs, "\n%s, RTT %d ms (the first run): each request as the server read it, in RTT from the start of its phase\n\n```\n",
			rig.mode(), last.Milliseconds())
		logs.WriteString(shown.log())
		logs.WriteString("```\n")
	}
	slices.SortStableFunc(rows, func(a, b string) int {
		return phaseIndex(a) - phaseIndex(b)
	})
	sb.WriteString(strings.Join(rows, "\n") + "\n")
	fmt.Fprintf(&sb, "\nEach cell is the median of %d runs: the round trips the phase took over the same phase at RTT 0 in the same run "+
		"(the issue's measure: (time − time at RTT 0) / RTT, so that the processes' own work on this machine, the same at every distance, "+
		"is not counted as a round trip), and in brackets the time itself (RTT 0: the time alone). "+
		"At 100 ms, 0.01 RTT is 1 ms. "+
		"A new connection costs one RTT before its first byte, TLS one more. "+
		"The rows of a bare client are Go's net/http alone sending only the minimum's requests through the same proxy in the same run "+
		"(the card then the probe; the probe on a new connection; one request on a warm one): what the machine and the proxy add, apart from shim.\n", b.h.cfg.rttRuns)
	if len(holds) > 0 {
		abs := make([]time.Duration, len(holds))
		for i, d := range holds {
			abs[i] = max(d, -d)
		}
		fmt.Fprintf(&sb, "The proxy let each held byte go RTT/2 after it came, give or take %s (median of %d holds; 90%% within %s; "+
			"a sleep wakes late, and each hold sleeps less by the lateness the last ones showed).\n",
			us(pct(holds, 50)), len(holds), us(pct(abs, 90)))
	}
	sb.WriteString(logs.String())
	b.r.rtt = sb.String()
	return nil
}

// phaseRow is one phase's row of the table: its median at each RTT, its
// minimum, and the requests and new connections of the run shown.
func phaseRow(phase, mode string, minimum int, runs map[time.Duration][]*rttRun, shown *rttRun) string {
	cells := append([]string{phase, mode}, rttCells(func(rtt time.Duration) []time.Duration {
		var ds []time.Duration
		for _, run := range runs[rtt] {
			if d, ok := run.dur(phase); ok {
				ds = append(ds, d)
			}
		}
		return ds
	})...)
	var reqs []string
	for _, l := range shown.lines() {
		if l.phase == phase {
			reqs = append(reqs, l.rec.What)
		}
	}
	list := strings.Join(reqs, "; ")
	if list == "" {
		list = "none"
	}
	cells = append(cells, fmt.Sprint(minimum), fmt.Sprintf("%d: %s", len(reqs), list), fmt.Sprint(shown.newConns(phase)))
	return "| " + strings.Join(cells, " | ") + " |"
}

// rttCells are a row's cells, one an RTT step: the median of what times
// gives at that step (rttCell).
func rttCells(times func(rtt time.Duration) []time.Duration) []string {
	var cells []string
	var med0 time.Duration
	for _, rtt := range rttSteps {
		med := pct(times(rtt), 50)
		if rtt == 0 {
			med0 = med
		}
		cells = append(cells, rttCell(med, med0, rtt))
	}
	return cells
}

// rttCell is a phase's median at rtt as the issue measures it (SPEC §19):
// the round trips it took over the same phase at RTT 0 in the same run,
// (med − med0) / rtt, so that what a phase costs whatever the distance
// (the processes' own work on this machine) is not counted as a round
// trip; beside it the time itself. At RTT 0, the time alone.
func rttCell(med, med0, rtt time.Duration) string {
	if rtt == 0 {
		return ms(med)
	}
	n := float64(med-med0) / float64(rtt)
	if n > -0.005 && n < 0 {
		n = 0 // not "-0.00"
	}
	return fmt.Sprintf("%.2f RTT (%s)", n, ms(med))
}

// phaseIndex orders the table's rows by phase (plain before TLS kept).
func phaseIndex(row string) int {
	for i, ph := range tablePhases {
		if strings.HasPrefix(row, "| "+ph.name+" |") || strings.HasPrefix(row, "| "+ph.name+floorSuffix+" |") {
			return i
		}
	}
	return len(tablePhases)
}

// summary is one run's phases in RTT multiples (or ms at RTT 0), for the
// progress log.
func (r *rttRun) summary() string {
	var parts []string
	for _, ph := range tablePhases {
		d, _ := r.dur(ph.name)
		if r.rtt == 0 {
			parts = append(parts, fmt.Sprintf("%s %s", ph.name, ms(d)))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.1f", ph.name, float64(d)/float64(r.rtt)))
		}
	}
	return strings.Join(parts, ", ")
}

// log is the run's requests phase by phase, each with the time the server
// read it (in RTT from its phase's start), its connection, and whether it
// opened that connection.
func (r *rttRun) log() string {
	var sb strings.Builder
	lines := r.lines()
	unit := func(d time.Duration) string {
		if r.rtt == 0 {
			return ms(d)
		}
		return fmt.Sprintf("%5.2f RTT", float64(d)/float64(r.rtt))
	}
	for i, m := range r.marks {
		if m.phase == "end" {
			break
		}
		end := r.marks[i+1].at
		fmt.Fprintf(&sb, "%s (%s)\n", m.phase, unit(end.Sub(m.at)))
		for _, l := range lines {
			if l.phase != m.phase {
				continue
			}
			tag := ""
			if l.newConn {
				tag = " (opens it, " + l.rec.Proto + ")"
			}
			fmt.Fprintf(&sb, "  +%s  connection %d%s  %s\n", unit(l.rec.At.Sub(m.at)), l.conn, tag, l.rec.What)
		}
	}
	return sb.String()
}

// rttDriver marks the phases of one run and drives its prompts: the
// first chunk of a prompt's answer ends its first-token phase.
type rttDriver struct {
	run     *rttRun
	timeout time.Duration

	mu    sync.Mutex
	first chan struct{} // closed by the first chunk of the prompt asked
}

// at marks the start of phase.
func (d *rttDriver) at(phase string) { d.run.marks = append(d.run.marks, mark{phase, time.Now()}) }

// onNote sees each notification shim writes: the first answer chunk of
// the prompt asked.
func (d *rttDriver) onNote(line []byte, _ time.Duration) {
	if !strings.Contains(string(line[:min(len(line), 400)]), `"agent_message_chunk"`) {
		return
	}
	d.mu.Lock()
	if d.first != nil {
		close(d.first)
		d.first = nil
	}
	d.mu.Unlock()
}

// prompt sends one prompt on session id: tokPhase until its first
// chunk, restPhase until its answer.
func (d *rttDriver) prompt(p *acpProc, id, tokPhase, restPhase string) error {
	ch := make(chan struct{})
	d.mu.Lock()
	d.first = ch
	d.mu.Unlock()
	d.at(tokPhase)
	resp, err := p.request("session/prompt", map[string]any{"sessionId": id,
		"prompt": []map[string]any{{"type": "text", "text": benchagent.Spec{N: 3}.Prompt()}}})
	if err != nil {
		return err
	}
	select {
	case <-ch:
	case <-time.After(d.timeout):
		return fmt.Errorf("%s: no chunk in %s", tokPhase, d.timeout)
	}
	d.at(restPhase)
	select {
	case line, ok := <-resp:
		if !ok || !strings.Contains(string(line), `"result"`) {
			return fmt.Errorf("%s: %.200s", tokPhase, line)
		}
	case <-time.After(d.timeout):
		return fmt.Errorf("%s: no answer in %s", tokPhase, d.timeout)
	}
	return nil
}
