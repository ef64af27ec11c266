package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/cmd/shim/internal/flags"
)

// newLogger writes to stderr at the level asked, with every known secret
// replaced.
func newLogger(c *cli.Context) (*slog.Logger, error) {
	var level slog.Level
	switch strings.ToLower(flags.String(c, "log-level")) {
	case "debug":
		level = slog.LevelDebug
	case "info", "":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", flags.String(c, "log-level"))
	}
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	h := slog.NewTextHandler(newRedactor(w), &slog.HandlerOptions{Level: level})
	return slog.New(h), nil
}
