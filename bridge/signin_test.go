package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth"
	"github.com/shimdev/shim/internal/acptest"
	"github.com/shimdev/shim/internal/oidctest"
)

// deviceSignIn is a sign-in from the editor against a real OpenID
// provider: a2a/auth's device-code flow, the token it gives kept as
// stored.
type deviceSignIn struct {
	o      *oidctest.OP
	mu     sync.Mutex
	runs   int
	stored string
}

func (d *deviceSignIn) options(agent string) *SignIn {
	scheme := &a2a.Scheme{Name: "corp", Kind: a2a.SchemeOpenIDConnect, MetadataURL: d.o.DiscoveryURL()}
	return &SignIn{
		Offer: func() (string, bool) { return agent, true },
		Run: func(ctx context.Context, page func(url, code string)) error {
			d.mu.Lock()
			d.runs++
			d.mu.Unlock()
			l := &auth.OAuthLogin{ClientID: oidctest.DeviceClient, ClientSecret: oidctest.DeviceSecret,
				DeviceCode: func(uri, complete, code string) { page(cmp.Or(complete, uri), code) }}
			plan, err := l.Plan(ctx, scheme)
			if err != nil {
				return err
			}
			tok, err := l.Run(ctx, plan)
			if err != nil {
				return err
			}
			d.mu.Lock()
			d.stored = tok.AccessToken
			d.mu.Unlock()
			return nil
		},
	}
}

func (d *deviceSignIn) result() (runs int, stored string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.runs, d.stored
}

// urlPage is the person at the editor: each URL elicitation is answered by
// answer (given its params), after the test's checks.
type urlPage struct {
	mu     sync.Mutex
	params []map[string]any
	answer func(p map[string]any) (any, *acptest.RPCError)
}

func (u *urlPage) handler(method string, params json.RawMessage) (any, *acptest.RPCError) {
	if method != "elicitation/create" {
		return nil, &acptest.RPCError{Code: -32601, Message: "no"}
	}
	var p map[string]any
	_ = json.Unmarshal(params, &p)
	u.mu.Lock()
	u.params = append(u.params, p)
	answer := u.answer
	u.mu.Unlock()
	return answer(p)
}

var codeRE = regexp.MustCompile(`enter the code (\S+) there`)

// codeOf is the user code an elicitation's message shows.
func codeOf(p map[string]any) string {
	msg, _ := p["message"].(string)
	if m := codeRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// urlCaps is a client that opens pages (and runs terminal sign-ins).
var urlCaps = map[string]any{"elicitation": map[string]any{"url": map[string]any{}}, "auth": map[string]any{"terminal": true}}

// messagesOf are the messages shim wrote with method.
func messagesOf(s *testShim, method string) []acptest.Message {
	var out []acptest.Message
	for _, m := range s.Messages() {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// TestSignInFromEditor: with a sign-in to offer, initialize names it
// ("Sign in to <agent>", an agent method) beside the stored credentials
// and the terminal sign-in (typed: the client has auth.terminal).
// authenticate with it runs the device-code flow at a real OpenID
// provider, shows the page and code as one URL elicitation tied to the
// authenticate request, completes it once the flow ended, and answers {};
// no form is asked, nothing is withdrawn, no secret reaches the editor or
// the log.
func TestSignInFromEditor(t *testing.T) {
	o := oidctest.New(t)
	d := &deviceSignIn{o: o}
	page := &urlPage{answer: func(p map[string]any) (any, *acptest.RPCError) {
		if err := o.Approve(codeOf(p)); err != nil {
			t.Errorf("approve %q: %v", codeOf(p), err)
		}
		return map[string]any{"action": "accept"}, nil
	}}
	f := newFake(t)
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SignIn = d.options("Corp Agent") }, page.handler)
	methods := authMethods(t, s, urlCaps)
	var ids []string
	for _, m := range methods {
		ids = append(ids, m["id"].(string))
	}
	if !slices.Equal(ids, []string{"shim-credentials", "shim-login", "shim-oauth"}) || methods[1]["type"] != "terminal" ||
		methods[2]["name"] != "Sign in to Corp Agent" || methods[2]["type"] != nil {
		t.Fatalf("auth methods %v", methods)
	}
	ch, reqID := s.Start("authenticate", map[string]any{"methodId": "shim-oauth"})
	if m := s.Wait(ch, "authenticate"); m.Error != nil || string(m.Result) != "{}" {
		t.Fatalf("authenticate: %+v %s\n%s", m.Error, m.Result, s.logs.String())
	}
	runs, stored := d.result()
	if runs != 1 || !o.Valid(stored) {
		t.Fatalf("runs %d, stored a token the provider takes: %v", runs, o.Valid(stored))
	}
	checkSignInPage(t, s, page, o, reqID)
	checkNoSecret(t, s, stored)
}

// checkSignInPage: one URL elicitation tied to the authenticate request
// reqID showed the provider's page and code, was completed, and nothing
// was withdrawn.
func checkSignInPage(t *testing.T, s *testShim, page *urlPage, o *oidctest.OP, reqID string) {
	t.Helper()
	asked := messagesOf(s, "elicitation/create")
	if len(asked) != 1 {
		t.Fatalf("%d elicitations", len(asked))
	}
	p := page.params[0]
	if p["mode"] != "url" || !strings.HasPrefix(p["url"].(string), o.Issuer+"/device") || p["elicitationId"] == "" ||
		mustJSON(t, p["requestId"]) != reqID || codeOf(p) == "" || p["sessionId"] != nil {
		t.Fatalf("elicitation %v (authenticate id %s)", p, reqID)
	}
	done := messagesOf(s, "elicitation/complete")
	var c struct {
		ElicitationID string `json:"elicitationId"`
	}
	if len(done) != 1 || json.Unmarshal(done[0].Params, &c) != nil || c.ElicitationID != p["elicitationId"] {
		t.Fatalf("elicitation/complete: %v", done)
	}
	if got := withdrawn(s); len(got) != 0 {
		t.Errorf("withdrawn %v", got)
	}
}

// checkNoSecret: neither the stored token nor the device flow's secret reached
// the editor or the log.
func checkNoSecret(t *testing.T, s *testShim, stored string) {
	t.Helper()
	var out strings.Builder
	for _, m := range s.Messages() {
		out.Write(m.Raw)
	}
	for _, secret := range []string{stored, oidctest.DeviceSecret} {
		if strings.Contains(out.String(), secret) || s.logged(secret) {
			t.Errorf("a secret reached the editor or the log")
		}
	}
}

// TestSignInNeedsURLElicitation: a client that advertised no URL
// elicitation is offered the same methods as before plus the sign-in (an
// agent method every v1 client reads), the terminal one in its legacy
// form; authenticate with the sign-in answers -32000 telling to run
// `shim login`, runs no flow and opens nothing.
func TestSignInNeedsURLElicitation(t *testing.T) {
	d := &deviceSignIn{o: oidctest.New(t)}
	f := newFake(t)
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SignIn = d.options("Corp Agent") }, nil)
	methods := authMethods(t, s, map[string]any{})
	if len(methods) != 3 || methods[1]["type"] != nil || methods[1]["_meta"] == nil || methods[2]["id"] != "shim-oauth" {
		t.Fatalf("auth methods %v", methods)
	}
	m := s.Call("authenticate", map[string]any{"methodId": "shim-oauth"})
	if m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, "shim login") {
		t.Fatalf("authenticate: %+v", m.Error)
	}
	if runs, _ := d.result(); runs != 0 {
		t.Errorf("%d flows run", runs)
	}
	if n := len(messagesOf(s, "elicitation/create")); n != 0 {
		t.Errorf("%d elicitations", n)
	}
}

