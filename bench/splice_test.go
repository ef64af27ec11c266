package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpliceRTT: -only rtt writes its part into the report before the
// notes the first time and in place of its last part after, keeps the
// rest of the report, and refreshes the explanations from analysis.md;
// without a report it writes nothing.
func TestSpliceRTT(t *testing.T) {
	out := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	head := "# Benchmarks\n\n| section | measure | result | target | verdict |\n|---|---|---|---|---|\n| cold start | x | 2.7 ms | | |\n"
	notes := "\nNotes of this run:\n\n- a note\n"
	if err := os.WriteFile(out, []byte(head+notes+"\n## How each figure is measured\n\nan older text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &report{out: out, version: "version unknown", rtt: "ROUND TRIPS ONE\n"}
	m := machineInfo{load: "1.00 2.00 3.00"}
	if err := b.spliceRTT(m, time.Second); err != nil {
		t.Fatal(err)
	}
	b.rtt = "ROUND TRIPS TWO\n"
	if err := b.spliceRTT(m, time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(got)
	if !strings.HasPrefix(doc, head) {
		t.Errorf("the report's head changed:\n%s", doc)
	}
	if strings.Count(doc, rttBegin) != 1 || strings.Count(doc, rttEnd) != 1 || strings.Contains(doc, "ROUND TRIPS ONE") {
		t.Errorf("not one round-trip part, the last run's:\n%s", doc)
	}
	two, n := strings.Index(doc, "ROUND TRIPS TWO"), strings.Index(doc, notes)
	if two < 0 || n < 0 || two > n || !strings.Contains(doc, "1.00 2.00 3.00") {
		t.Errorf("the round trips (with the load) are not before the notes, which stay:\n%s", doc)
	}
	if strings.Contains(doc, "an older text") || !strings.HasSuffix(doc, "\n"+analysis) {
		t.Errorf("the explanations are not bench/analysis.md's:\n%s", doc[max(0, len(doc)-300):])
	}

	b.out = filepath.Join(t.TempDir(), "none.md")
	if err := b.spliceRTT(m, time.Second); err == nil {
		t.Error("-only rtt without a report succeeded")
	}
	if _, err := os.Stat(b.out); !os.IsNotExist(err) {
		t.Errorf("-only rtt without a report wrote one (%v)", err)
	}
}
