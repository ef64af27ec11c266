package main

// A minimal ACP client driving an agent subprocess over stdio, the way an
// editor does: one JSON-RPC message per line each way. Notifications are
// handed to a callback on the reader goroutine, raw (no JSON decoding), so
// the client costs as little as possible next to what it measures.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

type acpProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader

	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	wait   map[int]chan []byte
	onNote func(line []byte, at time.Duration)
	done   chan struct{}
	err    error
}

// startAgent spawns argv with a stdout pipe read by a goroutine. It does
// not send anything.
func startAgent(argv []string, env []string, stderr io.Writer) (*acpProc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &acpProc{cmd: cmd, stdin: in, out: bufio.NewReaderSize(out, 1<<20), wait: map[int]chan []byte{}, done: make(chan struct{})}
	go p.read()
	return p, nil
}

func (p *acpProc) pid() int { return p.cmd.Process.Pid }

// read splits stdout into lines: responses go to their waiter, the rest
// to onNote.
func (p *acpProc) read() {
	defer close(p.done)
	var long []byte
	for {
		line, err := p.out.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if len(line) > 0 {
			p.dispatch(line)
		}
		if err != nil {
			p.mu.Lock()
			p.err = err
			for id, ch := range p.wait {
				close(ch)
				delete(p.wait, id)
			}
			p.mu.Unlock()
			return
		}
	}
}

var (
	keyMethod = []byte(`"method":`)
	keyID     = []byte(`"id":`)
)

func (p *acpProc) dispatch(line []byte) {
	at := now()
	// jsonrpc2 writes requests and notifications with sorted keys
	// ("jsonrpc", "method", "params"); a response has an id and no method.
	head := line[:min(len(line), 64)]
	if bytes.Contains(head, keyMethod) {
		if p.onNote != nil {
			p.onNote(line, at)
		}
		if bytes.Contains(head, []byte(`"session/request_permission"`)) {
			// Never expected in the bench; refuse so nothing hangs.
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(line, &m)
			p.send([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"outcome":{"outcome":"cancelled"}}}`))
		}
		return
	}
	var m struct {
		ID *int `json:"id"`
	}
	if bytes.Contains(line, keyID) && json.Unmarshal(line, &m) == nil && m.ID != nil {
		p.mu.Lock()
		ch := p.wait[*m.ID]
		delete(p.wait, *m.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- bytes.Clone(line)
		}
	}
}

func (p *acpProc) send(line []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.stdin.Write(append(line, '\n'))
	return err
}

// request sends a request and returns a channel that receives its
// response line (closed without one if stdout ends).
func (p *acpProc) request(method string, params any) (<-chan []byte, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	id := p.nextID
	p.nextID++
	ch := make(chan []byte, 1)
	p.wait[id] = ch
	p.mu.Unlock()
	msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + string(b) + `}`
	return ch, p.send([]byte(msg))
}

// call sends a request and waits for its result.
func (p *acpProc) call(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	ch, err := p.request(method, params)
	if err != nil {
		return nil, err
	}
	select {
	case line, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the agent's stdout ended (%v)", method, p.err)
		}
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, err
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
		}
		return r.Result, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("%s: no answer in %s", method, timeout)
	}
}

// stop kills the process group and reaps it.
func (p *acpProc) stop() {
	_ = p.stdin.Close()
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = p.cmd.Wait()
}

// close ends stdin and waits up to d for a clean exit before killing.
func (p *acpProc) close(d time.Duration) {
	_ = p.stdin.Close()
	exited := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
		return
	case <-time.After(d):
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// initParams is what Zed sends in initialize.
func initParams() map[string]any {
	return map[string]any{
		"protocolVersion": 1,
		"clientCapabilities": map[string]any{
			"fs":       map[string]any{"readTextFile": true, "writeTextFile": true},
			"terminal": true,
		},
		"clientInfo": map[string]any{"name": "zed", "title": "Zed", "version": "0.200.0"},
	}
}
