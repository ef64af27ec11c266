// Command demo runs the whole chain on loopback: the demo A2A agent (the
// official a2a-go SDK server), shim, and a harness that drives shim the way
// Zed does, printing the transcript.
//
//	go run ./examples/demo -shim bin/shim
//	go run ./examples/demo -shim bin/shim -url https://your-agent -prompt "hi"
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/shimdev/shim/examples/agent"
	"github.com/shimdev/shim/examples/harness"
)

func main() {
	shim := flag.String("shim", "bin/shim", "path of the shim binary")
	url := flag.String("url", "", "drive this agent instead of the embedded demo agent")
	dialect := flag.String("a2a", "1.0", "dialect of the embedded agent: 1.0 or 0.3")
	var prompts multi
	flag.Var(&prompts, "prompt", "a prompt to send (repeatable)")
	approve := flag.Bool("approve", true, "approve permission requests")
	flag.Parse()
	if len(prompts) == 0 {
		prompts = multi{"Where is the request handler?", "Use the tool to read the README"}
	}
	if *url == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(1)
		}
		*url = "http://" + ln.Addr().String()
		opts := agent.Options{Name: "Demo Agent", Dialect: *dialect}
		go http.Serve(ln, agent.NewHandler(*url, opts))
		fmt.Printf("# demo agent: %s at %s\n", agent.Describe(opts), *url)
	}
	cwd, _ := os.Getwd()
	state, err := os.MkdirTemp("", "shim-demo-")
	if err == nil {
		defer os.RemoveAll(state)
	}
	fmt.Printf("# shim: %s --url %s --root demo=%s\n\n", *shim, *url, cwd)
	err = harness.Run(harness.Options{
		Shim: *shim,
		// The project root makes tool locations absolute, clickable paths.
		Args:    []string{"--url", *url, "--state-dir", state, "--config-dir", state, "--keyring", "off", "--root", "demo=" + cwd},
		CWD:     cwd,
		Prompts: prompts,
		Approve: *approve,
		Out:     os.Stdout,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ", ") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }
