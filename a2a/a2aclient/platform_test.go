package a2aclient_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/oauth2/google"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/internal/platformtest"
)

// googleToken is an access token for the cloud-platform scope, from a
// service-account JSON whose token_uri is the loopback token server, got
// by golang.org/x/oauth2/google.
func googleToken(t *testing.T, g *platformtest.GoogleTokenServer) string {
	t.Helper()
	creds, err := google.CredentialsFromJSONWithType(context.Background(),
		g.ServiceAccountJSON(t, "shim-test@shim-proj.iam.gserviceaccount.com", "shim-proj"), google.ServiceAccount, platformtest.CloudPlatformScope)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := creds.TokenSource.Token()
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

// headerTransport adds headers to every request (the quota project
// Gemini Enterprise wants; the platform room sets it in shim) and can
// change the card the platform serves.
type headerTransport struct {
	header http.Header
	card   []func([]byte) []byte
}

// replacing changes old in a card to new.
func replacing(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || len(h.card) == 0 || !strings.HasSuffix(r.URL.Path, "/v1/card") {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	for _, f := range h.card {
		b = f(b)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return resp, nil
}

// TestGooglePlatforms: through the client, Vertex AI Agent Engine's and
// Gemini Enterprise's A2A agents (internal/platformtest: Google's front end
// checks the ProtoJSON of the 0.3 proto and transcodes it to a2a-go's 0.3
// gRPC handler) answer a streamed turn, a held one reattached to,
// cancelled and read back with its history (the user's message with it),
// and, when the card says the agent does not stream, a polled one; with CodecProtoJSON03 and with the
// codec the card chooses (0.3, HTTP+JSON), in ProtoJSON's JSON names and
// in the proto's field names. The platform refuses any body that is not
// the 0.3 proto's ProtoJSON, and any route off …/a2a/v1/.
func TestGooglePlatforms(t *testing.T) {
	tokens := platformtest.StartGoogleTokenServer(t)
	token := googleToken(t, tokens)
	cases := []struct {
		name       string
		gemini     bool
		codec      a2aclient.Codec
		protoNames bool
		// container makes the card name the container behind the
		// platform, over JSON-RPC: only the codec reaches the agent.
		container bool
	}{
		{name: "vertex codec", codec: a2aclient.CodecProtoJSON03},
		{name: "vertex codec, card of the container", codec: a2aclient.CodecProtoJSON03, container: true},
		{name: "vertex by card"},
		{name: "vertex proto names", codec: a2aclient.CodecProtoJSON03, protoNames: true},
		{name: "gemini enterprise codec", gemini: true, codec: a2aclient.CodecProtoJSON03},
		{name: "gemini enterprise proto names by card", gemini: true, protoNames: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := platformtest.GoogleOptions{Tokens: tokens, ProtoFieldNames: tc.protoNames}
			g := platformtest.StartVertex
			rt := &headerTransport{}
			if tc.gemini {
				g = platformtest.StartGeminiEnterprise
				rt.header = http.Header{"X-Goog-User-Project": {"123456789012"}}
			}
			p := g(t, opts)
			if tc.container {
				rt.card = append(rt.card, replacing(`"url":"`+p.Base+`"`, `"url":"http://0.0.0.0:8080/"`),
					replacing(`"preferredTransport":"HTTP+JSON"`, `"preferredTransport":"JSONRPC"`))
			}
			cfg := a2aclient.Config{URL: p.Base, CardURL: p.Base + "/v1/card", Token: token, Codec: tc.codec, Transport: rt}
			c := realClient(t, p.Base, cfg)
			ctx := tctx(t)
			if err := c.Probe(ctx); err != nil {
				t.Fatalf("probe: %v", err)
			}
			if card := c.KnownCard(); card.Dialect != a2a.V03 || card.Binding != a2a.BindingHTTPJSON || card.Endpoint != p.Base || !card.Streaming {
				t.Fatalf("card %+v", card)
			}
			contextID := googleStreamed(t, c)
			googleCancelled(t, c, contextID)

			// A card that does not stream: the answer is polled.
			rt.card = append(rt.card, replacing(`"streaming":true`, `"streaming":false`))
			c = realClient(t, p.Base, cfg)
			evs := turn(t, c, a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "poll me"}}})
			if c.KnownCard().Streaming {
				t.Fatal("the card still streams")
			}
			if got := answerOf(evs); got != platformtest.Answer("poll me") || lastState(evs) != a2a.StateCompleted {
				t.Errorf("polled answer %q, last state %q", got, lastState(evs))
			}

			routes := googleRoutes(t, p)
			for _, want := range []string{"GET card", "POST message:stream", "POST message:send", "GET tasks/{id}:subscribe",
				"POST tasks/{id}:cancel", "GET tasks/{id}?historyLength=1000"} {
				if !routes[want] {
					t.Errorf("no %s among %v", want, routes)
				}
			}
		})
	}
}

// turn sends m and reads its stream to the end.
func turn(t *testing.T, c *a2aclient.Client, m a2a.OutMessage) []a2a.Event {
	t.Helper()
	s, err := c.Stream(tctx(t), m)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := readAll(t, s)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// googleStreamed checks a streamed answer and returns its context.
func googleStreamed(t *testing.T, c *a2aclient.Client) string {
	t.Helper()
	evs := turn(t, c, a2a.OutMessage{Parts: []a2a.Part{{Kind: a2a.PartText, Text: "hello"}}})
	if got := answerOf(evs); got != platformtest.Answer("hello") || lastState(evs) != a2a.StateCompleted {
		t.Errorf("streamed answer %q, last state %q", got, lastState(evs))
	}
	if evs[0].Kind != a2a.EventTask || evs[0].Status.Message.Text() != "Working on it" {
		t.Errorf("first event %+v", evs[0])
	}
	return evs[0].ContextID
}

// googleCancelled starts a held task of contextID, drops its stream,
// reattaches to it, cancels it and reads it back with its history.
func googleCancelled(t *testing.T, c *a2aclient.Client, contextID string) {
	t.Helper()
	ctx := tctx(t)
	prompt := "wait " + platformtest.HoldWord
	first := dropReattachCancel(t, ctx, c, a2a.OutMessage{ContextID: contextID, Parts: []a2a.Part{{Kind: a2a.PartText, Text: prompt}}})
	task, err := c.GetTask(ctx, first.TaskID, a2a.HistoryAll)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.StateCanceled || task.ContextID != contextID || len(task.History) == 0 ||
		task.History[0].Role != "user" || task.History[0].Text() != prompt {
		t.Errorf("cancelled task %+v", task)
	}
}

// googleRoutes are the routes the platform saw under …/a2a/v1/, a task's
// id as {id}; a refused request fails the test.
func googleRoutes(t *testing.T, p *platformtest.GoogleA2A) map[string]bool {
	t.Helper()
	routes := map[string]bool{}
	prefix := strings.TrimPrefix(p.Base, p.URL) + "/v1/"
	for _, r := range p.Requests() {
		if r.Refused != "" {
			t.Errorf("the platform refused %s %s: %s", r.Method, r.Path, r.Refused)
		}
		route, _ := strings.CutPrefix(r.Path, prefix)
		if strings.HasPrefix(route, "tasks/") {
			id, action, _ := strings.Cut(strings.TrimPrefix(route, "tasks/"), ":")
			route = "tasks/{id}"
			if action != "" {
				route += ":" + action
			} else if id != "" && r.Query != "" {
				route += "?" + r.Query
			}
		}
		routes[r.Method+" "+route] = true
	}
	return routes
}
