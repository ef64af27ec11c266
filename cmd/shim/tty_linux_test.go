package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair: the master and the terminal side.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the terminal side: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func itoa(n uint32) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// syncBuffer is a strings.Builder safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTerminalStdinExplains: `shim` typed in a terminal says on stderr what
// it is and how an editor starts it, then keeps serving ACP.
func TestTerminalStdinExplains(t *testing.T) {
	master, tty := openPTY(t)
	dir := t.TempDir()
	cmd := exec.Command(shimBin, "--state-dir", dir, "--config-dir", dir, "--keyring", "off")
	cmd.Env = append(os.Environ(), "SHIM_URL=", "SHIM_TOKEN=", "SHIM_TOKEN_FILE=")
	cmd.Stdin = tty
	var errb syncBuffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Still serving: an initialize typed on the terminal is answered on stdout.
	if _, err := master.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		if !strings.Contains(line, `"protocolVersion":1`) {
			t.Errorf("stdout %q, want the initialize answer", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no initialize answer; stderr:\n%s", errb.String())
	}
	// exec copies stderr on a goroutine of its own, so the notice can
	// reach the buffer after the answer reached stdout: wait for its last
	// line.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(errb.String(), "Ctrl-D ends") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	msg := errb.String()
	for _, want := range []string{"ACP agent", "JSON-RPC on stdin/stdout", "editor", "shim --help"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
}

// TestPipedStdinIsQuiet: started by an editor (stdin a pipe), shim says
// nothing of the kind.
func TestPipedStdinIsQuiet(t *testing.T) {
	p := startProc(t)
	p.call(t, 1, "initialize", initParams(false))
	if strings.Contains(p.logs(), "ACP agent") {
		t.Errorf("notice with a pipe on stdin:\n%s", p.logs())
	}
}
