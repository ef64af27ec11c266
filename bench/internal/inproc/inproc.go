// Package inproc is `bench inproc`: a stand-in for the shim binary that runs the same bridge
// (bridge.Serve on stdin/stdout, with the a2a client built as
// cmd/shim/serve.go builds it) and writes CPU and heap profiles. The bench
// spawns it in place of shim to find what limits a figure; cmd/shim is
// left untouched. What it lacks next to the real binary: the CLI's flag
// parsing, the keyring lookup and the token redactor on stdout.
//
// Goroutines: bridge.Serve's own; with -stdout async one writer goroutine
// (asyncWriter, its lock over the queue); with -peakprofile one polling
// the resident memory.
package inproc

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/shimdev/shim/bench/internal/procfs"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/bridge"
	"github.com/shimdev/shim/threads"
)

// Main is `bench inproc`: it serves ACP on stdin/stdout as shim does, with
// the profiles args ask for.
func Main(args []string) error {
	fs := flag.NewFlagSet("inproc", flag.ContinueOnError)
	url := fs.String("url", "", "agent base URL")
	token := fs.String("token", "", "bearer token")
	stateDir := fs.String("state-dir", "", "thread index directory")
	cpu := fs.String("cpuprofile", "", "write a CPU profile here")
	mem := fs.String("memprofile", "", "write an allocation profile here at exit")
	level := fs.String("log-level", "error", "debug, info, warn or error")
	stdout := fs.String("stdout", "direct", "direct: every message is one write(2), as shim does; "+
		"async: messages are queued and a writer goroutine writes what queued up in one write(2) (a proposal)")
	peak := fs.String("peakprofile", "", "write the in-use heap profile and memory stats at the peak RSS here")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *peak != "" {
		runtime.MemProfileRate = 64 << 10
		stop := watchPeak(*peak)
		defer stop()
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if *mem != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*mem)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return
			}
			defer f.Close()
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
		}()
	}
	key, err := credentials.Normalize(*url, "")
	if err != nil {
		return err
	}
	opts := bridge.Options{
		Version:    "bench",
		Executable: "shim",
		SteerGrace: 1500 * time.Millisecond,
		ServerKey:  key,
		Index:      threads.Open(*stateDir, log),
		Log:        log,
		Connect: func() (*a2aclient.Client, error) {
			return a2aclient.New(a2aclient.Config{URL: *url, Token: *token, Version: "auto", Stall: 90 * time.Second,
				UserAgent: "shim/bench", Log: log})
		},
	}
	var out io.Writer = os.Stdout
	if *stdout == "async" {
		a := newAsyncWriter(os.Stdout)
		defer a.Close()
		out = a
	}
	return bridge.Serve(context.Background(), os.Stdin, out, opts)
}

// asyncWriter queues writes and lets one goroutine write whatever queued
// up while the previous write(2) ran: the producer never waits for the
// pipe, and a burst of messages leaves in one system call. (A proposal for
// bridge/stdio.go; measured here through the stand-in.)
type asyncWriter struct {
	mu      sync.Mutex
	buf     []byte
	spare   []byte
	w       io.Writer
	wake    chan struct{}
	done    chan struct{}
	closing bool
	err     error
}

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go a.loop()
	return a
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closing {
		return 0, io.ErrClosedPipe
	}
	if a.err != nil {
		return 0, a.err
	}
	a.buf = append(a.buf, p...)
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (a *asyncWriter) loop() {
	defer close(a.done)
	for {
		_, ok := <-a.wake
		a.flush()
		if !ok {
			return
		}
	}
}

// flush writes until nothing is queued.
func (a *asyncWriter) flush() {
	for {
		a.mu.Lock()
		if len(a.buf) == 0 {
			a.mu.Unlock()
			return
		}
		batch := a.buf
		a.buf = a.spare[:0]
		a.mu.Unlock()
		_, err := a.w.Write(batch)
		a.mu.Lock()
		a.spare = batch
		if err != nil && a.err == nil {
			a.err = err
		}
		a.mu.Unlock()
	}
}

// Close writes what is queued and stops the writer.
func (a *asyncWriter) Close() error {
	a.mu.Lock()
	if !a.closing {
		a.closing = true
		close(a.wake)
	}
	a.mu.Unlock()
	<-a.done
	return a.err
}

// watchPeak polls VmRSS every 20 ms; each time it passes its previous
// maximum by 16 MiB it writes the in-use heap profile (path) and the
// runtime's memory stats (path + ".txt"), so that what is left describes
// the peak: live objects versus garbage the GC has not yet returned.
func watchPeak(path string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var max int64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			rss, err := procfs.Status(os.Getpid(), "VmRSS")
			if err != nil || rss < max+16<<10 {
				continue
			}
			max = rss
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			_ = os.WriteFile(path+".txt", []byte(fmt.Sprintf(
				"VmRSS %d KiB\nHeapAlloc %d MiB (live and not yet swept)\nHeapInuse %d MiB\nHeapIdle %d MiB\nHeapReleased %d MiB\nHeapSys %d MiB\nNextGC %d MiB\nNumGC %d\n",
				rss, m.HeapAlloc>>20, m.HeapInuse>>20, m.HeapIdle>>20, m.HeapReleased>>20, m.HeapSys>>20, m.NextGC>>20, m.NumGC)), 0o644)
		}
	}()
	return func() { close(done); <-finished }
}
