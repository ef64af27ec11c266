// Package harness drives shim the way Zed does: it starts shim as a stdio
// subprocess, runs initialize, session/new and prompts over
// newline-delimited JSON-RPC, answers permission requests, and writes a
// readable transcript of every message.
package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/internal/acpclient"
)

// Options configures a run.
type Options struct {
	// Shim is the path of the shim binary; Args are its arguments.
	Shim string
	Args []string
	Env  []string
	// CWD is the session's working directory.
	CWD string
	// Notices advertises clientCapabilities.session.notices: shim says
	// what it says about itself as notices.
	Notices bool
	// MCPServers are the MCP servers the editor offers on session/new.
	MCPServers []any
	// Prompts are sent one after another in one session.
	Prompts []string
	// Steps, when set, are run after Prompts: prompts that may fail and
	// Send Now.
	Steps []Step
	// Approve answers permission requests with the first allow option
	// (otherwise they are denied).
	Approve bool
	// Out receives the transcript; Stderr receives shim's log.
	Out    io.Writer
	Stderr io.Writer
	// Timeout bounds each request.
	Timeout time.Duration
}

// Run starts shim, drives one session through the prompts and stops it.
func Run(o Options) error {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	cmd := exec.Command(o.Shim, o.Args...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stderr = o.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting shim: %w", err)
	}
	c := &conn{out: o.Out, approve: o.Approve}
	c.Conn = acpclient.New(stdout, stdin, acpclient.Options{Handler: c.answer, Read: c.read, Bad: c.bad})
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()

	caps := map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}
	if o.Notices {
		caps["session"] = map[string]any{"notices": map[string]any{}}
	}
	if _, err := c.call("initialize", map[string]any{
		"protocolVersion":    1,
		"clientInfo":         map[string]any{"name": "zed", "title": "Zed", "version": "0.200.0"},
		"clientCapabilities": caps,
	}, o.Timeout); err != nil {
		return err
	}
	mcp := o.MCPServers
	if mcp == nil {
		mcp = []any{}
	}
	res, err := c.call("session/new", map[string]any{"cwd": o.CWD, "mcpServers": mcp}, o.Timeout)
	if err != nil {
		return err
	}
	var ns struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &ns); err != nil || ns.SessionID == "" {
		return fmt.Errorf("session/new gave no sessionId: %s", res)
	}
	steps := make([]Step, 0, len(o.Prompts)+len(o.Steps))
	for _, p := range o.Prompts {
		steps = append(steps, Step{Prompt: p})
	}
	for _, st := range append(steps, o.Steps...) {
		if err := c.step(ns.SessionID, st, o.Timeout); err != nil {
			return err
		}
	}
	return nil
}

// Step is one prompt of a session.
type Step struct {
	// Note, when set, is printed as a "#" line before the step.
	Note   string
	Prompt string
	// MayFail: an error answer is shown, and the run goes on.
	MayFail bool
	// SendNow, when set, is sent the way Zed's Send Now does once the
	// prompt's answer has started streaming: session/cancel, then this
	// prompt at once (inside shim's grace window, it steers the turn).
	SendNow string
	// SetMode, when set, is chosen in the mode picker (session/set_mode)
	// before the prompt (none when Prompt is empty).
	SetMode string
}

