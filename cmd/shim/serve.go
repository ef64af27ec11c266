package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/credentials"
	"github.com/shimdev/shim/bridge"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// settings is what every command reads from flags and environment.
type settings struct {
	url, endpoint, slug string
	key                 string // normalized URL: index and keyring key
	a2aVersion          string
	allowInsecure       bool
	stall               time.Duration
	store               *credentials.Store
	log                 *slog.Logger
	redact              *redactor
	trace               io.Writer
}

// loadSettings reads the configuration; a missing URL is not an error.
func loadSettings(c *cli.Context) (*settings, error) {
	log, red, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	mode, err := credentials.ParseMode(flagString(c, "keyring"))
	if err != nil {
		return nil, err
	}
	s := &settings{
		endpoint:      flagString(c, "endpoint"),
		slug:          flagString(c, "slug"),
		a2aVersion:    flagString(c, "a2a-version"),
		allowInsecure: flagBool(c, "allow-insecure-http"),
		log:           log,
		redact:        red,
	}
	switch s.a2aVersion {
	case "auto", "1.0", "0.3", "":
	default:
		return nil, fmt.Errorf("--a2a-version %q: use auto, 1.0 or 0.3", s.a2aVersion)
	}
	if s.stall, err = parseDuration("stall", flagString(c, "stall")); err != nil {
		return nil, err
	}
	var kr credentials.Keyring
	if mode != credentials.Mode("off") {
		kr = credentials.SystemKeyring()
	}
	s.store = credentials.NewStore(configDir(c), kr, mode, log)
	s.url = flagString(c, "url")
	if s.url == "" {
		if last, err := s.store.LastURL(); err == nil {
			s.url = last
		} else {
			log.Warn("could not read the last login URL", "err", err)
		}
	}
	if s.url != "" {
		if s.key, err = credentials.Normalize(s.url, s.slug); err != nil {
			return nil, fmt.Errorf("--url: %w", err)
		}
	}
	return s, nil
}

// token resolves the bearer token in SPEC order: flags, environment, the
// stored token for this URL.
func (s *settings) token(c *cli.Context) (string, error) {
	src := credentials.Sources{
		FlagToken:     flagString(c, "token"),
		FlagTokenFile: flagString(c, "token-file"),
		EnvToken:      os.Getenv("SHIM_TOKEN"),
		EnvTokenFile:  os.Getenv("SHIM_TOKEN_FILE"),
		Home:          homeDir(),
	}
	key := s.key
	tok, _, err := s.store.Resolve(key, src)
	if err != nil {
		return "", err
	}
	s.redact.Add(tok)
	return tok, nil
}

// client builds the A2A client with the current credentials.
func (s *settings) client(c *cli.Context) (*a2a.Client, error) {
	if s.url == "" && s.endpoint == "" {
		return nil, errors.New("no agent URL is configured: run `shim login` or pass --url")
	}
	tok, err := s.token(c)
	if err != nil {
		return nil, err
	}
	return a2a.New(a2a.Config{
		URL: s.url, Slug: s.slug, Endpoint: s.endpoint, Token: tok, Version: s.a2aVersion,
		AllowInsecureHTTP: s.allowInsecure, Stall: s.stall, UserAgent: "shim/" + version,
		Log: s.log, Trace: s.trace,
	})
}

func serveAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("unknown command %q: see `shim --help`", c.Args().First())
	}
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	grace, err := parseDuration("steer-grace", flagString(c, "steer-grace"))
	if err != nil {
		return err
	}
	busy, err := parseDuration("busy-timeout", flagString(c, "busy-timeout"))
	if err != nil {
		return err
	}
	if tf := flagString(c, "trace-frames"); tf != "" {
		f, err := os.OpenFile(expandHome(tf), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("--trace-frames: %w", err)
		}
		defer f.Close()
		s.trace = f
	}
	var overrides []roots.Root
	for _, spec := range flagSlice(c, "root") {
		r, err := roots.ParseOverride(spec)
		if err != nil {
			return fmt.Errorf("--root %q: %w", spec, err)
		}
		overrides = append(overrides, r)
	}
	exe, _ := os.Executable()
	if exe != "" {
		exe, _ = filepath.Abs(exe)
	}
	opts := bridge.Options{
		Version:       version,
		Executable:    exe,
		ContextPrefix: flagString(c, "context-prefix"),
		SteerGrace:    grace,
		NoPreamble:    flagBool(c, "no-preamble"),
		ContextWindow: flagInt64(c, "context-window"),
		BusyTimeout:   busy,
		ThreadsOnly:   flagBool(c, "threads-only"),
		ServerKey:     s.key,
		Index:         threads.Open(stateDir(c), s.log),
		Log:           s.log,
		Connect:       func() (*a2a.Client, error) { return s.reload(c) },
		Logout: func() error {
			if s.key == "" {
				return nil
			}
			return s.store.Forget(s.key)
		},
	}
	opts.RootOverrides, opts.Home = overrides, homeDir()
	if opts.Version == "" {
		opts.Version = "dev"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s.log.Debug("serving ACP on stdio", "url", s.key)
	return bridge.Serve(ctx, os.Stdin, os.Stdout, opts)
}

// reload re-reads the URL and token (authenticate asks for this).
func (s *settings) reload(c *cli.Context) (*a2a.Client, error) {
	if flagString(c, "url") == "" {
		if last, err := s.store.LastURL(); err == nil && last != "" && last != s.url {
			if key, err := credentials.Normalize(last, s.slug); err == nil {
				s.url, s.key = last, key
			}
		}
	}
	return s.client(c)
}
