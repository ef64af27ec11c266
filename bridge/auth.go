package bridge

// Initialization and sign-in: initialize, authenticate, logout, and the
// lazily built, once-probed A2A client.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/shimdev/shim/a2a"
)

func (s *Server) initialize(req *jsonrpc2.Request) (any, error) {
	var p initializeParams
	if req.Params != nil {
		if err := json.Unmarshal(*req.Params, &p); err != nil {
			return nil, rpcError(codeInvalidParams, "Invalid params: "+err.Error(), nil)
		}
	}
	s.mu.Lock()
	if p.ClientInfo != nil {
		s.clientName, s.clientTitle = p.ClientInfo.Name, p.ClientInfo.Title
	}
	s.termAuth = p.ClientCapabilities.Auth.Terminal
	if s.opts.ContextPrefix == "" {
		s.prefix = "chat-" + clientSlug(s.clientName)
	}
	s.mu.Unlock()

	var res initializeResult
	res.ProtocolVersion = 1
	caps := &res.AgentCapabilities
	caps.LoadSession = true
	caps.PromptCapabilities.Image = true
	caps.PromptCapabilities.EmbeddedContext = true
	res.AuthMethods = []any{
		authMethodAgent{ID: "shim-credentials", Name: "Stored credentials",
			Description: "Use the agent URL and token saved by `shim login` (or given with --url and --token), and check them against the server."},
	}
	if p.ClientCapabilities.Auth.Terminal {
		res.AuthMethods = append(res.AuthMethods, authMethodTerminal{Type: "terminal", ID: "shim-login",
			Name: "Sign in with shim login", Description: "Enter the agent URL and its bearer token once; shim stores them for later launches.",
			Args: []string{"login"}})
	} else {
		res.AuthMethods = append(res.AuthMethods, authMethodAgent{ID: "shim-login", Name: "Sign in with shim login",
			Description: "Run `shim login` in a terminal: enter the agent URL and its bearer token once; shim stores them for later launches.",
			Meta: map[string]any{"terminal-auth": map[string]any{
				"label": "shim login", "command": s.opts.Executable, "args": []string{"login"}, "env": map[string]string{},
			}}})
	}
	res.AgentInfo = implementation{Name: "shim", Title: s.agentName(), Version: s.opts.Version}
	return res, nil
}

// agentName is the agent card's name when known, else "A2A agent". It
// never fetches the card.
func (s *Server) agentName() string {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c != nil {
		if card := c.KnownCard(); card != nil && card.Name != "" {
			return card.Name
		}
	}
	return "A2A agent"
}

// remote returns the A2A client, building it on first use.
// Building it may read the OS keyring (seconds when it hangs), so it holds
// connectMu, not s.mu: initialize never waits for it.
func (s *Server) remote() (*a2a.Client, error) {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if s.opts.Connect == nil {
		return nil, authRequired("no agent URL is configured: run `shim login --url https://your-agent` in a terminal, or pass --url https://your-agent")
	}
	s.connectMu.Lock()
	defer s.connectMu.Unlock()
	s.mu.Lock()
	c = s.client
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := s.opts.Connect()
	if err != nil {
		return nil, authRequired(err.Error())
	}
	s.mu.Lock()
	s.client = c
	s.mu.Unlock()
	return c, nil
}

func authRequired(reason string) *jsonrpc2.Error {
	return rpcError(codeAuthRequired, "Authentication required: "+reason, map[string]any{"reason": reason})
}

// ensureAuth checks the credentials once per process (success is cached).
func (s *Server) ensureAuth(ctx context.Context) (*a2a.Client, error) {
	c, err := s.remote()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ok := s.authOK
	s.mu.Unlock()
	if ok {
		return c, nil
	}
	if err := c.Probe(ctx); err != nil {
		// A sign-in shim cannot do, or an OAuth token that could not be
		// renewed: the a2a error says what to do.
		var se *a2a.SignInError
		if errors.As(err, &se) {
			return nil, authRequired(se.Error())
		}
		var h *a2a.HTTPError
		if errors.As(err, &h) && h.Unauthorized() {
			where := c.Base()
			if where == "" {
				where = h.URL
			}
			return nil, authRequired(fmt.Sprintf("the agent at %s refused the request (HTTP %d): the token is missing, wrong or expired; %s",
				where, h.StatusCode, s.refusedAdvice()))
		}
		return nil, s.callError(err, "")
	}
	s.mu.Lock()
	s.authOK = true
	s.mu.Unlock()
	return c, nil
}

func (s *Server) authenticate(req *jsonrpc2.Request) (any, error) {
	var p authenticateParams
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, &p)
	}
	switch p.MethodID {
	case "shim-credentials":
		s.mu.Lock()
		s.client, s.authOK = nil, false
		s.mu.Unlock()
		if _, err := s.ensureAuth(s.ctx); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case "shim-login":
		return nil, authRequired("run `shim login` in a terminal to store the agent URL and token, then try again")
	}
	return nil, rpcError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown auth method %q", p.MethodID), nil)
}

func (s *Server) logout() (any, error) {
	if s.opts.Logout != nil {
		if err := s.opts.Logout(); err != nil {
			return nil, rpcError(codeInternal, "logout failed: "+err.Error(), nil)
		}
	}
	s.mu.Lock()
	s.client, s.authOK = nil, false
	s.mu.Unlock()
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
