package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// trustOnTerminal runs `shim login --url URL --trust-new-key` on a
// terminal, answers the question with answer, and returns its exit code
// and stderr.
func trustOnTerminal(t *testing.T, e *shimEnv, url, answer string) (int, string) {
	t.Helper()
	master, tty := openPTY(t)
	bin, argv, env := e.command([]string{"login", "--url", url, "--trust-new-key"})
	cmd := exec.Command(bin, argv...)
	cmd.Env, cmd.Stdin = env, tty
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The URL it asks for first (the --url given is offered), then the key.
	for _, q := range []struct{ prompt, answer string }{{"Agent URL [", ""}, {"[y/N]: ", answer}} {
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(errb.String(), q.prompt) {
			select {
			case err := <-done:
				t.Fatalf("ended before asking %q (%v):\n%s", q.prompt, err, errb.String())
			case <-time.After(10 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("not asked %q:\n%s", q.prompt, errb.String())
			}
		}
		if _, err := master.WriteString(q.answer + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("did not end:\n%s", errb.String())
	}
	return cmd.ProcessState.ExitCode(), errb.String()
}

// TestTrustNewKeyOnTerminal: on a terminal, `shim login --trust-new-key`
// shows both keys and asks; no changes nothing, yes pins the new key (the
// card is then used), and for a card no longer signed yes forgets the pin.
func TestTrustNewKeyOnTerminal(t *testing.T) {
	a, b := newCardKey(t, "key-a"), newCardKey(t, "key-b")
	f := newFakeA2A(t, "", signedToken)
	e := newShimEnv(t)
	card := fakeCard(f, "Signer", false)
	pins := pinWith(t, e, f, signCard(t, card, a, cardSig{jwk: true}))
	f.set(func(f *fakeA2A) { f.cardJSON = signCard(t, card, b, cardSig{jwk: true}) })
	code, out := trustOnTerminal(t, e, f.url(), "n")
	if code != 1 || !strings.Contains(out, "Pinned key: "+a.thumb(t)) || !strings.Contains(out, "New key:    "+b.thumb(t)) {
		t.Errorf("answered no: exit %d\n%s", code, out)
	}
	if !bytes.Equal(e.knownAgents(t), pins) {
		t.Error("answered no, and known_agents.json changed")
	}
	code, out = trustOnTerminal(t, e, f.url(), "y")
	if code != 0 || !strings.Contains(out, "Pinned key "+b.thumb(t)) {
		t.Errorf("answered yes: exit %d\n%s", code, out)
	}
	if got := e.knownAgents(t); !bytes.Contains(got, []byte(b.thumb(t))) || bytes.Contains(got, []byte(a.thumb(t))) {
		t.Errorf("known_agents.json after yes: %s", got)
	}
	if r := e.run(t, "", "--url", f.url(), "--token", signedToken, "doctor"); r.code != 0 ||
		!strings.HasPrefix(doctorRows(t, r.stdout)["card signature"], "ok verified (ES256, key "+b.thumb(t)) {
		t.Errorf("doctor after the new key is trusted: exit %d\n%s", r.code, r.stdout)
	}
	f.set(func(f *fakeA2A) { f.cardJSON = unsignedCard(t, card) })
	code, out = trustOnTerminal(t, e, f.url(), "yes")
	if code != 0 || !strings.Contains(out, "Forgot the key pinned for") {
		t.Errorf("unsigned, answered yes: exit %d\n%s", code, out)
	}
	if got := e.knownAgents(t); bytes.Contains(got, []byte(b.thumb(t))) {
		t.Errorf("known_agents.json still pins the key: %s", got)
	}
}
