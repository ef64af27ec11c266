package main

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDemoTellsTheWholeStory runs `make demo`'s program against the built
// shim: every part of the story shows, the failed turn does not fail the
// run, and the transcript names no local directory.
func TestDemoTellsTheWholeStory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds shim")
	}
	dir := t.TempDir()
	shim, demo := filepath.Join(dir, "shim"), filepath.Join(dir, "demo")
	for bin, pkg := range map[string]string{shim: "../../cmd/shim", demo: "."} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	// As `make demo` runs it: in the checkout, with a relative -shim.
	cmd := exec.Command(demo, "-shim", "./shim")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo: %v\n%s\n%s", err, out, stderr.String())
	}
	got := string(out)
	for _, want := range []string{
		`← agent_thought_chunk "Thinking about: Where is the request handler?"`,
		`"locations":[{"line":1,"path":"$PROJECT/README.md"}]`,
		`← available_commands_update {"availableCommands":[{"description":"answers questions about code","name":"chat"},`,
		`"name":"status"}]}`,
		`← agent_message_chunk "**Demo Agent** through shim`,
		// One card for the command, asked on (SPEC §18): pending while
		// the dialog is open; the dialog names the command.
		`← tool_call {"kind":"execute","rawInput":{"command":"npm test"},"status":"in_progress","title":"npm test","toolCallId":"c1"}`,
		`← tool_call_update {"status":"pending","toolCallId":"c1"}`,
		`← session/request_permission {"content":[{"content":{"text":"Approve shell command?\n\nnpm test\n\nruns via: /bin/sh -c","type":"text"},"type":"content"}],"kind":"execute","rawInput":{"command":"npm test"},"title":"npm test","toolCallId":"c1"} → approve`,
		`← tool_call_update {"content":[{"content":{"text":"12 passing","type":"text"},"type":"content"}],"status":"completed","toolCallId":"c1"}`,
		`→ session/set_mode {"modeId":"allow-commands"`,
		`← config_option_update {"configOptions":[{"category":"mode","currentValue":"allow-commands"`,
		`← agent_message_chunk "You answered: approved. "`,
		`← agent_message_chunk "**Input needed:** Which branch?"`,
		`← agent_message_chunk "You answered: main. "`,
		"→ session/cancel (Send Now)",
		`← session/prompt result {"stopReason":"cancelled"}`,
		`← agent_thought_chunk "Thinking about: Also check the tests"`,
		"← session/prompt error -32603: Demo Agent: The usage limit has been reached",
		`"usage":{"totalTokens":1285`,
		// The harness draws notices (SPEC §14): what shim says about
		// itself is a notice, and every chunk names its message.
		`"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"session":{"notices":{}},"terminal":false}`,
		`← notice {"description":"The agent runs apart from this machine and cannot reach the MCP tools your editor offered (1); it uses its own tools.","severity":"info","title":"The agent does not use your editor's MCP tools"}`,
		`← notice {"description":"This agent asks before every command even in 'Allow commands' mode: shim answered 'allow' for you (a delete is still asked).","severity":"warning","title":"This agent asks before every command"}`,
		`"sessionCapabilities":{"list":{},"resume":{},"close":{},"delete":{},"additionalDirectories":{}}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	// One message id per artifact: every chunk of the streamed answer
	// names the same, made of its task's id and its own. The agent sends
	// it in five pieces; chunks that wait for the writer merge (SPEC
	// §4.3), so how many lines carry it depends on the machine's load, and
	// their text, put together, is the answer.
	first, _, _ := strings.Cut(got[strings.Index(got, `"text":"Where is the request handler?"`)+1:], "← session/prompt result")
	var answer strings.Builder
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^← agent_message_chunk ("(?:[^"\\]|\\.)*") \(message ([^)]+)\)$`).FindAllStringSubmatch(first, -1) {
		text, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("chunk %s: %v", m[1], err)
		}
		answer.WriteString(text)
		ids = append(ids, m[2])
	}
	if want := "You asked: Where is the request handler?\nHere is a streamed answer in several chunks."; answer.String() != want {
		t.Errorf("the streamed answer reads %q, want %q", answer.String(), want)
	}
	if len(ids) == 0 || !strings.Contains(ids[0], "/") || slices.ContainsFunc(ids, func(id string) bool { return id != ids[0] }) {
		t.Errorf("the chunks of one artifact name one message id, its task's and its own: %q", ids)
	}
	if strings.Contains(got, `"toolCallId":"approval-`) || strings.Count(got, "← tool_call {") != 3 {
		t.Errorf("an approval made a card of its own: want one card per tool call (the README read and the two commands), got %d", strings.Count(got, "← tool_call {"))
	}
	if strings.Contains(got, "⚠️") {
		t.Error("the failed turn was shown as answer text besides its error")
	}
	if strings.Contains(got, "shim answered 'allow' for you (a delete is still asked).\\n\\n\"") {
		t.Error("a client that draws notices was told in the answer too")
	}
	for _, local := range []string{os.TempDir(), dir} {
		if strings.Contains(got, local) {
			t.Errorf("the transcript names the local directory %s", local)
		}
	}
	if !strings.Contains(stderr.String(), `level=WARN msg="request failed" method=session/prompt`) {
		t.Errorf("shim's log does not say the turn failed:\n%s", stderr.String())
	}
	demoAgentServes(t, demo)
}

// demoAgentServes: make demo-agent, the agent alone, prints what to paste
// and to run, and serves its card.
func demoAgentServes(t *testing.T, demo string) {
	t.Helper()
	srv := exec.Command(demo, "-serve", "127.0.0.1:0")
	pipe, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	sc := bufio.NewScanner(pipe)
	var head []string
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "Prompts that show") {
		head = append(head, sc.Text())
	}
	text := strings.Join(head, "\n")
	m := regexp.MustCompile(`shim doctor --url (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(text)
	if m == nil || !strings.Contains(text, `"args": ["--url", "`+m[1]+`"]`) || !strings.Contains(text, `"type": "custom"`) {
		t.Fatalf("demo -serve printed:\n%s", text)
	}
	resp, err := http.Get(m[1] + "/.well-known/agent-card.json")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the served agent's card: %v %v", resp, err)
	}
	resp.Body.Close()
}
