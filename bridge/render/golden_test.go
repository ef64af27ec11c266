package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/history"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/bridge/render/failure"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/bridge/render/session"
	"github.com/shimdev/shim/bridge/render/toolpath"
	"github.com/shimdev/shim/internal/acptest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from what the renderer writes now")

// golden compares lines with testdata/name.golden (or writes it with
// -update).
func golden(t *testing.T, name string, lines [][]byte) {
	t.Helper()
	got := append(bytes.Join(lines, []byte("\n")), '\n')
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// updateLines are the updates as the session/update notifications that
// carry them, each checked against the ACP schema.
func updateLines(t *testing.T, ups []acp.Update) [][]byte {
	t.Helper()
	v, err := acptest.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, u := range ups {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update",
			"params": map[string]any{"sessionId": "s1", "update": u}})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.AgentLine(b, func(string) string { return "" }); err != nil {
			t.Errorf("%s: %v", b, err)
		}
		u, _ := json.Marshal(u)
		lines = append(lines, u)
	}
	return lines
}

func text(s string) a2a.Part { return a2a.Part{Kind: a2a.PartText, Text: s} }

func agentMsg(id string, parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{ID: id, Role: "agent", Parts: parts}
}

// dataMsg is m with what its data parts of no known extension carry.
func dataMsg(m *a2a.Message, d *a2a.ParkData) *a2a.Message {
	m.Data = d
	return m
}

// TestGolden: what the renderer writes for a2a values, live and replayed,
// one case a file of testdata (the updates as JSON, one a line, each
// valid against the ACP schema). go test -update rewrites them.
func TestGolden(t *testing.T) {
	type run struct {
		r    *Renderer
		outs []Out
	}
	add := func(r *run, o []Out) { r.outs = append(r.outs, o...) }
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			r := &run{r: newOwn("Agent", cwdRoots(), c.draws())}
			c.steps(r.r, func(o []Out) { add(r, o) })
			ups := make([]acp.Update, len(r.outs))
			for i, o := range r.outs {
				ups[i] = o.Update()
			}
			golden(t, c.name, updateLines(t, ups))
		})
	}
}

// goldenCase is one case of TestGolden: a file of testdata.
type goldenCase struct {
	name      string
	terminals bool
	steps     func(r *Renderer, add func([]Out))
}

// draws is what the client of the case draws.
func (c goldenCase) draws() Draws {
	return Draws{Terminals: c.terminals, Notices: c.name == "notices"}
}

// goldenCases are TestGolden's cases.
func goldenCases() []goldenCase {
	return []goldenCase{
		{"answer", false, func(r *Renderer, add func([]Out)) {
			add(r.Answer.StatusAnswer("m0", "\n\n"))
			add(r.Answer.Artifact("t1", &a2a.Artifact{ID: "a1", Parts: []a2a.Part{text("\n\nHello")}}, false))
			add(r.Answer.Artifact("t1", &a2a.Artifact{ID: "a1", Parts: []a2a.Part{text(", world")}}, true))
			add(r.Answer.Artifact("t1", &a2a.Artifact{ID: "a1", Parts: []a2a.Part{text("Hello, world. Again")}}, false))
			add(r.Answer.Artifact("t1", &a2a.Artifact{ID: "a2", Parts: []a2a.Part{
				{Kind: a2a.PartText, Text: "thinking", Thinking: true},
				text("Second artifact."),
				{Kind: a2a.PartFile, URL: "https://example.com/files/report.pdf", MediaType: "application/pdf"},
				{Kind: a2a.PartFile, Raw: []byte{0x89, 'P', 'N', 'G'}, MediaType: "image/png"},
				{Kind: a2a.PartFile, Raw: []byte("zip"), Filename: "x.zip"},
				{Kind: a2a.PartData, Data: []byte(`{"rows":3}`)},
			}}, false))
			add(r.Answer.Thoughts("t1", &a2a.Message{ID: "m1", Role: "agent", Reasoning: []string{"Reasoning."}}))
			add(r.Answer.Marker("s1", "look at the tests"))
			add(r.Answer.Marker("", "a steer with no id"))
			add(r.Notices.Say(notice.NoSkipNotice()))
			add(r.Answer.Question("t1", agentMsg("m2", text("Which branch?"))))
			if err := r.Answer.Failure("t1", agentMsg("f1", text("boom"))); err.Code != acp.CodeInternal {
				panic(err)
			}
		}},
		{"snapshots", false, func(r *Renderer, add func([]Out)) {
			task := &a2a.Task{ID: "t1", Status: a2a.Status{State: a2a.StateWorking, Message: agentMsg("s1", text("Generating response..."))}}
			r.Snapshots.FirstFrame("t1")
			add(r.Snapshots.SnapshotNote("t1", task))
			add(r.Snapshots.SnapshotStatus("t1", task.Status)) // held
			grown := &a2a.Task{ID: "t1", Status: a2a.Status{State: a2a.StateWorking, Message: agentMsg("s1", text("Generating response... done: the answer"))}}
			add(r.Snapshots.SnapshotNote("t1", grown)) // it grew: answer text
			add(r.Snapshots.SnapshotStatus("t1", grown.Status))
			done := &a2a.Task{ID: "t1", Status: a2a.Status{State: a2a.StateCompleted, Message: agentMsg("s1", text("Generating response... done: the answer, complete."))},
				History: []a2a.Message{{ID: "u1", Role: "user", Parts: []a2a.Part{text("q")}}, *agentMsg("h1", text("from history"))}}
			for _, m := range NewHistory(done) {
				if !r.Snapshots.Seen("t1", m) {
					add(r.Answer.StatusAnswer(m.ID, m.Text()))
				}
			}
			add(r.Snapshots.SnapshotStatus("t1", done.Status))
			add(r.Notices.ProgressNote("t1", agentMsg("n1", text("Still working"))))
			add(r.Snapshots.EndNote(a2a.Status{State: a2a.StateCompleted}))
		}},
		{"tools", false, func(r *Renderer, add func([]Out)) {
			add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "read_file", Phase: a2a.PhaseStarted, Args: `{"path":"src/a.go","offset":10}`}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "read_file", Phase: a2a.PhaseCompleted, Result: "package a"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "edit_file", Phase: a2a.PhasePending}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "edit_file", Phase: a2a.PhaseStarted, Args: `{"path":"b.go","old_string":"x","new_string":"y"}`}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "edit_file", Phase: a2a.PhaseOutput, Output: "editing"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "edit_file", Phase: a2a.PhaseCompleted, Result: "ok"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c3", Name: "grep", Phase: a2a.PhaseCompleted, Args: `{"pattern":"TODO"}`, Result: "src/a.go:3: TODO one\nsrc/b.go:7: TODO two"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c4", Name: "delete_file", Phase: a2a.PhaseFailed, Args: `{"path":"/etc/passwd"}`, Error: "refused"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c5", Name: "write_todos", Phase: a2a.PhaseStarted, Args: todos1}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c6", Name: "mystery", Kind: "fetch", Display: "Fetch the page", ParentID: "c5", Phase: a2a.PhaseStarted, Args: `{"url":"https://example.com"}`}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c7", Name: "run_command", Phase: a2a.PhaseStarted, Args: `{"command":"make"}`}))
			add(r.Tools.Settle(acp.ToolFailed))
		}},
		{"terminals", true, func(r *Renderer, add func([]Out)) {
			add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhaseStarted, Args: `{"command":"go test ./..."}`}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhaseOutput, Output: "ok"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhaseCompleted, Result: "FAIL\nexit code 2"}))
			add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "bash", Phase: a2a.PhaseStarted, Args: `{"command":"sleep 9"}`}))
			add(r.Tools.Settle(acp.ToolCompleted))
		}},
		{"park", false, func(r *Renderer, add func([]Out)) {
			m := dataMsg(agentMsg("p1", text("May I delete it?")), &a2a.ParkData{
				Fields: []a2a.ParkField{{Key: "tool", Value: "delete_file"}, {Key: "input.path", Value: "/w/x"}},
				Schema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean","title":"OK"}},"required":["ok"]}`)})
			id, outs := r.Tools.ParkTool(&a2a.ParkData{Tool: &a2a.ToolCall{ID: "c9", Name: "delete_file", Phase: a2a.PhasePending, Args: `{"path":"/w/x"}`}})
			add(outs)
			if _, ok := r.Approvals().Parked(ParkCall{ID: id}); !ok {
				panic("the park's call is not open")
			}
			add(r.Answer.Question("t1", m))
			add(r.AuthRequired("t1", dataMsg(agentMsg("p2"), &a2a.ParkData{Fields: []a2a.ParkField{{Key: "url", Value: "https://example.com/login"}}})))
			add(r.Answer.Question("t2", &a2a.Message{Role: "agent", Park: &a2a.Hitl{Kind: a2a.HitlForm, Title: "Deploy", Description: "Pick where",
				Fields: []a2a.FormField{{Name: "env", Title: "Environment", Required: true, Options: []string{"staging", "prod"}}, {Name: "tags", Multiple: true, Options: []string{"a", "b"}}}}}))
			add(r.Answer.Question("", &a2a.Message{Role: "agent", Park: &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Run a command", Detail: "rm -rf build"}}))
		}},
		// SPEC §18: one card per tool call, pending while its dialog is
		// open; a park about a call no card shows opens the one card,
		// which the call's announce takes.
		{"approvals", false, approvalSteps},
		{"past", false, func(r *Renderer, add func([]Out)) {
			rp := history.NewReplay(new(history.Threads).Of("s1"), 5)
			user := a2a.Message{ID: "u1", Role: "user", Parts: []a2a.Part{text(past.PreambleStart + "Zed opened on your project `p` (/w).]\n\nFix the bug")}}
			mid := a2a.Message{ID: "m1", Role: "agent", Steers: []a2a.SteerItem{{ID: "s1", Text: "and the docs"}},
				Tools: []a2a.ToolCall{{ID: "c1", Name: "read_file", Phase: a2a.PhaseCompleted, Args: `{"path":"a.go"}`, Result: "x"}, {ID: "c2", Name: "run_command", Phase: a2a.PhaseStarted, Args: `{"command":"make"}`}}}
			add(r.Past.Show(&past.Turn{TaskID: "t1", State: a2a.StateFailed, History: []a2a.Message{user, mid, mid},
				Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{text("\nPartial answer.")}}},
				Status:    a2a.Status{State: a2a.StateFailed, Message: agentMsg("f1", text("RESOURCE_EXHAUSTED: quota"))}}, rp))
			add(newOwn("Agent", toolpath.Roots{}, Draws{}).Past.Show(&past.Turn{TaskID: "t2", State: a2a.StateInputRequired,
				Status: a2a.Status{State: a2a.StateInputRequired, Message: agentMsg("q1", text("Which branch?"))}}, rp))
			add(newOwn("Agent", toolpath.Roots{}, Draws{}).Past.Show(&past.Turn{TaskID: "t3", State: a2a.StateWorking, Text: "So far",
				Status: a2a.Status{State: a2a.StateWorking}}, rp))
			add(newOwn("Agent", toolpath.Roots{}, Draws{}).Past.Show(&past.Turn{TaskID: "t4", State: a2a.StateCompleted,
				Status: a2a.Status{State: a2a.StateCompleted, Message: agentMsg("d1", text("\n\nDone."))}}, rp))
			add(newOwn("Agent", toolpath.Roots{}, Draws{}).Past.Show(&past.Turn{TaskID: "t5", State: a2a.StateAuthRequired,
				Status: a2a.Status{State: a2a.StateAuthRequired, Message: agentMsg("x1", text("Sign in first."))}}, rp))
			add(newOwn("Agent", toolpath.Roots{}, Draws{}).Past.Show(&past.Turn{TaskID: "t6", State: a2a.StateAuthRequired,
				Status: a2a.Status{State: a2a.StateAuthRequired, Message: dataMsg(agentMsg("x2"), &a2a.ParkData{Fields: []a2a.ParkField{{Key: "url", Value: "https://example.com/login"}}})}}, rp))
		}},
		// What shim says about itself, without notices (as it always
		// was) and with them (SPEC §14).
		{"said", false, saySteps},
		{"notices", false, saySteps},
	}
}

// approvalSteps are the cards of approvals: asked on the card of the
// call shown (approved: running again, then ended by the call), on a
// card of their own the call's announce takes, denied, approved at once.
func approvalSteps(r *Renderer, add func([]Out)) {
	add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhaseStarted, Args: `{"command":"npm test"}`}))
	add(r.Tools.Tool(a2a.ToolCall{ID: "c0", Name: "delete_file", Phase: a2a.PhaseStarted, Args: `{"path":"x.txt"}`}))
	card, ok := r.Approvals().Parked(ParkCall{Kind: acp.ToolKindExecute, Detail: "npm test\n\nruns via: /bin/sh -c", Words: "Approve shell command?"})
	if !ok || card.ID != "c1" || card.Title != "npm test" || card.Kind != acp.ToolKindExecute {
		panic(fmt.Sprintf("the command's park is not on its card: %+v", card))
	}
	add(r.Approvals().Asking(card.ID))
	add(r.Approvals().Approved(card.ID))
	add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhasePending})) // approved: not pending again
	add(r.Tools.Tool(a2a.ToolCall{ID: "c1", Name: "run_command", Phase: a2a.PhaseCompleted, Result: "12 passing"}))
	if _, ok := r.Approvals().Parked(ParkCall{Kind: acp.ToolKindExecute, Detail: "rm -rf build"}); ok {
		panic("a park about another command took a card")
	}
	card, outs := r.Approvals().OpenParked("approval-t1-1", ParkCall{Kind: acp.ToolKindExecute, Detail: "rm -rf build\n\nruns via: /bin/sh -c"}, acp.ToolPending)
	add(outs)
	add(r.Approvals().Asking(card.ID))
	add(r.Approvals().Approved(card.ID))
	add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "run_command", Phase: a2a.PhaseStarted, Args: `{"command":"rm -rf build"}`}))
	add(r.Tools.Tool(a2a.ToolCall{ID: "c2", Name: "run_command", Phase: a2a.PhaseCompleted, Result: "removed"}))
	card, outs = r.Approvals().OpenParked("approval-t1-2", ParkCall{Kind: acp.ToolKindDelete, Detail: "old.txt", Project: "p"}, acp.ToolPending)
	add(outs)
	add(r.Approvals().Denied(card.ID))
	add(r.Tools.Tool(a2a.ToolCall{ID: "c3", Name: "delete_file", Phase: a2a.PhaseFailed, Args: `{"project":"p","path":"old.txt"}`, Error: "denied"})) // shows nothing
	add(r.Tools.Tool(a2a.ToolCall{ID: "c3", Name: "delete_file", Phase: a2a.PhaseFailed, Error: "denied"}))                                           // nor again
	_, outs = r.Approvals().OpenParked("approval-t1-3", ParkCall{Kind: acp.ToolKindOther, Words: "Use the browser"}, acp.ToolInProgress)
	add(outs)
	add(r.Tools.Settle(acp.ToolCompleted))
}

