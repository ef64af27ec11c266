package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSlowEditorBoundedMemory: the agent streams 16 MiB as fast as it can
// while the editor reads shim's stdout slowly; shim's memory stays bounded
// (it stops reading the stream while stdout is full) and every byte of the
// answer arrives, in order. Memory is shim's own: the built binary's peak
// resident set (VmHWM), the fake server being in this test process.
func TestSlowEditorBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 16 MiB")
	}
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is read from /proc")
	}
	const chunks, size = 128, 128 << 10
	chunk := func(i int) string {
		return fmt.Sprintf("%06d", i) + strings.Repeat(string(rune('a'+i%26)), size-6)
	}
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		for i := 0; i < chunks; i++ {
			w.artifact("t1", "a1", chunk(i), i > 0)
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	cmd := exec.Command(shimBinary(t), "--url", f.url, "--state-dir", t.TempDir(), "--config-dir", t.TempDir(),
		"--keyring", "off", "--stall", "30s")
	cmd.Env = append(os.Environ(), "SHIM_URL=", "SHIM_TOKEN=", "SHIM_TOKEN_FILE=")
	inW, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	r := bufio.NewReaderSize(&slowDiscard{r: outR}, 1<<20)
	readUntilID := func(id int) []byte {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading: %v", err)
			}
			var m struct {
				ID     *int `json:"id"`
				Params struct {
					Update struct {
						Kind    string `json:"sessionUpdate"`
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"update"`
				} `json:"params"`
			}
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("stdout line: %v", err)
			}
			if m.ID != nil && *m.ID == id {
				return line
			}
			if m.Params.Update.Kind == "agent_message_chunk" {
				got.WriteString(m.Params.Update.Content.Text)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	readUntilID(1)
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	var ns struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	_ = json.Unmarshal(readUntilID(2), &ns)
	base := vmHWM(t, cmd.Process.Pid)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, ns.Result.SessionID))
	res := readUntilID(3)
	if !bytes.Contains(res, []byte("end_turn")) {
		t.Fatalf("prompt: %s", res)
	}
	peak := vmHWM(t, cmd.Process.Pid)
	t.Logf("shim's peak RSS %d MiB (%d MiB before the prompt) while 16 MiB streamed", peak>>20, base>>20)
	var want strings.Builder
	for i := 0; i < chunks; i++ {
		want.WriteString(chunk(i))
	}
	if got.Len() != want.Len() || got.String() != want.String() {
		t.Errorf("the answer arrived changed: %d bytes of %d", got.Len(), want.Len())
	}
	if grew := peak - base; grew > 12<<20 {
		t.Errorf("memory not bounded: shim's peak RSS grew by %d MiB while 16 MiB streamed to a slow editor", grew>>20)
	}
}

var (
	shimOnce sync.Once
	shimPath string
	shimErr  error
)

// shimBinary builds cmd/shim once per test run.
func shimBinary(t *testing.T) string {
	t.Helper()
	shimOnce.Do(func() {
		dir, err := os.MkdirTemp("", "shim-bridge-bin-")
		if err != nil {
			shimErr = err
			return
		}
		shimPath = filepath.Join(dir, "shim")
		out, err := exec.Command("go", "build", "-o", shimPath, "github.com/shimdev/shim/cmd/shim").CombinedOutput()
		if err != nil {
			shimErr = fmt.Errorf("building shim: %v\n%s", err, out)
		}
	})
	if shimErr != nil {
		t.Fatal(shimErr)
	}
	return shimPath
}

// vmHWM is a process's peak resident set, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

// slowDiscard reads slowly: 32 KiB per millisecond at most.
type slowDiscard struct{ r io.Reader }

func (s *slowDiscard) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	if len(p) > 32<<10 {
		p = p[:32<<10]
	}
	return s.r.Read(p)
}