func (c *conn) step(sessionID string, st Step, timeout time.Duration) error {
	if st.Note != "" {
		c.printf("\n# %s\n", st.Note)
	}
	prompt := func(text string) map[string]any {
		return map[string]any{"sessionId": sessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	}
	if st.SetMode != "" {
		if _, err := c.call("session/set_mode", map[string]any{"sessionId": sessionID, "modeId": st.SetMode}, timeout); err != nil {
			return err
		}
		if st.Prompt == "" {
			return nil
		}
	}
	if st.SendNow == "" {
		_, err := c.call("session/prompt", prompt(st.Prompt), timeout)
		if err != nil && st.MayFail {
			return nil
		}
		return err
	}
	started := make(chan struct{})
	c.mu.Lock()
	c.onChunk = func() { close(started) }
	c.mu.Unlock()
	first := make(chan error, 1)
	go func() { _, err := c.call("session/prompt", prompt(st.Prompt), timeout); first <- err }()
	select {
	case <-started:
	case err := <-first:
		return fmt.Errorf("the turn to interrupt ended before it streamed: %v", err)
	case <-time.After(timeout):
		return errors.New("the turn to interrupt never streamed")
	}
	c.printf("→ session/cancel (Send Now)\n")
	c.Notify("session/cancel", map[string]any{"sessionId": sessionID})
	_, err := c.call("session/prompt", prompt(st.SendNow), timeout)
	if ferr := <-first; ferr != nil {
		return ferr
	}
	return err
}

// conn is the scripted ACP client (internal/acpclient) that prints what
// goes by.
type conn struct {
	*acpclient.Conn
	out     io.Writer
	omu     sync.Mutex
	approve bool
	mu      sync.Mutex
	// onChunk, when set, runs once at the next agent_message_chunk.
	onChunk func()
}

func (c *conn) printf(format string, args ...any) {
	c.omu.Lock()
	defer c.omu.Unlock()
	fmt.Fprintf(c.out, format, args...)
}

func (c *conn) call(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	pj, _ := json.Marshal(params)
	c.printf("→ %s %s\n", method, pj)
	m, err := c.Call(method, params, timeout)
	switch {
	case errors.Is(err, acpclient.ErrClosed):
		return nil, errors.New("shim closed its stdout")
	case err != nil:
		return nil, fmt.Errorf("%s: %w", method, err)
	case m.Error != nil:
		return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
	}
	return m.Result, nil
}

// read prints each message shim wrote, in the order shim wrote it: an
// update that follows a response is shown after it.
func (c *conn) read(m acpclient.Message) {
	switch {
	case m.Method == "" && m.Error != nil:
		c.printf("← %s error %d: %s %s\n", c.MethodOf(string(m.ID)), m.Error.Code, m.Error.Message, m.Error.Data)
	case m.Method == "":
		c.printf("← %s result %s\n", c.MethodOf(string(m.ID)), m.Result)
	case m.Method == "session/update":
		c.printUpdate(m.Params)
	case m.Method == "session/request_permission" && len(m.ID) > 0:
		call, choice := c.permission(m.Params)
		c.printf("← session/request_permission %s → %s\n", call, choice)
	case m.Method != "":
		c.printf("← %s %s\n", m.Method, m.Params)
	}
}

func (c *conn) bad(line []byte, _ error) {
	c.printf("!! shim wrote a non-JSON line on stdout: %q\n", line)
}

func (c *conn) printUpdate(params json.RawMessage) {
	var p struct {
		Update map[string]any `json:"update"`
	}
	_ = json.Unmarshal(params, &p)
	kind, _ := p.Update["sessionUpdate"].(string)
	if kind == "agent_message_chunk" {
		c.mu.Lock()
		f := c.onChunk
		c.onChunk = nil
		c.mu.Unlock()
		if f != nil {
			defer f()
		}
	}
	if content, ok := p.Update["content"].(map[string]any); ok && content["type"] == "text" {
		// Every chunk names its message: the chunks of one message share
		// its id (an artifact's is its task's id and its own).
		if id, _ := p.Update["messageId"].(string); id != "" {
			c.printf("← %s %q (message %s)\n", kind, content["text"], id)
			return
		}
		c.printf("← %s %q\n", kind, content["text"])
		return
	}
	delete(p.Update, "sessionUpdate")
	b, _ := json.Marshal(p.Update)
	c.printf("← %s %s\n", kind, b)
}

// permission is the dialog's call as JSON and the option the harness picks: the
// first allow_once when it approves, else the first reject ("" when
// there is none: the request is cancelled).
func (c *conn) permission(params json.RawMessage) (call, choice string) {
	var p struct {
		// ToolCall is the dialog's call (its card's id, title, kind and
		// input, and the approval's words), printed as JSON.
		ToolCall map[string]any `json:"toolCall"`
		Options  []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(params, &p)
	b, _ := json.Marshal(p.ToolCall)
	for _, o := range p.Options {
		if (c.approve && o.Kind == "allow_once") || (!c.approve && strings.HasPrefix(o.Kind, "reject")) {
			return string(b), o.OptionID
		}
	}
	return string(b), ""
}

// answer answers shim's requests: permission as read printed it; shim
// makes no other request of a client without fs or terminal.
func (c *conn) answer(method string, params json.RawMessage) (any, *acpclient.RPCError) {
	if method != "session/request_permission" {
		return nil, &acpclient.RPCError{Code: -32601, Message: "Method not found: the harness does not support " + method}
	}
	_, choice := c.permission(params)
	outcome := map[string]any{"outcome": "cancelled"}
	if choice != "" {
		outcome = map[string]any{"outcome": "selected", "optionId": choice}
	}
	return map[string]any{"outcome": outcome}, nil
}
