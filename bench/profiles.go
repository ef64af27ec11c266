package main

// Profiles (make bench PROFILE=1): the in-process stand-in under pprof on the heavy scenarios.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
)

func (b profileRun) profiles() error {
	dir, err := filepath.Abs(filepath.Join(b.h.cfg.work, "prof"))
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
			r, err := throughputRun(b).shimRate(argv, benchagent.Spec{N: b.h.cfg.chunks})
			b.r.prof = append(b.r.prof, fmt.Sprintf("- throughput (stand-in): %.0f chunks/s", r.rate))
			return err
		}},
		{"replace", func(argv []string) error {
			mb := min(b.h.cfg.memMB, 60) // one frame: under the 64 MiB event limit
			r, err := memoryRun(b).memRun(argv, []benchagent.Spec{{N: mb * 1024, Size: 1024, Replace: true}})
			b.r.prof = append(b.r.prof, fmt.Sprintf("- %d MB + replace (stand-in): peak %s in %s", mb, mib(r.hwm), r.took.Round(time.Millisecond)))
			return err
		}},
		{"replay", func(argv []string) error {
			b.h.srv.SetTurns(b.h.cfg.turns, false)
			d, _, err := replayRun(b).replayOnce(argv, "replay-prof")
			b.r.prof = append(b.r.prof, fmt.Sprintf("- replay of %d turns (stand-in): %s", b.h.cfg.turns, ms(d)))
			return err
		}},
	}
	for _, j := range jobs {
		cpu, mem := filepath.Join(dir, j.name+".cpu.pprof"), filepath.Join(dir, j.name+".mem.pprof")
		if err := j.fn(b.h.inprocArgv(cpu, mem)); err != nil {
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
		b.r.prof = append(b.r.prof, fmt.Sprintf("  (%s/%s.{cpu,mem}.pprof and .top.txt)", relPath(b.h.cfg.repoRoot, dir), j.name))
	}
	return nil
}

func relPath(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}
