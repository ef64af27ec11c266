package bridge

// Sign-in: the auth methods initialize offers, authenticate, logout, and
// signing in from the editor.
//
// Signing in from the editor (SPEC §14): an agent method "Sign in to
// <agent>" offered when the stored credential is an OAuth sign-in or a
// client id is configured; authenticate with it runs the OAuth flow the
// card offers (Options.SignIn.Run: device code, else PKCE) and shows its
// page and code through a URL elicitation scoped to the authenticate
// request, completed once the flow ends, withdrawn when it fails or is
// cancelled. A client that cannot show a URL is told to run `shim login`.
// No form ever asks for a secret.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
	"github.com/shimdev/shim/bridge/editor"
	"github.com/shimdev/shim/bridge/remote"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/termsafe"
)

// signInMethod is the id of the agent auth method that signs in from the
// editor.
const signInMethod = "shim-oauth"

// SignIn is signing in from the editor.
type SignIn struct {
	// Offer reports whether to offer the sign-in, and the agent's name
	// as the method names it. It reads only what is stored locally:
	// initialize calls it.
	Offer func() (agent string, ok bool)
	// Run signs in and stores what the flow gives, as `shim login` does.
	// It calls page, once the flow knows it, with the page the person
	// opens and the code they enter there ("" when none); it ends with
	// ctx.
	Run func(ctx context.Context, page func(url, code string)) error
}

// access is who may talk to the agent: the auth methods offered,
// authenticate, logout, and signing in from the editor.
type access struct {
	out    *out
	editor *editor.Editor
	agent  *remote.Agent
	log    *slog.Logger
	// executable is the absolute path of the running binary (terminal
	// auth); signIn signs in from the editor (nil: no such method); forget
	// forgets the stored token (logout).
	executable string
	signIn     *SignIn
	forget     func() error
}

// methods are the auth methods initialize offers; terminal: the client
// runs `shim login` itself (terminal auth).
func (a *access) methods(terminal bool) []acp.AuthMethod {
	methods := []acp.AuthMethod{
		{ID: "shim-credentials", Name: "Stored credentials",
			Description: "Use the agent URL and token saved by `shim login` (or given with --url and --token), and check them against the server."},
	}
	if terminal {
		methods = append(methods, acp.AuthMethod{Type: "terminal", ID: "shim-login",
			Name: "Sign in with shim login", Description: "Enter the agent URL and its bearer token once; shim stores them for later launches.",
			Args: []string{"login"}})
	} else {
		methods = append(methods, acp.AuthMethod{ID: "shim-login", Name: "Sign in with shim login",
			Description: "Run `shim login` in a terminal: enter the agent URL and its bearer token once; shim stores them for later launches.",
			Meta: &acp.AuthMeta{TerminalAuth: acp.TerminalAuth{
				Label: "shim login", Command: a.executable, Args: []string{"login"}, Env: map[string]string{},
			}}})
	}
	if m, ok := a.offer(); ok {
		methods = append(methods, m)
	}
	return methods
}

func (a *access) authenticate(ctx context.Context, req *acp.Request, p *acp.AuthenticateParams) (any, error) {
	switch p.MethodID {
	case "shim-credentials":
		if err := a.agent.Reprobe(ctx); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "shim-login":
		return nil, acp.AuthRequired("run `shim login` in a terminal to store the agent URL and token, then try again")
	case signInMethod:
		return a.signInHere(ctx, req)
	}
	return nil, acp.NewError(acp.CodeInvalidParams, fmt.Sprintf("Invalid params: unknown auth method %q", p.MethodID), nil)
}

func (a *access) logout() (any, error) {
	if a.forget != nil {
		if err := a.forget(); err != nil {
			return nil, acp.NewError(acp.CodeInternal, "logout failed: "+err.Error(), nil)
		}
	}
	a.agent.Forget()
	return struct{}{}, nil
}

