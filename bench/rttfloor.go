package main

// The round-trip table's floor: a bare Go client (net/http, nothing else)
// making only the minimum's requests through the same proxy, in the same
// run, so that what the machine and the proxy add to a round trip (a
// sleep's wake-up, the server, the loopback) is seen apart from what shim
// adds. Its requests are not in the request log's phases.

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// floorSuffix names a phase's floor row.
const floorSuffix = ", a bare client"

// floorPhases are the phases the bare client measures.
var floorPhases = []string{phNewFirst, phNewAgain, phSecond}

// floor measures the bare client once at the rig's RTT: a first launch
// (the card on a new connection, then the probe on it), a relaunch (the
// probe on a new connection) and a warm request (a prompt's one RTT).
func (r *rttRig) floor() (map[string]time.Duration, error) {
	var roots *x509.CertPool
	if r.tls {
		pem, err := os.ReadFile(r.caFile)
		if err != nil {
			return nil, err
		}
		roots = x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
	}
	client := func() (*http.Client, func()) {
		t := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: roots}}
		return &http.Client{Transport: t, Timeout: time.Minute}, t.CloseIdleConnections
	}
	probe := []byte(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"bench-floor"}}`)
	do := func(c *http.Client, method, path string, body []byte) error {
		req, err := http.NewRequest(method, r.url+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		if err == nil && resp.StatusCode >= 300 {
			err = fmt.Errorf("%s %s: %s", method, path, resp.Status)
		}
		return err
	}
	out := map[string]time.Duration{}
	first, closeFirst := client()
	defer closeFirst()
	start := time.Now()
	if err := do(first, http.MethodGet, "/.well-known/agent-card.json", nil); err != nil {
		return nil, err
	}
	if err := do(first, http.MethodPost, "/a2a", probe); err != nil {
		return nil, err
	}
	out[phNewFirst] = time.Since(start)
	start = time.Now()
	if err := do(first, http.MethodPost, "/a2a", probe); err != nil {
		return nil, err
	}
	out[phSecond] = time.Since(start)
	again, closeAgain := client()
	defer closeAgain()
	start = time.Now()
	if err := do(again, http.MethodPost, "/a2a", probe); err != nil {
		return nil, err
	}
	out[phNewAgain] = time.Since(start)
	return out, nil
}

// floorRows are the table's rows of the bare client: each phase's median
// at each RTT.
func floorRows(mode string, withTLS bool, floors map[time.Duration][]map[string]time.Duration) []string {
	var rows []string
	for _, ph := range tablePhases {
		if !slices.Contains(floorPhases, ph.name) {
			continue
		}
		minimum := ph.plain
		if withTLS {
			minimum = ph.withTLS
		}
		cells := append([]string{ph.name + floorSuffix, mode}, rttCells(func(rtt time.Duration) []time.Duration {
			var ds []time.Duration
			for _, f := range floors[rtt] {
				ds = append(ds, f[ph.name])
			}
			return ds
		})...)
		cells = append(cells, fmt.Sprint(minimum), "the minimum's alone", "")
		rows = append(rows, "| "+strings.Join(cells, " | ")+" |")
	}
	return rows
}
