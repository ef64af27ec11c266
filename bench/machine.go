package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/shimdev/shim/bench/internal/procfs"
)

type machineInfo struct {
	cpu, threads, kernel, goVersion, memGiB, shimSize, load string
	cores                                                   int
}

func (m machineInfo) line() string {
	return fmt.Sprintf("%s, %d cores, Linux %s, %s", m.cpu, m.cores, m.kernel, m.goVersion)
}

func machine() machineInfo {
	m := machineInfo{cpu: "unknown CPU", cores: runtime.NumCPU(), kernel: "unknown", goVersion: runtime.Version(), memGiB: "?"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := execOutput("lscpu"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "Thread(s) per core" {
				m.threads = strings.TrimSpace(v) + " thread(s) per core"
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if out, err := execOutput("go", "version"); err == nil {
		m.goVersion = strings.TrimSpace(out)
	}
	if kb, err := procfs.Field("/proc/meminfo", "MemTotal"); err == nil {
		m.memGiB = strconv.FormatFloat(float64(kb)/(1<<20), 'f', 0, 64)
	}
	return m
}

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}

// packageBin finds the executable an npm package installs: its
// package.json "bin" (a string, or an object whose only or first entry is
// taken), relative to the package directory.
func packageBin(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", err
	}
	var rel string
	var one string
	var many map[string]string
	switch {
	case json.Unmarshal(pkg.Bin, &one) == nil && one != "":
		rel = one
	case json.Unmarshal(pkg.Bin, &many) == nil && len(many) > 0:
		for _, v := range many {
			if rel == "" || v < rel {
				rel = v
			}
		}
	default:
		return "", errors.New("package.json has no bin")
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}