// saySteps are what shim says about itself in a turn.
func saySteps(r *Renderer, add func([]Out)) {
	add(r.Notices.Say(notice.BusyNotice()))
	add(r.Answer.Artifact("t1", &a2a.Artifact{ID: "a1", Parts: []a2a.Part{text("Answer.")}}, false))
	add(r.Notices.Say(notice.ReconnectingNotice()))
	add(r.Notices.Say(notice.NoSkipNotice()))
	add(r.Notices.Say(notice.RenewedNotice()))
	add(r.Notices.Say(notice.RenewalRefusedNotice()))
	add(r.Notices.ProgressNote("t1", agentMsg("n1", text("Searching the repository…"))))
	add(r.Notices.ProgressNote("t1", agentMsg("n2", text("A long note "+strings.Repeat("that goes on ", 20)+"\nand on a second line"))))
}

// TestGoldenSession: the updates about the session rather than a turn.
func TestGoldenSession(t *testing.T) {
	ups := []acp.Update{
		session.Title("Fix the bug", time.Date(2026, 5, 1, 12, 0, 0, 0, time.FixedZone("x", 3600))),
		session.Named("From the console"),
		session.Usage(1200, 200000, 0),
		session.Usage(1200, 200000, 0.25),
		session.Commands([]acp.AvailableCommand{{Name: "review", Description: "Reviews", Input: &acp.CommandInput{Hint: "#12"}}, {Name: "status", Description: "Status"}}),
		session.CurrentMode("allow-commands"),
		session.ConfigOptions([]acp.SessionConfigOption{{ID: "permissions", Name: "Permissions", Category: "mode", CurrentValue: "ask",
			Options: []acp.SelectOption{{Value: "ask", Name: "Ask every time"}}}}),
		session.DroppedNote("shim-1", 2048, 3),
		notice.Said(notice.EarlierNotShown(), false, "shim-2"),
		notice.Said(notice.EarlierNotShown(), true, "shim-3"),
		notice.Said(notice.NoReplayNotice("Agent"), false, "shim-4"),
		notice.Said(notice.NoReplayNotice("Agent"), true, "shim-5"),
		notice.Said(notice.MCPNotice(2), true, "shim-6"),
		QuestionChunk("t1", agentMsg("q1", text("Which branch?"))),
		session.HandoffFile("handoff-1", "src/a.go", &acp.Location{Path: "/w/src/a.go", Line: 7}),
		session.HandoffFile("handoff-2", "gone.go", nil),
	}
	golden(t, "session", updateLines(t, ups))
}

