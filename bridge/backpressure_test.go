package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a"
)

// TestSlowEditorBoundedMemory: the agent streams 16 MiB as fast as it can
// while the editor reads shim's stdout slowly; shim's memory stays bounded
// (it stops reading the stream while stdout is full) and every byte of the
// answer arrives.
func TestSlowEditorBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 16 MiB")
	}
	const chunks, size = 128, 128 << 10
	chunk := strings.Repeat("z", size)
	f := newFake(t)
	f.stream = func(w *sseWriter, c rpcCall) {
		w.task("t1", "TASK_STATE_SUBMITTED")
		for i := 0; i < chunks; i++ {
			w.artifact("t1", "a1", chunk, i > 0)
		}
		w.status("t1", "TASK_STATE_COMPLETED", nil)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg := a2a.Config{URL: f.url, Stall: 30 * time.Second}
	go func() {
		_ = Serve(context.Background(), inR, outW, Options{Version: "test",
			Connect: func() (*a2a.Client, error) { return a2a.New(cfg) }})
		outW.Close()
	}()
	defer inW.Close()

	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReaderSize(&slowDiscard{r: outR}, 1<<20)
	readUntilID := func(id int) []byte {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading: %v", err)
			}
			var m struct {
				ID *int `json:"id"`
			}
			if bytes.HasPrefix(line, []byte(`{"id":`)) || !bytes.Contains(line[:min(len(line), 64)], []byte("session/update")) {
				_ = json.Unmarshal(line, &m)
				if m.ID != nil && *m.ID == id {
					return line
				}
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

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, ns.Result.SessionID))
	res := readUntilID(3)
	close(stop)
	if !bytes.Contains(res, []byte("end_turn")) {
		t.Fatalf("prompt: %s", res)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("heap grew by %d MiB at most while 16 MiB streamed", grew>>20)
	if grew > 10<<20 {
		t.Errorf("memory not bounded: the heap grew by %d MiB while 16 MiB streamed to a slow editor", grew>>20)
	}
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
