package main

// Managed agent platforms (SPEC §12.7): --platform, the URL the console
// shows read into the agent's places (package platform) and the client
// configured with them; what doctor says of the platform and its
// credential is internal/checkup's.

import (
	"errors"

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