// offer is the sign-in method to offer, if any.
func (a *access) offer() (acp.AuthMethod, bool) {
	si := a.signIn
	if si == nil || si.Offer == nil || si.Run == nil {
		return acp.AuthMethod{}, false
	}
	agent, ok := si.Offer()
	if !ok {
		return acp.AuthMethod{}, false
	}
	// The agent's name as its card gave it: shim's words hold it on one
	// line, without control characters or bidirectional overrides (§15).
	if agent = strings.TrimSpace(termsafe.Line(agent)); agent == "" {
		agent = "the agent"
	}
	return acp.AuthMethod{ID: signInMethod, Name: "Sign in to " + agent,
		Description: "Sign in with your account at " + agent + "'s sign-in page, opened from the editor; shim stores the sign-in as `shim login` does."}, true
}

// errDeclined is why a sign-in ended when the person did not open its
// page.
var errDeclined = errors.New("the sign-in page was not opened in the editor")

// signInHere answers authenticate with the sign-in method.
func (a *access) signInHere(ctx context.Context, req *acp.Request) (any, error) {
	m, ok := a.offer()
	if !ok {
		return nil, acp.InvalidParams(fmt.Sprintf("unknown auth method %q", signInMethod))
	}
	if !a.editor.ShowsURL() {
		return nil, acp.AuthRequired("this editor cannot open a sign-in page for shim (it offers no URL elicitation): " +
			"run `shim login` in a terminal to sign in, then choose the stored credentials")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &signInPage{out: a.out, req: req, what: m.Name, cancel: cancel}
	err := a.signIn.Run(ctx, p.show)
	if err != nil {
		p.withdraw()
		if errors.Is(context.Cause(ctx), errDeclined) {
			return nil, acp.AuthRequired(m.Name + ": " + errDeclined.Error() + "; nothing was stored")
		}
		return nil, acp.AuthRequired(fmt.Sprintf("%s: %v. Try again, or run `shim login` in a terminal", m.Name, err))
	}
	p.complete()
	a.log.Info("signed in from the editor", "method", signInMethod)
	if err := a.agent.Reprobe(ctx); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// signInPage is the editor's view of one sign-in's page: the URL
// elicitation, once the flow shows it.
type signInPage struct {
	out    *out
	req    *acp.Request
	what   string
	cancel context.CancelCauseFunc

	mu sync.Mutex
	o  *stdio.Outgoing
	id string
}

// show asks the editor to open the page (once): an elicitation/create in
// URL mode tied to the authenticate request. The person not opening it,
// or the editor failing it, ends the sign-in.
func (p *signInPage) show(url, code string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o != nil {
		return
	}
	msg := p.what + ": open the page and sign in there; shim finishes the sign-in when the page says so."
	if code != "" {
		msg = p.what + ": open the page and enter the code " + code + " there; shim finishes the sign-in once you have."
	}
	p.id = "signin-" + randid.Hex(8)
	o, err := p.out.conn.Ask(acp.MethodElicitationCreate, acp.URLElicitationParams{Mode: acp.ElicitationURLMode, Message: msg,
		ElicitationID: p.id, URL: url, RequestID: p.req.ID})
	if err != nil {
		p.cancel(fmt.Errorf("the editor could not be asked to open the sign-in page: %w", err))
		return
	}
	p.o = o
	go func() {
		// The answer says whether the person opened the page; the
		// sign-in itself ends with the flow. Waiting never withdraws.
		var resp acp.CreateElicitationResponse
		err := o.Wait(context.Background(), &resp)
		switch {
		case err != nil:
			p.out.log.Debug("the sign-in page's elicitation failed", "err", err)
			p.cancel(errDeclined)
		case resp.Action != acp.ElicitationAccept:
			p.out.log.Info("the sign-in page was not opened", "action", resp.Action)
			p.cancel(errDeclined)
		}
	}()
}

// complete tells the editor the page's work is done (elicitation/complete).
func (p *signInPage) complete() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o == nil {
		return
	}
	if err := p.out.conn.NotifyClient(acp.MethodElicitationComplete, acp.CompleteElicitationParams{ElicitationID: p.id}); err != nil {
		p.out.log.Debug("elicitation/complete not sent", "err", err)
	}
}

// withdraw closes the page in the editor ($/cancel_request): the sign-in
// failed or was cancelled.
func (p *signInPage) withdraw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o != nil {
		p.o.Withdraw()
	}
}
