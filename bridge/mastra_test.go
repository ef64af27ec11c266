package bridge

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/acptest"
)

var updateParks = flag.Bool("update-parks", false, "rewrite testdata/parks/*.golden")

// The frames Mastra's own A2A server sent (testdata/parks/mastra-real,
// recorded by e2e/lib/frameworks/capture.mjs; see its README there),
// replayed to shim: what the editor is shown, as a golden file.

// shown is a session's updates and the client requests of a turn, one
// line each, the session id written as SESSION: the commands and the
// title (with its time) left out, the chunks of a run of text merged (how
// queued chunks merge depends on timing).
func shown(id string, ups []acptest.Update, forms []string) string {
	var b strings.Builder
	kind, text := "", ""
	flush := func() {
		if kind != "" {
			line, _ := json.Marshal(map[string]any{"sessionUpdate": kind, "content": map[string]any{"type": "text", "text": text}})
			b.WriteString(string(line) + "\n")
		}
		kind, text = "", ""
	}
	for _, u := range ups {
		switch k := u.Kind(); k {
		case "available_commands_update", "session_info_update":
			continue
		case "agent_message_chunk", "agent_thought_chunk":
			if k != kind {
				flush()
			}
			kind, text = k, text+u.Text()
			continue
		}
		flush()
		b.WriteString(strings.ReplaceAll(string(u.Update), id, "SESSION") + "\n")
	}
	flush()
	for _, f := range forms {
		b.WriteString("elicitation/create " + strings.ReplaceAll(f, id, "SESSION") + "\n")
	}
	return b.String()
}

func checkParksGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "parks", name+".golden")
	if *updateParks {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (go test -run %s -update-parks): %v", t.Name(), err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", t.Name(), path, got, want)
	}
}

// TestMastraRecorded: Mastra's streamed answer (its progress note a
// thought), and its delete approval asked as a form about the delete's
// pending card, answered in the same prompt (or, declined, in words).
func TestMastraRecorded(t *testing.T) {
	const dir = "parks/mastra-real/"
	for _, tc := range []struct {
		name    string
		files   []string
		prompt  string
		caps    map[string]any
		replies []func() (any, *acptest.RPCError)
	}{
		{"mastra-answer", []string{"04-answer-stream.response.sse"}, "Say hello.", nil, nil},
		{"mastra-approval-form", []string{"10-approval-park-stream.response.sse", "11-approval-resume-stream.response.sse"},
			"Delete the old notes.", formCaps, []func() (any, *acptest.RPCError){accept(map[string]any{"approved": true})}},
		{"mastra-approval-words", []string{"10-approval-park-stream.response.sse"}, "Delete the old notes.", formCaps, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := []string{dir + "01-card.response.json"}
			for _, f := range tc.files {
				files = append(files, dir+f)
			}
			a := startReplay(t, files...)
			el := &elicitations{replies: tc.replies}
			s := startShim(t, a.url, nil, el.handler)
			s.initWith(t, tc.caps)
			id := s.newSession(t, "/tmp")
			res := s.prompt(t, id, tc.prompt)
			got := shown(id, s.Updates(id), el.requests()) + "stop " + stopReason(t, res) + "\n"
			for _, m := range a.messages()[1:] {
				parts, _ := json.Marshal(m["parts"])
				meta, _ := json.Marshal(m["metadata"])
				got += "resume taskId " + m["taskId"].(string) + " parts " + string(parts) + " metadata " + string(meta) + "\n"
			}
			checkParksGolden(t, tc.name, got)
		})
	}
}

// TestVoltAgentRecordedStreamsItsSnapshots: VoltAgent streams task
// snapshots whose status message grows with the answer (SPEC §12.4), its
// first frame with no status text: the growing text is the answer, no
// thought. (Its events' data start with U+001E, which a JSON reader
// refuses; the test server drops it, as whether shim may is open.)
func TestVoltAgentRecordedStreamsItsSnapshots(t *testing.T) {
	a := startReplay(t, "parks/voltagent-real/01-card.response.json", "parks/voltagent-real/04-answer-stream.response.sse")
	a.mu.Lock()
	a.stripRS = true
	a.mu.Unlock()
	s := startShim(t, a.url, nil, nil)
	s.init(t)
	id := s.newSession(t, "/tmp")
	res := s.prompt(t, id, "Say hello.")
	checkParksGolden(t, "voltagent-answer", shown(id, s.Updates(id), nil)+"stop "+stopReason(t, res)+"\n")
}
