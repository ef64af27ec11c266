package main

import (
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
)

// modelValues lists the model option's values in a session/new answer.
func modelValues(t *testing.T, m map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(m["result"])
	var r struct {
		ConfigOptions []struct {
			ID      string `json:"id"`
			Options []struct {
				Value string `json:"value"`
			} `json:"options"`
		} `json:"configOptions"`
	}
	_ = json.Unmarshal(b, &r)
	for _, o := range r.ConfigOptions {
		if o.ID == "model" {
			var vals []string
			for _, v := range o.Options {
				vals = append(vals, v.Value)
			}
			return strings.Join(vals, ",")
		}
	}
	return ""
}

// TestModelsFlag: --models (and SHIM_MODELS) becomes the model picker:
// the agent's default, then each id once, in order; the flag wins over
// the variable; none, no picker.
func TestModelsFlag(t *testing.T) {
	tok := "tok-models-" + rand.Text()
	f := newFakeA2A(t, "", tok)
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"none", "", nil, ""},
		{"flag", "", []string{"--models", " gpt-x, claude-y,,gpt-x "}, "default,gpt-x,claude-y"},
		{"env", "m1,m2", nil, "default,m1,m2"},
		{"flag wins", "m1", []string{"--models", "m9"}, "default,m9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newShimEnv(t)
			if tc.env != "" {
				e.vars = append(e.vars, "SHIM_MODELS="+tc.env)
			}
			p := e.start(t, append([]string{"--url", f.url(), "--token", tok}, tc.args...)...)
			p.call(t, 1, "initialize", initParams(false))
			m := p.call(t, 2, "session/new", newSessionParams())
			if rpcErrorOf(m) != nil {
				t.Fatalf("session/new: %v\n%s", m, p.logs())
			}
			if got := modelValues(t, m); got != tc.want {
				t.Errorf("model values %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStatusNamesTheTokenSource: /status says where the token came from,
// never the token.
func TestStatusNamesTheTokenSource(t *testing.T) {
	tok := "tok-status-" + rand.Text()
	f := newFakeA2A(t, "", tok)
	e := newShimEnv(t)
	p := e.start(t, "--url", f.url(), "--token", tok)
	p.call(t, 1, "initialize", initParams(false))
	m := p.call(t, 2, "session/new", newSessionParams())
	b, _ := json.Marshal(m["result"])
	var r struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(b, &r)
	res := p.call(t, 3, "session/prompt", map[string]any{"sessionId": r.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "/status"}}})
	if rpcErrorOf(res) != nil {
		t.Fatalf("/status: %v", res)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var text strings.Builder
	for _, n := range p.seen {
		b, _ := json.Marshal(n)
		text.Write(b)
	}
	if !strings.Contains(text.String(), "Credentials: --token") {
		t.Errorf("status: %s", text.String())
	}
	for _, l := range p.lines {
		if strings.Contains(string(l), tok) {
			t.Errorf("the token reached stdout: %s", l)
		}
	}
}
