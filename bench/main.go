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
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	// rttRuns is how many times each RTT runs in the round-trip table.
	rttRuns int
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
	// rtt is the round-trip table and its logs (markdown), when it ran.
	rtt string
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
	flag.Func("variant", "LABEL=PATH: another shim binary measured next to shim in the cold start and the throughput (a proposal's build); repeatable",
		func(v string) error {
			if !strings.Contains(v, "=") {
				return errors.New("want LABEL=PATH")
			}
			c.variants = append(c.variants, v)
			return nil
		})
	flag.StringVar(&c.memcases, "memcases", "idle,appends,replace1,replace,sessions", "memory cases to run")
	flag.StringVar(&c.floor, "floor", "", "a minimal Go binary answering initialize (bench/floor), measured next to shim")
	flag.StringVar(&c.only, "only", "", "run only these sections (comma-separated: cold,throughput,latency,memory,replay,long,rtt,gobench,profile); "+
		"-only rtt rewrites only the round-trip part of -out")
	flag.IntVar(&c.rttRuns, "rtt-runs", 3, "runs of each RTT in the round-trip table")
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
	// The sessions' cwd lives here: ACP wants it absolute.
	if work, err = filepath.Abs(work); err != nil {
		return err
	}
	if err := installAll(&c, filepath.Join(work, "bin")); err != nil {
		return err
	}
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
	b.runSteps()
	elapsed := time.Since(start).Round(time.Second)
	m.load = fmt.Sprintf("%s at the start, %s at the end", load0, loadavg())
	if b.goCPU != "" {
		m.cpu += " (" + b.goCPU + ")"
	}
	return b.report(m, elapsed)
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
	if b.rtt != "" {
		sb.WriteString("\n" + b.rttSection("") + "\n")
	}
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

// The round-trip part of the report lies between these lines, so that
// -only rtt can rewrite it alone.
const (
	rttBegin = "<!-- round trips: written by make bench (bench/rtt.go) -->"
	rttEnd   = "<!-- end of round trips -->"
)

// rttSection is the round-trip part; about names its own run when it is
// not the report's (-only rtt).
func (b *bench) rttSection(about string) string {
	var sb strings.Builder
	sb.WriteString(rttBegin + "\n\n## Round trips\n\n")
	sb.WriteString("shim driven as Zed drives it (initialize, session/new, two prompts; then a relaunch on the same state " +
		"directory: initialize, session/new) against the bench's agent behind a delay proxy that holds every byte RTT/2 " +
		"each way and makes a new connection wait one RTT before its first byte (`bench/delayproxy.go`); plain HTTP, and " +
		"TLS with a test CA. The minimum is what a client needs (SPEC §19).\n\n")
	if about != "" {
		sb.WriteString(about + "\n\n")
	}
	sb.WriteString(b.rtt)
	sb.WriteString("\n" + rttEnd + "\n")
	return sb.String()
}

// spliceRTT writes this run's round-trip part into the report in place of
// the one there (or before its notes and analysis when it has none).
func (b *bench) spliceRTT(m machineInfo, elapsed time.Duration) error {
	old, err := os.ReadFile(b.cfg.out)
	if err != nil {
		return fmt.Errorf("-only rtt rewrites the round trips of an existing %s: %w", b.cfg.out, err)
	}
	about := fmt.Sprintf("This part ran on its own (`-only rtt`) on %s: load average (1, 5, 15 min) %s; shim: %s; it took %s.",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), m.load, b.shimVersion(), elapsed)
	sec := b.rttSection(about)
	doc := string(old)
	if i := strings.Index(doc, rttBegin); i >= 0 {
		j := strings.Index(doc, rttEnd)
		if j < i {
			return fmt.Errorf("%s: the round trips' part has no end line", b.cfg.out)
		}
		rest := strings.TrimPrefix(doc[j+len(rttEnd):], "\n")
		doc = doc[:i] + sec + rest
	} else {
		at := len(doc)
		for _, h := range []string{"\nNotes of this run:", "\n## How each figure is measured"} {
			if k := strings.Index(doc, h); k >= 0 && k < at {
				at = k
			}
		}
		doc = doc[:at] + "\n" + sec + doc[at:]
	}
	// The explanations after the figures are bench/analysis.md's, as a
	// whole run writes them.
	if k := strings.Index(doc, "\n## How each figure is measured"); k >= 0 {
		doc = doc[:k+1] + analysis
	}
	return os.WriteFile(b.cfg.out, []byte(doc), 0o644)
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

func verdictIf(applies, ok bool) string {
	if !applies {
		return ""
	}
	return verdict(ok)
}

// installAll measures shim, its variants and the floor binary as a user
// runs them: installed, i.e. written out by an unpacker (tar, npm, cp).
// A binary as the Go linker leaves it was written through a memory
// mapping, and its pages sit in the page cache in a way that makes every
// start of a 17 MB binary 0.6–0.9 ms slower on this machine than a copy
// of the same bytes (bench/analysis.md); the npm peers are measured as
// npm unpacked them.
func installAll(c *config, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var err error
	if c.shim, err = install(c.shim, dir, "shim"); err != nil {
		return err
	}
	for i, v := range c.variants {
		label, path, _ := strings.Cut(v, "=")
		if path, err = install(path, dir, fmt.Sprintf("variant-%d", i)); err != nil {
			return err
		}
		c.variants[i] = label + "=" + path
	}
	if c.floor != "" {
		c.floor, err = install(c.floor, dir, "floor")
	}
	return err
}

// install copies the executable at path into dir as name, with one write.
func install(path, dir, name string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, name)
	return dst, os.WriteFile(dst, b, 0o755)
}

// runSteps runs each section of the bench that -only (and -gobench,
// -profile) asks for, in order; a section that fails is a row saying so.
func (b *bench) runSteps() {
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
		{"rtt", "round trips", b.roundTrips},
	}
	if b.cfg.gobench {
		steps = append(steps, step{"gobench", "go benchmarks", b.goBench})
	}
	if b.cfg.profile {
		steps = append(steps, step{"profile", "profiles", b.profiles})
	}
	for _, s := range steps {
		if b.cfg.only != "" && !slices.Contains(strings.Split(b.cfg.only, ","), s.key) {
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
}

// report prints the table (and the round trips) and writes -out: the
// whole report, or with -only rtt only its round-trip part.
func (b *bench) report(m machineInfo, elapsed time.Duration) error {
	table := b.table()
	fmt.Println()
	fmt.Println(table)
	if b.rtt != "" {
		fmt.Println(b.rtt)
	}
	fmt.Printf("(%s, %s)\n", m.line(), elapsed)
	if b.cfg.out == "" {
		return nil
	}
	if b.cfg.only == "rtt" {
		// The rest of the report stays as the last whole run wrote it.
		if err := b.spliceRTT(m, elapsed); err != nil {
			return err
		}
	} else if err := b.write(m, table, elapsed); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", b.cfg.out)
	return nil
}
