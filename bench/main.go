// Command bench measures shim on this machine (make bench): cold start
// next to two ACP agents from npm, streaming throughput and added latency
// next to a raw SSE reader, peak memory, replay of a long thread, and the
// Go micro-benchmarks. It prints a table and writes BENCHMARKS.md.
//
//	go run ./bench -shim bin/shim -peers bench/peers -out BENCHMARKS.md
//	go run ./bench inproc …    (a profiling stand-in for shim; see inproc.go)
//	go run ./bench rawread …   (the raw SSE reader, run as a process of its own)
package main

import (
	"bytes"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed analysis.md
var analysis string

type config struct {
	shim   string
	peers  string
	out    string
	work   string
	runs   int
	chunks int
	latN   int
	memMB  int
	turns  int
	// sessionTurns is the length of the long session.
	sessionTurns int
	profile      bool
	floor        string
	standin      string
	memcases     string
	variants     []string
	only         string
	gobench      bool
	repoRoot     string
}

// bench holds one run's server and results.
type bench struct {
	cfg   config
	srv   *a2aServer
	home  string
	rows  []row
	notes []string
	prof  []string
	log   io.Writer
	// goCPU is the CPU go test names (its brand string), when it ran.
	goCPU string
}

// row is one line of the results table.
type row struct {
	section, what, value, target, verdict string
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "rawread" {
		if err := rawread(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "rawread:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "inproc" {
		if err := inproc(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "inproc:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	flag.StringVar(&c.shim, "shim", "bin/shim", "the shim binary to measure")
	flag.StringVar(&c.peers, "peers", "bench/peers", "where the npm peers are installed (node_modules inside)")
	flag.StringVar(&c.out, "out", "BENCHMARKS.md", "the report to write (empty: none)")
	flag.StringVar(&c.work, "work", "bench/out", "scratch directory (state, profiles)")
	flag.IntVar(&c.runs, "runs", 50, "cold-start runs per agent")
	flag.IntVar(&c.chunks, "chunks", 100000, "chunks of the throughput stream")
	flag.IntVar(&c.latN, "latency-chunks", 10000, "chunks of the paced (2,000/s) latency stream")
	flag.IntVar(&c.memMB, "mem-mb", 100, "size of the large answers, MiB")
	flag.IntVar(&c.turns, "turns", 10000, "turns of the replayed thread")
	flag.IntVar(&c.sessionTurns, "session-turns", 2000, "one-chunk turns of the long session")
	flag.BoolVar(&c.profile, "profile", false, "also run the in-process stand-in with pprof on the heavy scenarios")
	flag.BoolVar(&c.gobench, "gobench", true, "run the Go benchmarks of a2a and bridge")
	flag.StringVar(&c.standin, "standin", "", "measure the in-process stand-in (bench inproc) with these extra flags instead of the shim binary (experiments)")
	flag.Func("variant", "LABEL=PATH: another shim binary measured next to shim in the cold start (a proposal's build); repeatable",
		func(v string) error {
			if !strings.Contains(v, "=") {
				return errors.New("want LABEL=PATH")
			}
			c.variants = append(c.variants, v)
			return nil
		})
	flag.StringVar(&c.memcases, "memcases", "idle,appends,replace1,replace,sessions", "memory cases to run")
	flag.StringVar(&c.floor, "floor", "", "a minimal Go binary answering initialize (bench/floor), measured next to shim")
	flag.StringVar(&c.only, "only", "", "run only these sections (comma-separated: cold,throughput,latency,memory,replay,long,gobench,profile)")
	flag.Parse()
	c.repoRoot, _ = os.Getwd()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if _, err := os.Stat(c.shim); err != nil {
		return fmt.Errorf("no shim binary at %s (make build)", c.shim)
	}
	abs, err := filepath.Abs(c.shim)
	if err != nil {
		return err
	}
	c.shim = abs
	if err := os.MkdirAll(c.work, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(c.work, "run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	b := &bench{cfg: c, home: filepath.Join(work, "home"), log: os.Stderr}
	for _, d := range []string{b.home, filepath.Join(work, "state"), filepath.Join(work, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	b.srv, err = newA2AServer()
	if err != nil {
		return err
	}
	defer b.srv.close()

	m := machine()
	m.shimSize = fileSize(c.shim)
	load0 := loadavg()
	fmt.Fprintf(b.log, "machine: %s; load average %s\n", m.line(), load0)
	start := time.Now()
	type step struct {
		key, name string
		fn        func() error
	}
	steps := []step{
		{"cold", "cold start", b.coldStart},
		{"throughput", "throughput", b.throughput},
		{"latency", "latency", b.latency},
		{"memory", "memory", b.memory},
		{"replay", "replay", b.replay},
		{"long", "long session", b.longSession},
	}
	if c.gobench {
		steps = append(steps, step{"gobench", "go benchmarks", b.goBench})
	}
	if c.profile {
		steps = append(steps, step{"profile", "profiles", b.profiles})
	}
	for _, s := range steps {
		if c.only != "" && !slices.Contains(strings.Split(c.only, ","), s.key) {
			continue
		}
		t := time.Now()
		fmt.Fprintf(b.log, "== %s\n", s.name)
		if err := s.fn(); err != nil {
			fmt.Fprintf(b.log, "   %s failed: %v\n", s.name, err)
			b.add(s.name, "(failed)", err.Error(), "", "error")
		}
		fmt.Fprintf(b.log, "   %s took %s\n", s.name, time.Since(t).Round(time.Millisecond))
	}
	elapsed := time.Since(start).Round(time.Second)
	m.load = fmt.Sprintf("%s at the start, %s at the end", load0, loadavg())
	if b.goCPU != "" {
		m.cpu += " (" + b.goCPU + ")"
	}
	table := b.table()
	fmt.Println()
	fmt.Println(table)
	fmt.Printf("(%s, %s)\n", m.line(), elapsed)
	if c.out != "" {
		if err := b.write(m, table, elapsed); err != nil {
			return err
		}
		fmt.Printf("wrote %s\n", c.out)
	}
	return nil
}

func (b *bench) add(section, what, value, target, verdict string) {
	b.rows = append(b.rows, row{section, what, value, target, verdict})
	fmt.Fprintf(b.log, "   %-34s %-40s %s %s\n", what, value, target, verdict)
}

func (b *bench) note(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, args...))
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func (b *bench) table() string {
	var sb strings.Builder
	sb.WriteString("| section | measure | result | target | verdict |\n|---|---|---|---|---|\n")
	for _, r := range b.rows {
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", r.section, r.what, r.value, r.target, r.verdict)
	}
	return sb.String()
}

func (b *bench) write(m machineInfo, table string, elapsed time.Duration) error {
	var sb strings.Builder
	sb.WriteString("# Benchmarks\n\n")
	sb.WriteString("Written by `make bench` (bench/); every figure below comes from the one run described here. " +
		"Medians and ratios are of that run; nothing is carried over from another machine.\n\n")
	fmt.Fprintf(&sb, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&sb, "- machine: %s, %d cores (%s), %s GiB RAM\n", m.cpu, m.cores, m.threads, m.memGiB)
	fmt.Fprintf(&sb, "- kernel: Linux %s; %s\n", m.kernel, m.goVersion)
	fmt.Fprintf(&sb, "- load average (1, 5, 15 min): %s. The machine may be shared: "+
		"a load near or above the core count inflates the latencies and the cold starts of every agent alike\n", m.load)
	fmt.Fprintf(&sb, "- shim: %s, %s binary\n", b.shimVersion(), m.shimSize)
	fmt.Fprintf(&sb, "- the run took %s\n\n", elapsed)
	sb.WriteString(table)
	if len(b.notes) > 0 {
		sb.WriteString("\nNotes of this run:\n\n")
		for _, n := range b.notes {
			sb.WriteString("- " + n + "\n")
		}
	}
	if len(b.prof) > 0 {
		sb.WriteString("\nProfiles of this run (in-process stand-in, `make bench PROFILE=1`):\n\n")
		for _, p := range b.prof {
			sb.WriteString(p + "\n")
		}
	}
	sb.WriteString("\n" + analysis)
	return os.WriteFile(b.cfg.out, []byte(sb.String()), 0o644)
}

func fileSize(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f MB", float64(fi.Size())/1e6)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func (b *bench) shimVersion() string {
	out, err := execOutput(b.cfg.shim, "--version")
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
}

// env is the environment every agent runs in: a scratch HOME, shim's
// state and config there, no keyring to find.
func (b *bench) env() []string {
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
	return append(env, "HOME="+b.home,
		"SHIM_STATE_DIR="+filepath.Join(filepath.Dir(b.home), "state"),
		"SHIM_CONFIG_DIR="+filepath.Join(filepath.Dir(b.home), "config"))
}

const benchToken = "bench-token-0123456789abcdef"

// shimArgv is how an editor starts shim for the bench server.
func (b *bench) shimArgv() []string {
	if b.cfg.standin != "" {
		exe, _ := os.Executable()
		return append([]string{exe, "inproc", "--url", b.srv.base, "--token", benchToken,
			"--state-dir", filepath.Join(filepath.Dir(b.home), "state")}, strings.Fields(b.cfg.standin)...)
	}
	return []string{b.cfg.shim, "--url", b.srv.base, "--token", benchToken, "--log-level", "error"}
}

// inprocArgv runs the profiling stand-in.
func (b *bench) inprocArgv(cpu, mem string) []string {
	exe, _ := os.Executable()
	return []string{exe, "inproc", "--url", b.srv.base, "--token", benchToken,
		"--state-dir", filepath.Join(filepath.Dir(b.home), "state"), "--cpuprofile", cpu, "--memprofile", mem}
}

// session starts an agent, initializes it and opens n sessions.
func (b *bench) session(argv []string, n int) (*acpProc, []string, error) {
	p, err := startAgent(argv, b.env(), os.Stderr)
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.call("initialize", initParams(), 20*time.Second); err != nil {
		p.stop()
		return nil, nil, err
	}
	var ids []string
	for range n {
		res, err := p.call("session/new", map[string]any{"cwd": b.home, "mcpServers": []any{}}, 20*time.Second)
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

func promptParams(id string, spec streamSpec) map[string]any {
	return map[string]any{"sessionId": id, "prompt": []map[string]any{{"type": "text", "text": spec.prompt()}}}
}

var agentChunk = []byte(`"agent_message_chunk"`)

// ---- cold start ----

type peer struct {
	name string
	argv []string
}

func (b *bench) peers() []peer {
	var out []peer
	find := func(pkg, name string, node bool) {
		dir := filepath.Join(b.cfg.peers, "node_modules", pkg)
		bin, err := packageBin(dir)
		if err != nil {
			b.note("%s: not installed (%v); its cold-start column is empty", pkg, err)
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
func (b *bench) coldOnce(argv []string) (time.Duration, error) {
	t0 := time.Now()
	p, err := startAgent(argv, b.env(), io.Discard)
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

func (b *bench) coldStart() error {
	agents := append([]peer{{"shim", b.shimArgv()}}, b.peers()...)
	for _, v := range b.cfg.variants {
		label, path, _ := strings.Cut(v, "=")
		argv := b.shimArgv()
		argv[0] = path
		agents = append(agents, peer{"variant: " + label, argv})
	}
	if b.cfg.floor != "" {
		agents = append(agents, peer{"floor: a static Go binary that only answers the line", []string{b.cfg.floor}})
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
			b.note("cold start: %s left out: %v", a.name, err)
			continue
		}
		ok = append(ok, a)
	}
	agents = ok
	times := make([][]time.Duration, len(agents))
	for range b.cfg.runs {
		for i, a := range agents {
			d, err := b.coldOnce(a.argv)
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			times[i] = append(times[i], d)
		}
	}
	shimMed := pct(times[0], 50)
	b.add("cold start", fmt.Sprintf("shim: spawn → initialize response (%d runs)", b.cfg.runs),
		fmt.Sprintf("median %s, p90 %s", ms(shimMed), ms(pct(times[0], 90))), "median ≤ 6 ms", verdict(shimMed <= 6*time.Millisecond))
	for i, a := range agents[1:] {
		med := pct(times[i+1], 50)
		if strings.HasPrefix(a.name, "variant") {
			b.add("cold start", a.name, fmt.Sprintf("median %s, p90 %s (%+.1f ms against shim)", ms(med), ms(pct(times[i+1], 90)),
				float64(med-shimMed)/float64(time.Millisecond)), "", "")
			continue
		}
		if strings.HasPrefix(a.name, "floor") {
			b.add("cold start", a.name, fmt.Sprintf("median %s, p90 %s; shim takes %s more", ms(med), ms(pct(times[i+1], 90)),
				ms(shimMed-med)), "", "")
			continue
		}
		native := strings.Contains(a.name, "(Rust)")
		target := ""
		if native {
			target = "shim ≥ 3× faster than the native peer"
		}
		b.add("cold start", a.name, fmt.Sprintf("median %s, p90 %s; shim is %.1f× faster", ms(med), ms(pct(times[i+1], 90)),
			float64(med)/float64(shimMed)), target, verdictIf(native, 3*shimMed <= med))
	}
	return nil
}

func verdictIf(applies, ok bool) string {
	if !applies {
		return ""
	}
	return verdict(ok)
}

// ---- throughput ----

func (b *bench) throughput() error {
	const reps = 5
	for _, flush := range []bool{true, false} {
		spec := streamSpec{n: b.cfg.chunks, flush: flush}
		how := "server flushes every frame (as A2A servers do)"
		if !flush {
			how = "server writes 64 KiB at a time (no flush per frame)"
		}
		target := 0.6
		if !flush {
			target = 0.25
		}
		// Alternate the two readers, reps times each; medians.
		var raws, shims, cpus []float64
		var lines int
		for range reps {
			raw, err := b.rawRate(spec)
			if err != nil {
				return err
			}
			r, err := b.shimRate(b.shimArgv(), spec)
			if err != nil {
				return err
			}
			if r.chunks != spec.n {
				b.note("throughput: shim delivered %d of %d chunks", r.chunks, spec.n)
			}
			raws, shims, cpus = append(raws, raw), append(shims, r.rate), append(cpus, r.cpuPerChunk)
			lines = r.lines
		}
		raw, r, cpu := median(raws), median(shims), median(cpus)
		b.add("throughput", fmt.Sprintf("raw SSE reader, %d appends; %s", spec.n, how),
			fmt.Sprintf("%.0f chunks/s (median of %d)", raw, reps), "", "")
		b.add("throughput", "shim → ACP session/update lines, same stream",
			fmt.Sprintf("%.0f chunks/s (median of %d) = %.3f× raw; %d lines for %d chunks (last run)", r, reps, r/raw, lines, spec.n),
			fmt.Sprintf("≥ %.2g× raw", target), verdict(r/raw >= target))
		b.add("throughput", "shim CPU (user + system) per chunk, same runs",
			fmt.Sprintf("%.2f µs (median of %d)", cpu, reps), "≤ 4 µs", verdict(cpu > 0 && cpu <= 4))
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

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// rawArgv runs the raw reader in a process of its own.
func (b *bench) rawArgv(ctxID, mode string, spec streamSpec) []string {
	exe, _ := os.Executable()
	return []string{exe, "rawread", "-url", b.srv.base, "-ctx", ctxID, "-mode", mode, "-spec", spec.prompt()}
}

func (b *bench) rawRate(spec streamSpec) (float64, error) {
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
}

// shimRate streams spec through an agent and returns chunks/s between the
// first and the last chunk line read, and the agent's CPU per chunk. A
// merged line counts every chunk it carries; the rate is the chunks that
// arrived after the first line over the time from the first line to the
// last (the raw reader's (N−1) over the same span, one chunk a line).
func (b *bench) shimRate(argv []string, spec streamSpec) (rateResult, error) {
	var r rateResult
	p, ids, err := b.session(argv, 1)
	if err != nil {
		return r, err
	}
	defer p.close(5 * time.Second)
	var first, last time.Duration
	inFirst := 0
	p.onNote = func(line []byte, at time.Duration) {
		if bytes.Contains(line, agentChunk) {
			n := chunksIn(line, spec.size > 0)
			if r.chunks == 0 {
				first, inFirst = at, n
			}
			r.chunks += n
			r.lines++
			last = at
		}
	}
	cpu0, _ := procCPU(p.pid())
	if _, err := p.call("session/prompt", promptParams(ids[0], spec), 5*time.Minute); err != nil {
		return r, err
	}
	if cpu1, err := procCPU(p.pid()); err == nil && r.chunks > 0 {
		r.cpuPerChunk = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(r.chunks)
	}
	if r.chunks-inFirst < 1 || last <= first {
		return r, fmt.Errorf("shim delivered %d chunks in %d lines", r.chunks, r.lines)
	}
	r.rate = float64(r.chunks-inFirst) / (last - first).Seconds()
	return r, nil
}

// ---- latency ----

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

func (b *bench) latency() error {
	spec := streamSpec{n: b.cfg.latN, pace: 2000, stamp: true}
	argv := b.rawArgv("raw-lat", "lat", spec)
	out, err := execOutput(argv[0], argv[1:]...)
	if err != nil {
		return fmt.Errorf("raw reader: %w", err)
	}
	var raw []time.Duration
	for _, f := range strings.Fields(out) {
		n, _ := strconv.ParseInt(f, 10, 64)
		raw = append(raw, time.Duration(n))
	}
	shim, err := b.shimLatency(b.shimArgv(), spec)
	if err != nil {
		return err
	}
	if len(raw) == 0 || len(shim) == 0 {
		return fmt.Errorf("latency: raw saw %d chunks, shim %d", len(raw), len(shim))
	}
	r50, r99 := pct(raw, 50), pct(raw, 99)
	s50, s99 := pct(shim, 50), pct(shim, 99)
	b.add("latency", fmt.Sprintf("raw reader, server write → read (%d chunks at 2,000/s)", len(raw)),
		fmt.Sprintf("p50 %s, p99 %s", us(r50), us(r99)), "", "")
	b.add("latency", "through shim, server write → client read", fmt.Sprintf("p50 %s, p99 %s", us(s50), us(s99)), "", "")
	b.add("latency", "added by shim (shim − raw, per percentile)", fmt.Sprintf("p50 %s, p99 %s", us(s50-r50), us(s99-r99)),
		"p99 < 1 ms", verdict(s99-r99 < time.Millisecond))
	return nil
}

func (b *bench) shimLatency(argv []string, spec streamSpec) ([]time.Duration, error) {
	p, ids, err := b.session(argv, 1)
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

// ---- memory ----

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

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// ---- replay ----

func (b *bench) replayOnce(argv []string, id string) (time.Duration, int, error) {
	p, _, err := b.session(argv, 0)
	if err != nil {
		return 0, 0, err
	}
	defer p.close(5 * time.Second)
	updates := 0
	p.onNote = func(line []byte, at time.Duration) { updates++ }
	t0 := time.Now()
	if _, err := p.call("session/load", map[string]any{"sessionId": id, "cwd": b.home, "mcpServers": []any{}}, 2*time.Minute); err != nil {
		return 0, updates, err
	}
	return time.Since(t0), updates, nil
}

func (b *bench) replay() error {
	n := b.cfg.turns
	for _, honour := range []bool{false, true} {
		b.srv.setTurns(n, honour)
		var ds []time.Duration
		updates := 0
		for i := range 5 {
			d, u, err := b.replayOnce(b.shimArgv(), fmt.Sprintf("replay-%v-%d", honour, i))
			if err != nil {
				return err
			}
			ds = append(ds, d)
			updates = u
		}
		if honour {
			b.add("replay", fmt.Sprintf("session/load, server honours limit=200 of %d turns", n),
				fmt.Sprintf("median %s (%d updates)", ms(pct(ds, 50)), updates), "< 1 s", verdict(pct(ds, 50) < time.Second))
		} else {
			b.add("replay", fmt.Sprintf("session/load of %d turns (the server ignores limit=200 and sends all)", n),
				fmt.Sprintf("median %s (%d updates, %s body)", ms(pct(ds, 50)), updates, mib(int64(len(b.srv.turnsAll))/1024)),
				"≤ 0.5 s", verdict(pct(ds, 50) <= 500*time.Millisecond))
		}
	}
	return nil
}

// ---- profiles ----

func (b *bench) profiles() error {
	dir, err := filepath.Abs(filepath.Join(b.cfg.work, "prof"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type job struct {
		name string
		fn   func(argv []string) error
	}
	jobs := []job{
		{"throughput", func(argv []string) error {
			r, err := b.shimRate(argv, streamSpec{n: b.cfg.chunks})
			b.prof = append(b.prof, fmt.Sprintf("- throughput (stand-in): %.0f chunks/s", r.rate))
			return err
		}},
		{"replace", func(argv []string) error {
			mb := min(b.cfg.memMB, 60) // one frame: under the 64 MiB event limit
			r, err := b.memRun(argv, []streamSpec{{n: mb * 1024, size: 1024, replace: true}})
			b.prof = append(b.prof, fmt.Sprintf("- %d MB + replace (stand-in): peak %s in %s", mb, mib(r.hwm), r.took.Round(time.Millisecond)))
			return err
		}},
		{"replay", func(argv []string) error {
			b.srv.setTurns(b.cfg.turns, false)
			d, _, err := b.replayOnce(argv, "replay-prof")
			b.prof = append(b.prof, fmt.Sprintf("- replay of %d turns (stand-in): %s", b.cfg.turns, ms(d)))
			return err
		}},
	}
	for _, j := range jobs {
		cpu, mem := filepath.Join(dir, j.name+".cpu.pprof"), filepath.Join(dir, j.name+".mem.pprof")
		if err := j.fn(b.inprocArgv(cpu, mem)); err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		for _, kind := range []string{"cpu", "mem"} {
			f := filepath.Join(dir, j.name+"."+kind+".pprof")
			args := []string{"tool", "pprof", "-top", "-nodecount=25"}
			if kind == "mem" {
				args = append(args, "-sample_index=alloc_space")
			}
			out, err := execOutput("go", append(args, f)...)
			if err != nil {
				return fmt.Errorf("pprof %s: %w", f, err)
			}
			_ = os.WriteFile(strings.TrimSuffix(f, ".pprof")+".top.txt", []byte(out), 0o644)
		}
		b.prof = append(b.prof, fmt.Sprintf("  (%s/%s.{cpu,mem}.pprof and .top.txt)", relPath(b.cfg.repoRoot, dir), j.name))
	}
	return nil
}

func relPath(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}

// ---- helpers ----

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1)*p/100 + 0.5)
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
func mib(kb int64) string       { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

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
