// Command demo runs the whole chain on loopback: the demo A2A agent (the
// official a2a-go SDK server), shim, and a harness that drives shim the way
// Zed does, printing the transcript.
//
//	go run ./examples/demo -shim bin/shim
//	go run ./examples/demo -shim bin/shim -url https://your-agent -prompt "hi"
//	go run ./examples/demo -serve 127.0.0.1:7870   # the demo agent alone, for an editor
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/examples/harness"
)

// story is what `make demo` shows, one step per thing shim does.
var story = []harness.Step{
	{Note: "the commands (the agent's skills, then shim's /status) came after session/new; /status is answered by shim",
		Prompt: "/status"},
	{Note: "streamed text and a thought", Prompt: "Where is the request handler?"},
	{Note: "a tool call; its location is an absolute path the editor opens", Prompt: "Use the tool to read the README"},
	{Note: "a permission asked and answered (Allow once)", Prompt: "Please approve running the tests"},
	{Note: "the mode picker: allow-commands, and the next command approval is approved by shim",
		SetMode: "allow-commands", Prompt: "Please approve running the tests"},
	{Note: "back to ask", SetMode: "ask"},
	{Note: "a question: the agent asks, the next prompt answers", Prompt: "I have a question for you"},
	{Prompt: "main"},
	{Note: "Send Now: a cancel, then a prompt inside the grace window, steers the running turn",
		Prompt: "Take it slow", SendNow: "Also check the tests"},
	{Note: "a failed turn: the editor is told once (the prompt's error), and shim's log says it once", Prompt: "This one will fail", MayFail: true},
}

func main() {
	shim := flag.String("shim", "bin/shim", "path of the shim binary")
	url := flag.String("url", "", "drive this agent instead of the embedded demo agent")
	dialect := flag.String("a2a", "1.0", "dialect of the embedded agent: 1.0 or 0.3")
	serve := flag.String("serve", "", "only serve the demo agent on this address (host:port), for an editor")
	var prompts multi
	flag.Var(&prompts, "prompt", "a prompt to send (repeatable; default: the whole story)")
	approve := flag.Bool("approve", true, "approve permission requests")
	flag.Parse()
	opts := agent.Options{Name: "Demo Agent", Dialect: *dialect}
	if *serve != "" {
		serveAgent(*serve, opts)
		return
	}
	if *url == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fail(err)
		}
		*url = "http://" + ln.Addr().String()
		go http.Serve(ln, agent.NewHandler(*url, opts))
		fmt.Printf("# demo agent: %s at %s\n", agent.Describe(opts), *url)
	}
	// A project of its own, so the transcript names no developer's paths:
	// they are printed as $PROJECT.
	tmp, err := os.MkdirTemp("", "shim-demo-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	project, state := filepath.Join(tmp, "project"), filepath.Join(tmp, "state")
	for _, d := range []string{project, state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			fail(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("# Demo\nA demo project.\n"), 0o644); err != nil {
		fail(err)
	}
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	out := placeholders(os.Stdout, project)
	fmt.Fprintf(out, "# shim: %s --url %s --root demo=%s\n", *shim, *url, project)
	fmt.Fprintf(out, "# (the session's cwd is %s, a project with a README.md)\n\n", project)
	o := harness.Options{
		Shim: *shim,
		// The project root makes the agent's relative paths absolute,
		// clickable locations.
		Args: []string{"--url", *url, "--state-dir", state, "--config-dir", state, "--keyring", "off", "--root", "demo=" + project},
		CWD:  project,
		// As an editor that draws notices and has an MCP server of its
		// own: shim says it does not forward it, as a notice.
		Notices:    true,
		MCPServers: []any{map[string]any{"name": "filesystem", "command": "/usr/local/bin/mcp-filesystem", "args": []any{}, "env": []any{}}},
		Prompts:    prompts,
		Approve:    *approve,
		Out:        out,
		Stderr:     placeholders(os.Stderr, project),
	}
	if len(prompts) == 0 {
		o.Steps = story
	}
	if err := harness.Run(o); err != nil {
		fail(err)
	}
}

// serveAgent runs the demo agent alone and says how to point an editor
// and shim doctor at it.
func serveAgent(addr string, opts agent.Options) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fail(err)
	}
	u := "http://" + ln.Addr().String()
	fmt.Printf(`# demo agent: %s at %s (Ctrl-C stops it)

Check it:        shim doctor --url %s
Zed (~/.config/zed/settings.json, "agent_servers"; use the absolute path of bin/shim
if shim is not on your PATH):

  "Demo agent": {"type": "custom", "command": "shim", "args": ["--url", "%s"], "env": {}}

Prompts that show each part: "use the tool", "approve the tests", "a question",
"take it slow" (then Send Now), "fail"; anything else gets a streamed answer.
`, agent.Describe(opts), u, u, u)
	if err := http.Serve(ln, agent.NewHandler(u, opts)); err != nil {
		fail(err)
	}
}

// placeholders writes to w with the project directory and the working
// directory (the checkout) replaced, so transcripts carry no local paths.
func placeholders(w io.Writer, project string) io.Writer {
	wd, _ := os.Getwd()
	return &replacer{w: w, r: strings.NewReplacer(project, "$PROJECT", wd+string(filepath.Separator), "")}
}

type replacer struct {
	w io.Writer
	r *strings.Replacer
}

func (p *replacer) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.r.Replace(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "demo:", err)
	os.Exit(1)
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }
