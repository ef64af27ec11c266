package bridge

// Initialization and sign-in: initialize, authenticate, logout, and the
// lazily built, once-probed A2A client. Signing in from the editor is
// signin.go's.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/internal/termsafe"
)

func (s *Server) initialize(p *acp.InitializeParams) (any, error) {
	s.infoMu.Lock()
	if p.ClientInfo != nil {
		s.clientName, s.clientTitle = p.ClientInfo.Name, p.ClientInfo.Title
	}
	s.termAuth = p.ClientCapabilities.Auth.Terminal
	s.draws = render.DrawsOf(p.ClientCapabilities)
	s.urlElicitation = p.ClientCapabilities.URLElicitation()
	if s.opts.ContextPrefix == "" {
		s.prefix = "chat-" + clientSlug(s.clientName)
	}
	s.infoMu.Unlock()

	var res acp.InitializeResult
	res.ProtocolVersion = 1
	caps := &res.AgentCapabilities
	caps.LoadSession = true
	caps.PromptCapabilities.Image = true
	caps.PromptCapabilities.EmbeddedContext = true
	res.Meta = &acp.InitializeMeta{}
	res.Meta.Steering.Supported = true
	res.AuthMethods = []acp.AuthMethod{
		{ID: "shim-credentials", Name: "Stored credentials",
			Description: "Use the agent URL and token saved by `shim login` (or given with --url and --token), and check them against the server."},
	}
	if p.ClientCapabilities.Auth.Terminal {
		res.AuthMethods = append(res.AuthMethods, acp.AuthMethod{Type: "terminal", ID: "shim-login",
			Name: "Sign in with shim login", Description: "Enter the agent URL and its bearer token once; shim stores them for later launches.",
			Args: []string{"login"}})
	} else {
		res.AuthMethods = append(res.AuthMethods, acp.AuthMethod{ID: "shim-login", Name: "Sign in with shim login",
			Description: "Run `shim login` in a terminal: enter the agent URL and its bearer token once; shim stores them for later launches.",
			Meta: &acp.AuthMeta{TerminalAuth: acp.TerminalAuth{
				Label: "shim login", Command: s.opts.Executable, Args: []string{"login"}, Env: map[string]string{},
			}}})
	}
	if m, ok := s.signInOffer(); ok {
		res.AuthMethods = append(res.AuthMethods, m)
	}
	res.AgentInfo = acp.Implementation{Name: "shim", Title: s.agentName(), Version: s.opts.Version}
	return res, nil
}

// agentName is the agent card's name when known, else "A2A agent". It
// never fetches the card.
func (s *Server) agentName() string {
	s.clientMu.Lock()
	c := s.client
	s.clientMu.Unlock()
	if c != nil {
		// The card's name is the server's text in shim's words (the
		// agent's title, notices, errors): one line, no control
		// characters or bidirectional overrides (SPEC §15).
		if card := c.KnownCard(); card != nil {
			if name := strings.TrimSpace(termsafe.Line(card.Name)); name != "" {
				return name
			}
		}
	}
	return "A2A agent"
}

// remote returns the A2A client, building it on first use.
// Building it may read the OS keyring (seconds when it hangs), so it holds
// connectMu, not s.clientMu: initialize never waits for it.
func (s *Server) remote() (*a2aclient.Client, error) {
	s.clientMu.Lock()
	c := s.client
	s.clientMu.Unlock()
	if c != nil {
		return c, nil
	}
	if s.opts.Connect == nil {
		return nil, acp.AuthRequired("no agent URL is configured: run `shim login --url https://your-agent` in a terminal, or pass --url https://your-agent")
	}
	s.connectMu.Lock()
	defer s.connectMu.Unlock()
	s.clientMu.Lock()
	c = s.client
	s.clientMu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := s.opts.Connect()
	if errors.As(err, new(*a2a.RefusedError)) {
		// The agent's address, refused before any connection (SPEC §15).
		return nil, acp.InvalidParams(err.Error())
	}
	if err != nil {
		return nil, acp.AuthRequired(err.Error())
	}
	// The extended card (read after the probe) may bring other skills:
	// the open sessions get the new commands.
	c.OnCardChange(func(*a2a.Card) { s.cardChanged() })
	s.clientMu.Lock()
	s.client = c
	s.clientMu.Unlock()
	return c, nil
}

// probedClient checks the credentials once per process (success is cached).
func (s *Server) probedClient(ctx context.Context) (*a2aclient.Client, error) {
	c, err := s.remote()
	if err != nil {
		return nil, err
	}
	s.clientMu.Lock()
	ok := s.probed
	s.clientMu.Unlock()
	if ok {
		return c, nil
	}
	if err := c.Probe(ctx); err != nil {
		// A sign-in shim cannot do, or an OAuth token that could not be
		// renewed: the a2a error says what to do.
		var se *a2a.SignInError
		if errors.As(err, &se) {
			return nil, acp.AuthRequired(se.Error())
		}
		var h *a2a.HTTPError
		if errors.As(err, &h) && h.Unauthorized() {
			where := c.Base()
			if where == "" {
				where = h.URL
			}
			return nil, acp.AuthRequired(fmt.Sprintf("the agent at %s refused the request (HTTP %d): the token is missing, wrong or expired; %s",
				where, h.StatusCode, s.refusedAdvice()))
		}
		return nil, s.callError(err, "")
	}
	s.clientMu.Lock()
	s.probed = true
	s.clientMu.Unlock()
	return c, nil
}

// reprobe reads the stored sign-in again and checks it against the card;
// the card may be another now (a login to another agent, a changed one,
// more said to a signed-in client): the open sessions get its commands.
func (s *Server) reprobe(ctx context.Context) error {
	s.clientMu.Lock()
	s.client, s.probed = nil, false
	s.clientMu.Unlock()
	if _, err := s.probedClient(ctx); err != nil {
		return err
	}
	s.cardChanged()
	return nil
}

func (s *Server) authenticate(ctx context.Context, req *acp.Request, p *acp.AuthenticateParams) (any, error) {
	switch p.MethodID {
	case "shim-credentials":
		if err := s.reprobe(ctx); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "shim-login":
		return nil, acp.AuthRequired("run `shim login` in a terminal to store the agent URL and token, then try again")
	case signInMethod:
		return s.signIn(ctx, req)
	}
	return nil, acp.NewError(acp.CodeInvalidParams, fmt.Sprintf("Invalid params: unknown auth method %q", p.MethodID), nil)
}

func (s *Server) logout() (any, error) {
	if s.opts.Logout != nil {
		if err := s.opts.Logout(); err != nil {
			return nil, acp.NewError(acp.CodeInternal, "logout failed: "+err.Error(), nil)
		}
	}
	s.clientMu.Lock()
	s.client, s.probed = nil, false
	s.clientMu.Unlock()
	return struct{}{}, nil
}

// refusedAdvice says what to do about a refused token.
func (s *Server) refusedAdvice() string {
	if s.opts.RefusedAdvice != nil {
		if a := s.opts.RefusedAdvice(); a != "" {
			return a
		}
	}
	return "run `shim login` in a terminal to store a valid token, then sign in again"
}
