package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// goBench runs the micro-benchmarks of a2a and bridge (the *_bench_test.go
// files) and adds one row per benchmark.
func (b goBenchRun) goBench() error {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1", "./a2a/...", "./bridge")
	cmd.Dir = b.h.cfg.repoRoot
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go test -bench: %w\n%s", err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if cpu, ok := strings.CutPrefix(sc.Text(), "cpu: "); ok {
			b.r.goCPU = strings.TrimSpace(cpu)
		}
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		var parts []string
		for i := 2; i+1 < len(f); i += 2 {
			switch f[i+1] {
			case "ns/op":
				parts = append(parts, f[i]+" ns/op")
			case "MB/s":
				parts = append(parts, f[i]+" MB/s")
			case "B/op":
				parts = append(parts, f[i]+" B/op")
			case "allocs/op":
				parts = append(parts, f[i]+" allocs/op")
			default:
				parts = append(parts, f[i]+" "+f[i+1])
			}
		}
		b.r.add("go bench", name, strings.Join(parts, ", "), "", "")
	}
	return nil
}
