package platformtest

import (
	"net/http"
	"testing"
	"time"
)

const testSNKey = "now_0123456789abcdef"

// snCall posts one JSON-RPC request with the API key.
func snCall(t *testing.T, sn *ServiceNow, method string, params any) map[string]any {
	t.Helper()
	req := newRequest(t, http.MethodPost, sn.Endpoint(), rpcBody(t, method, params))
	req.Header.Set(ServiceNowAPIKeyHeader, testSNKey)
	res, body := send(t, nil, req)
	if res.StatusCode != 200 {
		t.Fatalf("%s: %d %s", method, res.StatusCode, body)
	}
	return decode(t, body)
}

// TestServiceNowCards: with an API key, the card (and the legacy one)
// names the JSON-RPC endpoint, says it does not stream, and offers the
// API key header and bearer tokens.
func TestServiceNowCards(t *testing.T) {
	sn := StartServiceNow(t, ServiceNowOptions{APIKeys: []string{testSNKey}})
	for _, u := range []string{sn.CardURL(), sn.LegacyCardURL()} {
		req := newRequest(t, http.MethodGet, u, nil)
		req.Header.Set(ServiceNowAPIKeyHeader, testSNKey)
		res, body := send(t, nil, req)
		card := decode(t, body)
		if res.StatusCode != 200 || card["url"] != sn.Endpoint() || field(card, "capabilities", "streaming") == true ||
			field(card, "securitySchemes", "apiKey", "name") != ServiceNowAPIKeyHeader || field(card, "securitySchemes", "apiKey", "in") != "header" ||
			field(card, "securitySchemes", "oauth", "scheme") != "bearer" {
			t.Fatalf("%s: %d %s", u, res.StatusCode, body)
		}
	}
}

// TestServiceNowPolledAnswer: a non-blocking message/send answers a
// working task, still working at the polls before PollsToFinish; tasks/get
// polls then reach the completed task and its answer.
func TestServiceNowPolledAnswer(t *testing.T) {
	sn := StartServiceNow(t, ServiceNowOptions{APIKeys: []string{testSNKey}, PollsToFinish: 3})
	task := field(snCall(t, sn, "message/send", map[string]any{"message": msg03("poll me"),
		"configuration": map[string]any{"blocking": false}}), "result")
	id, _ := field(task, "id").(string)
	if field(task, "status", "state") != "working" || id == "" {
		t.Fatalf("non-blocking send answered %v", task)
	}
	deadline := time.Now().Add(10 * time.Second)
	var got any
	for polls := 1; ; polls++ {
		got = field(snCall(t, sn, "tasks/get", map[string]any{"id": id}), "result")
		if field(got, "status", "state") == "completed" {
			if polls < 3 {
				t.Fatalf("completed at poll %d, before the third", polls)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %v after %d polls", field(got, "status", "state"), polls)
		}
		time.Sleep(10 * time.Millisecond)
	}
	arts, _ := field(got, "artifacts").([]any)
	if len(arts) != 1 || partsText(field(arts[0], "parts")) != Answer("poll me") {
		t.Errorf("answer %v", got)
	}
}

// TestServiceNowBlockingAndCancel: a blocking send answers the completed
// task at once; a held task is canceled and reads back canceled; a bearer
// token works as well as the API key.
func TestServiceNowBlockingAndCancel(t *testing.T) {
	sn := StartServiceNow(t, ServiceNowOptions{APIKeys: []string{testSNKey}, Tokens: []string{"oauth-token-1"}})
	res := field(snCall(t, sn, "message/send", map[string]any{"message": msg03("now"), "configuration": map[string]any{"blocking": true}}), "result")
	if field(res, "status", "state") != "completed" {
		t.Fatalf("blocking send %v", res)
	}
	task := field(snCall(t, sn, "message/send", map[string]any{"message": msg03(HoldWord),
		"configuration": map[string]any{"blocking": false}}), "result")
	id, _ := field(task, "id").(string)
	if st := field(snCall(t, sn, "tasks/cancel", map[string]any{"id": id}), "result", "status", "state"); st != "canceled" {
		t.Fatalf("cancel: %v", st)
	}
	if st := field(snCall(t, sn, "tasks/get", map[string]any{"id": id}), "result", "status", "state"); st != "canceled" {
		t.Fatalf("get after cancel: %v", st)
	}
	req := newRequest(t, http.MethodGet, sn.CardURL(), nil)
	req.Header.Set("Authorization", "Bearer oauth-token-1")
	if res, body := send(t, nil, req); res.StatusCode != 200 {
		t.Fatalf("bearer: %d %s", res.StatusCode, body)
	}
}

// TestServiceNowRefusals: an anonymous card, another key or token, a
// streamed request and another path are refused.
func TestServiceNowRefusals(t *testing.T) {
	sn := StartServiceNow(t, ServiceNowOptions{APIKeys: []string{testSNKey}, Tokens: []string{"tok"}})
	for name, edit := range map[string]func(r *http.Request){
		"anonymous":     func(*http.Request) {},
		"another key":   func(r *http.Request) { r.Header.Set(ServiceNowAPIKeyHeader, "now_other") },
		"another token": func(r *http.Request) { r.Header.Set("Authorization", "Bearer other") },
	} {
		req := newRequest(t, http.MethodGet, sn.CardURL(), nil)
		edit(req)
		res, body := send(t, nil, req)
		if res.StatusCode != 401 || field(decode(t, body), "error", "message") != "User Not Authenticated" {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}
	if code := field(snCall(t, sn, "message/stream", map[string]any{"message": msg03("x")}), "error", "code"); code != float64(-32004) {
		t.Errorf("message/stream: %v", code)
	}
	req := newRequest(t, http.MethodGet, sn.URL+"/api/sn_aia/a2a/v2/agent_card/id/other", nil)
	req.Header.Set(ServiceNowAPIKeyHeader, testSNKey)
	if res, _ := send(t, nil, req); res.StatusCode != 400 {
		t.Errorf("another agent's card: %d", res.StatusCode)
	}
	for _, s := range sn.Requests() {
		if s.Refused == "" && s.Status != 200 {
			t.Errorf("refused without a reason: %+v", s)
		}
	}
}
