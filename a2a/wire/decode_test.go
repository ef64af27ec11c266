package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/sse"
)

var update = flag.Bool("update", false, "rewrite golden files")

// describe renders an event as one stable line for golden files.
func describe(ev a2a.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s task=%s ctx=%s", ev.Kind, short(ev.TaskID), short(ev.ContextID))
	switch ev.Kind {
	case a2a.EventTask, a2a.EventStatus:
		fmt.Fprintf(&b, " state=%s", ev.Status.State)
		if ev.Final {
			b.WriteString(" final")
		}
		if ev.Kind == a2a.EventTask {
			fmt.Fprintf(&b, " history=%d artifacts=%d", len(ev.Task.History), len(ev.Task.Artifacts))
		}
		describeMessage(&b, ev.Status.Message)
	case a2a.EventArtifact:
		fmt.Fprintf(&b, " artifact=%s append=%v last=%v parts=%s", ev.Artifact.ID, ev.Append, ev.LastChunk, describeParts(ev.Artifact.Parts))
		if u, ok := ev.Artifact.Usage(); ok {
			fmt.Fprintf(&b, " usage=%+v", u)
		}
	case a2a.EventMessage:
		describeMessage(&b, ev.Message)
	}
	return b.String()
}

func describeMessage(b *strings.Builder, m *a2a.Message) {
	if m == nil {
		return
	}
	fmt.Fprintf(b, " msg[role=%s parts=%s", m.Role, describeParts(m.Parts))
	if t := m.Text(); t != "" {
		fmt.Fprintf(b, " text=%q", t)
	}
	for _, t := range m.Thoughts() {
		fmt.Fprintf(b, " thought=%q", t)
	}
	for _, tc := range m.ToolCalls() {
		fmt.Fprintf(b, " tool=%s/%s/%s args=%q", tc.ID, tc.Name, tc.Phase, sameJSON(string(tc.Args)))
	}
	if h := m.Hitl(); h != nil {
		fmt.Fprintf(b, " hitl=%s/%q/%q", h.Kind, h.Title, h.Detail)
	}
	b.WriteString("]")
}

func describeParts(ps []a2a.Part) string {
	var out []string
	for _, p := range ps {
		switch p.Kind {
		case a2a.PartText:
			out = append(out, fmt.Sprintf("text:%q", p.Text))
		case a2a.PartFile:
			out = append(out, fmt.Sprintf("file:%s:%s:%d", p.MediaType, p.URL, len(p.Raw)))
		case a2a.PartData:
			out = append(out, "data:"+p.MimeType)
		}
	}
	return "[" + strings.Join(out, ",") + "]"
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run go test -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// TestCaptureStreams decodes the streams recorded from the official SDK
// servers, in both dialects, to the expected event sequences.
func TestCaptureStreams(t *testing.T) {
	files, _ := filepath.Glob("testdata/captures/*.sse")
	if len(files) < 6 {
		t.Fatalf("expected the recorded streams, found %d", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r := sse.NewReader(bytes.NewReader(data), 64<<20)
			var lines []string
			for {
				raw, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				ev, err := DecodeFrame(raw.Data)
				if err != nil {
					t.Fatalf("frame %q: %v", raw.Data, err)
				}
				line := describe(ev)
				if raw.ID != "" {
					line = "[id] " + line
				}
				lines = append(lines, line)
			}
			checkGolden(t, name, strings.Join(lines, "\n")+"\n")
		})
	}
}

// TestCaptureBodies decodes the recorded unary answers.
func TestCaptureBodies(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata/captures", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var lines []string
	for _, name := range []string{"gettask-completed.json", "gettask-inputrequired.json", "gettask-v03.json", "go-gettask.json"} {
		raw, err := DecodeResponse(read(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		task, err := DecodeTask(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lines = append(lines, name+": "+describe(a2a.Event{Kind: a2a.EventTask, Task: task, TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}))
		for _, a := range task.Artifacts {
			lines = append(lines, "  artifact "+a.ID+" "+describeParts(a.Parts))
		}
	}
	raw, err := DecodeResponse(read("sendmessage-blocking.json"))
	if err != nil {
		t.Fatal(err)
	}
	events, err := DecodeSendResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		lines = append(lines, "sendmessage-blocking.json: "+describe(ev))
	}
	errs, _ := filepath.Glob("testdata/captures/err-*.json")
	sort.Strings(errs)
	for _, f := range errs {
		_, err := DecodeResponse(read(filepath.Base(f)))
		var rpc *a2a.RPCError
		if !errors.As(err, &rpc) {
			t.Fatalf("%s: want an RPCError, got %v", f, err)
		}
		lines = append(lines, fmt.Sprintf("%s: code=%d message=%q", filepath.Base(f), rpc.Code, rpc.Message))
	}
	// go-errors.txt holds three plain bodies and one SSE frame.
	for _, chunk := range strings.Split(string(read("go-errors.txt")), "\n\n") {
		chunk = strings.TrimSpace(chunk)
		if chunk == "" {
			continue
		}
		body := []byte(chunk)
		if strings.HasPrefix(chunk, "id:") {
			ev, err := sse.NewReader(bytes.NewReader(body), 64<<20).Next()
			if err != nil {
				t.Fatal("unparsed SSE block")
			}
			body = ev.Data
		}
		_, err := DecodeFrame(body)
		var rpc *a2a.RPCError
		if !errors.As(err, &rpc) {
			t.Fatalf("go-errors.txt: want an RPCError, got %v", err)
		}
		lines = append(lines, fmt.Sprintf("go-errors.txt: code=%d message=%q", rpc.Code, rpc.Message))
	}
	checkGolden(t, "bodies", strings.Join(lines, "\n")+"\n")
}

// sameJSON is a JSON text with its objects' keys in order (encoding/json's
// writing of its reading), so that two decodings of one value written in
// two key orders describe alike: a tool call's args are kept as the
// server wrote them, and protojson writes a Struct's keys sorted. A text
// that is not JSON is returned as it is.
func sameJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// TestEnumRole: a message's role, as the dialects and the lenient
// spellings give it.
func TestEnumRole(t *testing.T) {
	for raw, want := range map[string]string{`"ROLE_USER"`: "user", `"ROLE_AGENT"`: "agent", `"user"`: "user", `"agent"`: "agent",
		`"Role_User"`: "user", `"AGENT"`: "agent", `1`: "user", `2`: "agent", `3`: "", `"ROLE_\u0055SER"`: "user", `"ROLE_UNSPECIFIED"`: "unspecified"} {
		var e Enum
		if err := e.UnmarshalJSON([]byte(raw)); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := e.role(); got != want {
			t.Errorf("%s: role %q, want %q", raw, got, want)
		}
	}
	var e Enum
	if err := e.UnmarshalJSON([]byte(`"bad \x01"`)); err == nil {
		t.Errorf("a control byte in an enum's string read as %q", e)
	}
}
