package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/credentials"
	"github.com/shimdev/shim/threads"
)

func loginAction(c *cli.Context) error {
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	in := os.Stdin
	tty := term.IsTerminal(int(in.Fd()))
	errw := c.App.ErrWriter
	if errw == nil {
		errw = os.Stderr
	}
	url := flagString(c, "url")
	reader := bufio.NewReader(in)
	if tty {
		def := url
		if def == "" {
			def = s.url
		}
		if def != "" {
			fmt.Fprintf(errw, "Agent URL [%s]: ", def)
		} else {
			fmt.Fprint(errw, "Agent URL: ")
		}
		line, _ := reader.ReadString('\n')
		if line = strings.TrimSpace(line); line != "" {
			url = line
		} else {
			url = def
		}
	} else if url == "" {
		url = s.url
	}
	if url == "" {
		return &exitError{code: 2, msg: "no agent URL: pass --url https://your-agent (or run `shim login` in a terminal)"}
	}
	key, err := credentials.Normalize(url, s.slug)
	if err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	var token string
	if tty {
		fmt.Fprintf(errw, "Bearer token for %s (not echoed): ", key)
		b, err := term.ReadPassword(int(in.Fd()))
		fmt.Fprintln(errw)
		if err != nil {
			return fmt.Errorf("reading the token: %w", err)
		}
		token = strings.TrimSpace(string(b))
	} else {
		b, err := io.ReadAll(io.LimitReader(reader, 64<<10))
		if err != nil {
			return fmt.Errorf("reading the token from stdin: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	if token == "" {
		return &exitError{code: 2, msg: "no token given: type it at the prompt, or pipe it: `echo $TOKEN | shim login --url URL`"}
	}
	s.redact.Add(token)
	client, err := a2a.New(a2a.Config{URL: url, Slug: s.slug, Endpoint: s.endpoint, Token: token, Version: s.a2aVersion,
		AllowInsecureHTTP: s.allowInsecure, Log: s.log, Timeout: 10 * time.Second})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Context, 40*time.Second)
	defer cancel()
	perr := client.Probe(ctx)
	switch {
	case perr == nil:
		fmt.Fprintf(errw, "The server accepted the token.\n")
	case a2a.IsUnauthorized(perr):
		return &exitError{code: 1, msg: fmt.Sprintf("the server at %s refused the token (%v); nothing was stored. Check the token and run `shim login` again.", key, perr)}
	case errors.Is(perr, a2a.ErrInsecure):
		return &exitError{code: 1, msg: perr.Error()}
	default:
		fmt.Fprintf(errw, "warning: could not check the token (%v); storing it anyway.\n", perr)
	}
	where, err := s.store.Save(key, token)
	if err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	fmt.Fprintf(errw, "Stored the token for %s in %s. Editors can now run `shim` (it defaults to this URL).\n", key, where)
	return nil
}

func logoutAction(c *cli.Context) error {
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	if s.key == "" {
		return &exitError{code: 2, msg: "no agent URL: pass --url"}
	}
	if err := s.store.Forget(s.key); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "Forgot the token for %s.\n", s.key)
	return nil
}

func threadsAction(c *cli.Context) error {
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	ix := threads.Open(stateDir(c), s.log)
	groups := map[string][]threads.Item{}
	if flagString(c, "url") != "" && s.key != "" {
		items, err := ix.List(s.key)
		if err != nil {
			return err
		}
		groups[s.key] = items
	} else {
		if groups, err = ix.All(); err != nil {
			return err
		}
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	n := 0
	for server, items := range groups {
		if len(groups) > 1 || flagString(c, "url") == "" {
			fmt.Fprintf(w, "# %s\n", server)
		}
		fmt.Fprintln(w, "ID\tCWD\tTITLE\tUPDATED")
		for _, it := range items {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.ID, it.CWD, it.Title, it.UpdatedAt.Local().Format(time.RFC3339))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "No threads yet (index: %s).\n", ix.Path())
	}
	return w.Flush()
}
