package main

// The raw reader: the same SSE stream read by the least a client can do
// (bufio line scanning over Go's HTTP transport, no JSON decoding). It is
// the physical limit shim's throughput and latency are compared with.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/shimdev/shim/bench/internal/benchagent"
)

var artifactKey = []byte(`"artifactUpdate"`)

// rawStream posts a SendStreamingMessage asking for spec and calls onChunk
// (on this goroutine) for every artifact frame's data line, with the time
// it was read.
func rawStream(base string, ctxID string, spec benchagent.Spec, onChunk func(line []byte, at time.Duration)) error {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
		"params": map[string]any{"message": map[string]any{
			"messageId": "raw-" + ctxID, "role": "ROLE_USER", "contextId": ctxID,
			"parts": []map[string]any{{"text": spec.Prompt()}},
		}},
	})
	req, err := http.NewRequest(http.MethodPost, base+"/a2a", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("raw stream: HTTP %d", resp.StatusCode)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if bytes.HasPrefix(line, []byte("data:")) && bytes.Contains(line[:min(len(line), 96)], artifactKey) {
			onChunk(line, now())
		}
		if err != nil {
			return nil
		}
	}
}

// now is the wall clock in nanoseconds: the server, the raw reader and the
// ACP client run in different processes and compare stamps.
func now() time.Duration { return time.Duration(time.Now().UnixNano()) }

// rawread is `bench rawread`: the raw reader in a process of its own (as
// shim is), reporting on stdout either "count first last" (rate) or one
// latency in ns per chunk (lat).
func rawread(args []string) error {
	fs := flag.NewFlagSet("rawread", flag.ContinueOnError)
	base := fs.String("url", "", "server base URL")
	ctxID := fs.String("ctx", "raw", "context id")
	prompt := fs.String("spec", "", "the stream spec (bench:…)")
	mode := fs.String("mode", "rate", "rate or lat")
	if err := fs.Parse(args); err != nil {
		return err
	}
	spec, ok := benchagent.ParseSpec(*prompt)
	if !ok {
		return fmt.Errorf("bad spec %q", *prompt)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var first, last time.Duration
	count := 0
	var lat []time.Duration
	err := rawStream(*base, *ctxID, spec, func(line []byte, at time.Duration) {
		if count == 0 {
			first = at
		}
		count++
		last = at
		if *mode == "lat" {
			if ts, ok := stampOf(line); ok {
				lat = append(lat, at-ts)
			}
		}
	})
	if err != nil {
		return err
	}
	if *mode == "lat" {
		for _, d := range lat {
			fmt.Fprintln(out, int64(d))
		}
		return nil
	}
	fmt.Fprintln(out, count, int64(first), int64(last))
	return nil
}
