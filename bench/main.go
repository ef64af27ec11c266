// Command bench measures shim on this machine (make bench): cold start
// next to two ACP agents from npm, streaming throughput and added latency
// next to a raw SSE reader, peak memory, replay of a long thread, and the
// Go micro-benchmarks. It prints a table and writes BENCHMARKS.md.
//
//	go run ./bench -shim bin/shim -peers bench/peers -out BENCHMARKS.md
//	go run ./bench inproc …    (a profiling stand-in for shim; see bench/internal/inproc)
//	go run ./bench rawread …   (the raw SSE reader, run as a process of its own)
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
	"github.com/shimdev/shim/bench/internal/inproc"
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

// part is what every section of the bench runs over: the harness that
// starts the agents and the report the section adds its rows to. Each
// section is a value of its own type over it (its file's): coldRun,
// throughputRun, latencyRun, memoryRun, replayRun, longRun, roundTripRun,
// goBenchRun, profileRun.
type part struct {
	h *harness
	r *report
}

type (
	coldRun       part
	throughputRun part
	latencyRun    part
	memoryRun     part
	replayRun     part
	longRun       part
	roundTripRun  part
	goBenchRun    part
	profileRun    part
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "rawread" {
		if err := rawread(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "rawread:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "inproc" {
		if err := inproc.Main(os.Args[2:]); err != nil {
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
	flag.IntVar(&c.rttRuns, "rtt-runs", 5, "runs of each RTT in the round-trip table")
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
	h := &harness{cfg: c, home: filepath.Join(work, "home"), log: os.Stderr}
	for _, d := range []string{h.home, filepath.Join(work, "state"), filepath.Join(work, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	h.srv, err = benchagent.New()
	if err != nil {
		return err
	}
	defer h.srv.Close()
	r := &report{log: os.Stderr, out: c.out, only: c.only}

	m := machine()
	m.shimSize = fileSize(c.shim)
	load0 := loadavg()
	fmt.Fprintf(h.log, "machine: %s; load average %s\n", m.line(), load0)
	start := time.Now()
	runSteps(part{h, r})
	elapsed := time.Since(start).Round(time.Second)
	m.load = fmt.Sprintf("%s at the start, %s at the end", load0, loadavg())
	if r.goCPU != "" {
		m.cpu += " (" + r.goCPU + ")"
	}
	r.version = h.shimVersion()
	return r.report(m, elapsed)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
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
func runSteps(p part) {
	type step struct {
		key, name string
		fn        func() error
	}
	steps := []step{
		{"cold", "cold start", coldRun(p).coldStart},
		{"throughput", "throughput", throughputRun(p).throughput},
		{"latency", "latency", latencyRun(p).latency},
		{"memory", "memory", memoryRun(p).memory},
		{"replay", "replay", replayRun(p).replay},
		{"long", "long session", longRun(p).longSession},
		{"rtt", "round trips", roundTripRun(p).roundTrips},
	}
	cfg, log := p.h.cfg, p.h.log
	if cfg.gobench {
		steps = append(steps, step{"gobench", "go benchmarks", goBenchRun(p).goBench})
	}
	if cfg.profile {
		steps = append(steps, step{"profile", "profiles", profileRun(p).profiles})
	}
	for _, s := range steps {
		if cfg.only != "" && !slices.Contains(strings.Split(cfg.only, ","), s.key) {
			continue
		}
		t := time.Now()
		fmt.Fprintf(log, "== %s\n", s.name)
		if err := s.fn(); err != nil {
			fmt.Fprintf(log, "   %s failed: %v\n", s.name, err)
			p.r.add(s.name, "(failed)", err.Error(), "", "error")
		}
		fmt.Fprintf(log, "   %s took %s\n", s.name, time.Since(t).Round(time.Millisecond))
	}
}
