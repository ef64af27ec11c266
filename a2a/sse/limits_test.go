package sse

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// shortLines writes n bytes of short data lines with no blank line, made
// on the fly.
func shortLines(w io.Writer, n int) {
	line := []byte("data: " + strings.Repeat("x", 26) + "\n")
	for written := 0; written < n; written += len(line) {
		if _, err := w.Write(line); err != nil {
			return
		}
	}
}

// zeros reads as an endless run of '0'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// TestSSEEventCap: an event past the limit, in short lines or in one
// long line, breaks the stream with ErrTooLarge; the buffer holding it
// never grows past the limit; an event just under it passes; comments of
// any length are skipped without being kept.
func TestSSEEventCap(t *testing.T) {
	const limit = 1 << 20
	t.Run("short lines without a blank line", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() { shortLines(pw, 8*limit); pw.Close() }()
		defer pr.Close()
		_, err := NewReader(pr, limit).Next()
		if !errors.Is(err, a2a.ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") {
			t.Fatalf("want ErrTooLarge naming the limit, got %v", err)
		}
	})
	t.Run("one long line", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, "data: ")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\n\n")
			pw.Close()
		}()
		defer pr.Close()
		if _, err := NewReader(pr, limit).Next(); !errors.Is(err, a2a.ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %v", err)
		}
	})
	t.Run("just under the limit", func(t *testing.T) {
		var b strings.Builder
		line := strings.Repeat("y", 99)
		n := 0
		for n+len(line)+1 <= limit {
			if n > 0 {
				b.WriteString("\n")
				n++
			}
			b.WriteString("data:" + line)
			n += len(line)
		}
		b.WriteString("\n\ndata: next\n\n")
		r := NewReader(strings.NewReader(b.String()), limit)
		ev, err := r.Next()
		if err != nil || len(ev.Data) != n {
			t.Fatalf("an event of %d bytes: %d bytes, %v", n, len(ev.Data), err)
		}
		if cap(ev.Data) > limit {
			t.Errorf("the event's buffer grew to %d bytes, past the %d limit", cap(ev.Data), limit)
		}
		if ev, err := r.Next(); err != nil || string(ev.Data) != "next" {
			t.Errorf("the next event: %q %v", ev.Data, err)
		}
	})
	t.Run("long comments are skipped", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, ":")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\nretry: ")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\ndata: ok\n\n")
			pw.Close()
		}()
		defer pr.Close()
		ev, err := NewReader(pr, limit).Next()
		if err != nil || string(ev.Data) != "ok" {
			t.Fatalf("got %q %v", ev.Data, err)
		}
	})
	t.Run("a long id line counts", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, "id: ")
			_, _ = io.Copy(pw, io.LimitReader(zeros{}, 4*limit))
			_, _ = io.WriteString(pw, "\ndata: x\n\n")
			pw.Close()
		}()
		defer pr.Close()
		if _, err := NewReader(pr, limit).Next(); !errors.Is(err, a2a.ErrTooLarge) {
			t.Fatalf("want ErrTooLarge, got %v", err)
		}
	})
}
