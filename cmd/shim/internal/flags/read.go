package flags

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// String returns a string flag set anywhere on the command line (after
// the command name or before it), else its environment value or default.
func String(c *cli.Context, name string) string {
	for _, cc := range c.Lineage() {
		if cc.IsSet(name) {
			return cc.String(name)
		}
	}
	return c.String(name)
}

// Bool is String for a bool flag.
func Bool(c *cli.Context, name string) bool {
	for _, cc := range c.Lineage() {
		if cc.IsSet(name) {
			return cc.Bool(name)
		}
	}
	return c.Bool(name)
}

// Int64 is String for an int64 flag.
func Int64(c *cli.Context, name string) int64 {
	for _, cc := range c.Lineage() {
		if cc.IsSet(name) {
			return cc.Int64(name)
		}
	}
	return c.Int64(name)
}

// Slice is a repeatable flag's values, from every place on the command
// line it was given (before the command name first).
func Slice(c *cli.Context, name string) []string {
	var out []string
	lin := c.Lineage()
	for i := len(lin) - 1; i >= 0; i-- {
		if lin[i].IsSet(name) {
			out = append(out, lin[i].StringSlice(name)...)
		}
	}
	return out
}

// Duration takes Go syntax ("1.5s", "2m") or a bare number of seconds.
func Duration(flag, s string) (time.Duration, error) {
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

// Home is the user's home directory ("" when unknown).
func Home() string {
	h, _ := os.UserHomeDir()
	return h
}

// ExpandHome expands a leading "~" or "~/".
func ExpandHome(p string) string {
	if p == "~" {
		return Home()
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		return filepath.Join(Home(), p[2:])
	}
	return p
}

// xdgDir is the flag's directory, else $env/shim, else fallback/shim
// in the home directory.
func xdgDir(flagValue, env, fallback string) string {
	if flagValue != "" {
		return ExpandHome(flagValue)
	}
	if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "shim")
	}
	return filepath.Join(Home(), fallback, "shim")
}

// StateDir is where threads.json lives (--state-dir).
func StateDir(c *cli.Context) string {
	return xdgDir(String(c, "state-dir"), "XDG_STATE_HOME", filepath.Join(".local", "state"))
}

// ConfigDir is where credentials.json and known_agents.json live
// (--config-dir).
func ConfigDir(c *cli.Context) string {
	return xdgDir(String(c, "config-dir"), "XDG_CONFIG_HOME", ".config")
}