// TestGoldenErrors: the errors a request fails with when the agent fails
// it, by the A2A client's error.
func TestGoldenErrors(t *testing.T) {
	errs := []*acp.Error{
		failure.Failed("Agent", "the quota is used up", "t1", "RESOURCE_EXHAUSTED"),
		failure.Error("Agent: this chat is still busy elsewhere after 2m0s; your message was not sent", "busy", "", ""),
		failure.CallError("Agent", &a2a.RPCError{Code: -32001, Message: "Task not found"}, "t9", "run shim login"),
		failure.CallError("Agent", &a2a.UnreachableError{URL: "http://127.0.0.1:1", Err: errors.New("connection refused")}, "", "run shim login"),
		failure.CallError("Agent", errors.New("odd"), "", "run shim login"),
	}
	var lines [][]byte
	for _, e := range errs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	golden(t, "errors", lines)
}

// TestRenewIsNew: a renderer renewed after any case renders every case
// as a new one does: TestGolden's cases, and probes of the state a turn
// keeps (each run after itself shows what a renewal left of it).
func TestRenewIsNew(t *testing.T) {
	type probe struct {
		name  string
		draws Draws
		run   func(r *Renderer) []string
	}
	var probes []probe
	for _, c := range goldenCases() {
		probes = append(probes, probe{c.name, c.draws(), func(r *Renderer) []string {
			var out []string
			c.steps(r, func(os []Out) {
				for _, o := range os {
					b, err := json.Marshal(o.Update())
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, string(b))
				}
			})
			return out
		}})
	}
	art := &a2a.Artifact{ID: "a1", Parts: []a2a.Part{text("x")}}
	note := agentMsg("n1", text("Searching…"))
	probes = append(probes,
		probe{"snapshot artifact", Draws{}, func(r *Renderer) []string {
			return []string{fmt.Sprint(r.Snapshots.SnapArtifact("t1", art))}
		}},
		probe{"first frame", Draws{}, func(r *Renderer) []string {
			return []string{fmt.Sprint(r.Snapshots.FirstFrame("t1"), r.Snapshots.FirstFrame("t2"))}
		}},
		probe{"note", Draws{}, func(r *Renderer) []string {
			seen := r.Snapshots.noted("t1", note)
			r.Snapshots.noteShown("t1", note)
			return []string{fmt.Sprint(seen)}
		}},
		probe{"status answer", Draws{}, func(r *Renderer) []string {
			var out []string
			for _, s := range []string{"\n\nHello", "\n\nWorld"} {
				for _, o := range r.Answer.StatusAnswer("m1", s) {
					b, _ := json.Marshal(o.Update())
					out = append(out, string(b))
				}
				r.Answer.texts, r.Answer.last = map[string]*answerText{}, nil // no text shown: the status text's own rule
			}
			return out
		}},
	)
	for _, c := range probes {
		want := c.run(newOwn("Agent", cwdRoots(), c.draws))
		for _, before := range probes {
			r := newOwn("Other", toolpath.Roots{}, before.draws)
			before.run(r)
			r.Renew("Agent", cwdRoots(), c.draws)
			if got := c.run(r); !slices.Equal(got, want) {
				t.Errorf("%s after %s:\n got:\n%s\nwant:\n%s", c.name, before.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestRenewKnowsEveryField: Renew rebuilds a Renderer and each value it
// composes field by field, keeping the room of some; a field added to
// any of them fails here until Renew is made to reset it (or keep its
// room) and this list is changed.
func TestRenewKnowsEveryField(t *testing.T) {
	const want = "Answer{out ids agent blocks texts last lastTask lastArtifact statusText artifactText statusShown failed} " +
		"Tools{out roots terminals calls parsed} " +
		"Snapshots{answer notices msgs snapArts held noteTask heldOfHist heldOnce notes framed lastFramed anyFramed} " +
		"Notices{out ids answer on} Past{out ids answer tools list} out ids"
	fields := func(typ reflect.Type) []string {
		var names []string
		for i := range typ.NumField() {
			names = append(names, typ.Field(i).Name)
		}
		return names
	}
	typ := reflect.TypeOf(Renderer{})
	var names []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.IsExported() {
			names = append(names, f.Name+"{"+strings.Join(fields(f.Type), " ")+"}")
		} else {
			names = append(names, f.Name)
		}
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("Renderer has fields\n%s\nRenew was written for\n%s", got, want)
	}
}
