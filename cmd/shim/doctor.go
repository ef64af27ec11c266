package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
)

// doctorAction checks what a session needs and prints a table.
func doctorAction(c *cli.Context) error {
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	failed := false
	row := func(check, verdict, detail string) {
		if verdict == "FAIL" {
			failed = true
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", check, verdict, detail)
	}
	fmt.Fprintln(w, "CHECK\tVERDICT\tDETAIL")
	if s.url == "" && s.endpoint == "" {
		row("agent URL", "FAIL", "none: pass --url or run `shim login`")
	} else {
		row("agent URL", "ok", s.key)
		client, err := s.client(c)
		if err != nil {
			row("client", "FAIL", err.Error())
		} else {
			ctx, cancel := context.WithTimeout(c.Context, 60*time.Second)
			defer cancel()
			card, err := client.Discover(ctx)
			if err != nil {
				row("agent card", "FAIL", err.Error())
			} else {
				name := card.Name
				if name == "" {
					name = "(unnamed)"
				}
				row("agent card", "ok", name)
				row("dialect", "ok", "A2A "+card.Dialect.String())
				row("endpoint", "ok", card.Endpoint)
				stream := "yes"
				if !card.Streaming {
					stream = "no (blocking sends)"
				}
				row("streaming", "ok", stream)
				if err := client.Probe(ctx); err != nil {
					row("auth probe", "FAIL", err.Error())
				} else {
					row("auth probe", "ok", "the server answered the probe")
				}
			}
		}
	}
	dir := stateDir(c)
	if fi, err := os.Stat(dir); err != nil {
		row("state dir", "ok", dir+" (created on first use)")
	} else if fi.Mode().Perm()&0o077 != 0 {
		row("state dir", "warn", fmt.Sprintf("%s is %o; shim sets 0700 on its next write", dir, fi.Mode().Perm()))
	} else {
		row("state dir", "ok", fmt.Sprintf("%s (%o)", dir, fi.Mode().Perm()))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed {
		return &exitError{code: 1, msg: "doctor found a problem a session would hit (see the FAIL rows)"}
	}
	return nil
}
