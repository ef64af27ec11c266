package binding

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/internal/redact"
)

// tracer appends raw frames as JSON lines, every secret redacted.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *tracer) frame(dir, method string, raw []byte) {
	if t == nil {
		return
	}
	raw = redact.Default.JSON(raw)
	line := struct {
		Time   string          `json:"time"`
		Dir    string          `json:"dir"`
		Method string          `json:"method"`
		Frame  json.RawMessage `json:"frame,omitempty"`
		Text   string          `json:"text,omitempty"`
	}{Time: time.Now().UTC().Format(time.RFC3339Nano), Dir: dir, Method: method}
	if json.Valid(raw) {
		line.Frame = raw
	} else {
		line.Text = strings.ToValidUTF8(string(raw), "?")
	}
	b, _ := json.Marshal(line)
	b = redact.Default.Bytes(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(append(b, '\n'))
}
