package main

// Managed agent platforms (SPEC §12.7): --platform, the URL the console
// shows read into the agent's places (package platform), the client
// configured with them, and what doctor says of the platform and its
// credential.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/a2a/auth/platform"
)

// place reads u (a URL, an AgentCore runtime ARN, a Google resource name)
// as --platform says: for an agent on a managed platform it returns the
// agent's base URL and the platform's agent; else u as it is. A card URL
// (--url ending in .json) is left as it is.
func (s *settings) place(u string) (string, *platform.Agent, error) {
	if u == "" || isCardURL(u) {
		return u, nil, nil
	}
	plat, err := platform.Resolve(s.platform, u, platform.Options{Version: s.a2aVersion, Hosts: s.platformHosts})
	if err != nil || plat == nil {
		return u, nil, err
	}
	s.log.Debug("managed agent platform", "platform", string(plat.Platform), "url", plat.URL, "credential host", plat.Host)
	return plat.URL, plat, nil
}

// isRefusal reports whether err refuses the agent's address (SPEC §15: a
// part of a host name not of its form, a host outside the platform's
// domains), as opposed to an address that cannot be read.
func isRefusal(err error) bool { return errors.As(err, new(*a2a.RefusedError)) }

// platformConfig configures the client for the platform's agent: where
// its card is (unless --card-url), where calls go (unless --endpoint),
// the dialect and binding it speaks (unless the flags name them), how a
// stored secret is put on, and its own credential and headers.
func (s *settings) platformConfig(cfg *a2aclient.Config) {
	plat := s.inUse.agent()
	if plat == nil {
		return
	}
	if cfg.CardURL == "" {
		for _, c := range plat.Cards {
			cfg.Cards = append(cfg.Cards, a2aclient.CardPlace{URL: c.URL, Dialect: c.Dialect})
		}
	}
	if cfg.Endpoint == "" {
		cfg.EndpointOverride = plat.Endpoint
	}
	if (cfg.Version == "" || cfg.Version == "auto") && plat.Version != "" {
		cfg.Version = plat.Version
	}
	if (cfg.Binding == "" || cfg.Binding == "auto") && plat.Binding != "" {
		cfg.Binding = plat.Binding
	}
	cfg.Scheme, cfg.Credential, cfg.NoOperator, cfg.NoStreaming = plat.Scheme, plat.Credential, true, plat.NoStreaming
	cfg.Codec = a2aclient.Codec(plat.Codec) // wins over Version and Binding
}

// platformRows are doctor's rows about the platform: which one and how it
// was chosen, and the credential in use (where it came from and when it
// expires, never the credential). They load the platform's credential
// (its library may read files, run a command or call a token endpoint).
// false when a session could not sign in.
func platformRows(ctx context.Context, t *doctorTable, plat *platform.Agent, tok, src, file string) bool {
	how := "--platform " + string(plat.Platform)
	if plat.Detected {
		how = "--platform auto, from the URL's host"
	}
	t.row("platform", vOK, fmt.Sprintf("%s (%s)", plat.Platform.Title(), how))
	t.row("credential host", vOK, fmt.Sprintf("%s (%s): the only host the credential is sent to", plat.Host, plat.HostWhy))
	amb := plat.Ambient()
	switch {
	case tok != "":
		what := "the stored secret from " + sourceName(src, file)
		if amb != nil {
			what += " (it wins over " + amb.Loaded() + ")"
		}
		t.row("credential", vOK, what)
		return true
	case amb == nil:
		t.row("credential", vFail, fmt.Sprintf("none: %s takes an API key (or a token) that `shim login` stores: run `shim login`", plat.Platform.Title()))
		return false
	}
	info, err := amb.Describe(ctx)
	if err != nil {
		t.row("credential", vFail, err.Error())
		return false
	}
	t.row("credential", vOK, info.From)
	switch {
	case info.Expiry.IsZero():
		t.row("credential expiry", vOK, "none (the credential does not expire)")
	case time.Now().After(info.Expiry):
		t.row("credential expiry", vWarn, info.Expiry.UTC().Format(time.RFC3339)+" (expired: its library renews it on the next call, else sign in again)")
	default:
		t.row("credential expiry", vOK, info.Expiry.UTC().Format(time.RFC3339)+" (renewed by its library)")
	}
	return true
}
