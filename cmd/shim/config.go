package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// flagString returns a string flag set anywhere on the command line (after
// the command name or before it), else its environment value or default.
func flagString(c *cli.Context, name string) string {
	for _, cc := range c.Lineage() {
		if cc.IsSet(name) {
			return cc.String(name)
		}
	}
	return c.String(name)
}

func flagBool(c *cli.Context, name string) bool {
	for _, cc := range c.Lineage() {
		if cc.IsSet(name) {
			return cc.Bool(name)
		}
	}
	return c.Bool(name)
}

func flagInt64(c *cli.Context, name string) int64 {
	for _, cc := range c.Lineage() {
		if cc.IsSet(name) {
			return cc.Int64(name)
		}
	}
	return c.Int64(name)
}

func flagSlice(c *cli.Context, name string) []string {
	var out []string
	lin := c.Lineage()
	for i := len(lin) - 1; i >= 0; i-- {
		if lin[i].IsSet(name) {
			out = append(out, lin[i].StringSlice(name)...)
		}
	}
	return out
}

// parseDuration takes Go syntax ("1.5s", "2m") or a bare number of seconds.
func parseDuration(flag, s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("--%s %q: a duration cannot be negative", flag, s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--%s %q: give a duration like 1.5s or 2m, or a number of seconds", flag, s)
	}
	return d, nil
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}

// expandHome expands a leading "~" or "~/".
func expandHome(p string) string {
	if p == "~" {
		return homeDir()
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		return filepath.Join(homeDir(), p[2:])
	}
	return p
}

func xdgDir(flagValue, env, fallback string) string {
	if flagValue != "" {
		return expandHome(flagValue)
	}
	if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "shim")
	}
	return filepath.Join(homeDir(), fallback, "shim")
}

func stateDir(c *cli.Context) string {
	return xdgDir(flagString(c, "state-dir"), "XDG_STATE_HOME", filepath.Join(".local", "state"))
}

func configDir(c *cli.Context) string {
	return xdgDir(flagString(c, "config-dir"), "XDG_CONFIG_HOME", ".config")
}

// newLogger writes to stderr at the level asked, with every known secret
// replaced.
func newLogger(c *cli.Context) (*slog.Logger, error) {
	var level slog.Level
	switch strings.ToLower(flagString(c, "log-level")) {
	case "debug":
		level = slog.LevelDebug
	case "info", "":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", flagString(c, "log-level"))
	}
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	h := slog.NewTextHandler(newRedactor(w), &slog.HandlerOptions{Level: level})
	return slog.New(h), nil
}