// TestSignInNotOffered: without a sign-in to offer, initialize offers the
// two methods of before and authenticate with the sign-in's id is -32602.
func TestSignInNotOffered(t *testing.T) {
	d := &deviceSignIn{o: oidctest.New(t)}
	si := d.options("Corp Agent")
	si.Offer = func() (string, bool) { return "", false }
	f := newFake(t)
	s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SignIn = si }, nil)
	if methods := authMethods(t, s, urlCaps); len(methods) != 2 {
		t.Fatalf("auth methods %v", methods)
	}
	if m := s.Call("authenticate", map[string]any{"methodId": "shim-oauth"}); m.Error == nil || m.Error.Code != -32602 {
		t.Fatalf("authenticate: %+v", m.Error)
	}
	if runs, _ := d.result(); runs != 0 {
		t.Errorf("%d flows run", runs)
	}
}

// TestSignInEndsWithoutSignIn: a sign-in the person declines in the
// editor, one the provider denies, and one the client cancels
// ($/cancel_request of authenticate) each withdraw the page
// ($/cancel_request naming the elicitation), send no
// elicitation/complete and store nothing; the first two answer -32000,
// the cancelled one -32800.
func TestSignInEndsWithoutSignIn(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int
		word string
	}{{"declined", -32000, "not opened"}, {"denied", -32000, "denied"}, {"cancelled", -32800, "request cancelled"}} {
		t.Run(tc.name, func(t *testing.T) {
			o := oidctest.New(t)
			d := &deviceSignIn{o: o}
			opened := make(chan struct{}, 1)
			page := &urlPage{answer: func(p map[string]any) (any, *acptest.RPCError) {
				switch tc.name {
				case "declined":
					return map[string]any{"action": "decline"}, nil
				case "denied":
					if err := o.Storage.DenyDeviceAuthorization(context.Background(), codeOf(p)); err != nil {
						t.Error(err)
					}
				}
				opened <- struct{}{}
				return map[string]any{"action": "accept"}, nil
			}}
			f := newFake(t)
			s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) { o.SignIn = d.options("Corp Agent") }, page.handler)
			s.initWith(t, urlCaps)
			ch, reqID := s.Start("authenticate", map[string]any{"methodId": "shim-oauth"})
			if tc.name == "cancelled" {
				<-opened
				s.cancelRequest(t, reqID)
			}
			m := s.Wait(ch, "authenticate")
			if m.Error == nil || m.Error.Code != int(tc.code) || !strings.Contains(m.Error.Message, tc.word) {
				t.Fatalf("authenticate: %+v", m.Error)
			}
			asked := requestIDs(s, "elicitation/create")
			if got := waitWithdrawn(t, s, 1); len(asked) != 1 || !slices.Equal(got, asked) {
				t.Fatalf("asked %v, withdrew %v", asked, got)
			}
			if n := len(messagesOf(s, "elicitation/complete")); n != 0 {
				t.Errorf("%d elicitation/complete", n)
			}
			if _, stored := d.result(); stored != "" {
				t.Error("a sign-in that ended without one stored a token")
			}
		})
	}
}
