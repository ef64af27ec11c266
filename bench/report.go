package main

// The report: the table of every section's rows, the round-trip part, the
// notes and profiles, printed and written to -out (BENCHMARKS.md).

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// report is what one run found, and where it goes.
type report struct {
	rows  []row
	notes []string
	prof  []string
	// goCPU is the CPU go test names (its brand string), when it ran.
	goCPU string
	// rtt is the round-trip table and its logs (markdown), when it ran.
	rtt string
	// log is where each row is said as it is added.
	log io.Writer
	// out is the report's file (-out, empty: none); only is -only.
	out, only string
	// version is shim's version line, as the report names it.
	version string
}

// row is one line of the results table.
type row struct {
	section, what, value, target, verdict string
}

func (r *report) add(section, what, value, target, verdict string) {
	r.rows = append(r.rows, row{section, what, value, target, verdict})
	fmt.Fprintf(r.log, "   %-34s %-40s %s %s\n", what, value, target, verdict)
}

func (r *report) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func (r *report) table() string {
	var sb strings.Builder
	sb.WriteString("| section | measure | result | target | verdict |\n|---|---|---|---|---|\n")
	for _, r := range r.rows {
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", r.section, r.what, r.value, r.target, r.verdict)
	}
	return sb.String()
}

func (r *report) write(m machineInfo, table string, elapsed time.Duration) error {
	var sb strings.Builder
	sb.WriteString("# Benchmarks\n\n")
	sb.WriteString("Written by `make bench` (bench/); every figure below comes from the one run described here. " +
		"Medians and ratios are of that run; nothing is carried over from another machine.\n\n")
	fmt.Fprintf(&sb, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&sb, "- machine: %s, %d cores (%s), %s GiB RAM\n", m.cpu, m.cores, m.threads, m.memGiB)
	fmt.Fprintf(&sb, "- kernel: Linux %s; %s\n", m.kernel, m.goVersion)
	fmt.Fprintf(&sb, "- load average (1, 5, 15 min): %s. The machine may be shared: "+
		"a load near or above the core count inflates the latencies and the cold starts of every agent alike\n", m.load)
	fmt.Fprintf(&sb, "- shim: %s, %s binary\n", r.version, m.shimSize)
	fmt.Fprintf(&sb, "- the run took %s\n\n", elapsed)
	sb.WriteString(table)
	if r.rtt != "" {
		sb.WriteString("\n" + r.rttSection("") + "\n")
	}
	if len(r.notes) > 0 {
		sb.WriteString("\nNotes of this run:\n\n")
		for _, n := range r.notes {
			sb.WriteString("- " + n + "\n")
		}
	}
	if len(r.prof) > 0 {
		sb.WriteString("\nProfiles of this run (in-process stand-in, `make bench PROFILE=1`):\n\n")
		for _, p := range r.prof {
			sb.WriteString(p + "\n")
		}
	}
	sb.WriteString("\n" + analysis)
	return os.WriteFile(r.out, []byte(sb.String()), 0o644)
}

// The round-trip part of the report lies between these lines, so that
// -only rtt can rewrite it alone.
const (
	rttBegin = "<!-- round trips: written by make bench (bench/rtt.go) -->"
	rttEnd   = "<!-- end of round trips -->"
)

// rttSection is the round-trip part; about names its own run when it is
// not the report's (-only rtt).
func (r *report) rttSection(about string) string {
	var sb strings.Builder
	sb.WriteString(rttBegin + "\n\n## Round trips\n\n")
	sb.WriteString("shim driven as Zed drives it (initialize, session/new, two prompts; then a relaunch on the same state " +
		"directory: initialize, session/new, a prompt) against the bench's agent behind a delay proxy that holds every byte RTT/2 " +
		"each way and makes a new connection wait one RTT before its first byte (`bench/internal/delayproxy`); plain HTTP, and " +
		"TLS with a test CA. The minimum is what a client needs (SPEC §19).\n\n")
	if about != "" {
		sb.WriteString(about + "\n\n")
	}
	sb.WriteString(r.rtt)
	sb.WriteString("\n" + rttEnd + "\n")
	return sb.String()
}

// spliceRTT writes this run's round-trip part into the report in place of
// the one there (or before its notes and analysis when it has none).
func (r *report) spliceRTT(m machineInfo, elapsed time.Duration) error {
	old, err := os.ReadFile(r.out)
	if err != nil {
		return fmt.Errorf("-only rtt rewrites the round trips of an existing %s: %w", r.out, err)
	}
	about := fmt.Sprintf("This part ran on its own (`-only rtt`) on %s: load average (1, 5, 15 min) %s; shim: %s; it took %s.",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), m.load, r.version, elapsed)
	sec := r.rttSection(about)
	doc := string(old)
	if i := strings.Index(doc, rttBegin); i >= 0 {
		j := strings.Index(doc, rttEnd)
		if j < i {
			return fmt.Errorf("%s: the round trips' part has no end line", r.out)
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
	return os.WriteFile(r.out, []byte(doc), 0o644)
}

// report prints the table (and the round trips) and writes -out: the
// whole report, or with -only rtt only its round-trip part.
func (r *report) report(m machineInfo, elapsed time.Duration) error {
	table := r.table()
	fmt.Println()
	fmt.Println(table)
	if r.rtt != "" {
		fmt.Println(r.rtt)
	}
	fmt.Printf("(%s, %s)\n", m.line(), elapsed)
	if r.out == "" {
		return nil
	}
	if r.only == "rtt" {
		// The rest of the report stays as the last whole run wrote it.
		if err := r.spliceRTT(m, elapsed); err != nil {
			return err
		}
	} else if err := r.write(m, table, elapsed); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", r.out)
	return nil
}
