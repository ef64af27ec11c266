package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/cmd/shim/internal/flags"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/threads"
)

func threadsAction(c *cli.Context) error {
	s, err := loadSettings(c)
	if err != nil {
		return err
	}
	ix := threads.Open(flags.StateDir(c), s.log)
	groups := map[string][]threads.Item{}
	key := s.indexKey()
	chosen := key != "" && (s.flagURL != "" || s.flagCard != "" || s.endpoint != "")
	if chosen {
		items, err := ix.List(key)
		if err != nil {
			return err
		}
		groups[key] = items
	} else {
		if groups, err = ix.All(); err != nil {
			return err
		}
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	n := 0
	for server, items := range groups {
		if !chosen {
			fmt.Fprintf(w, "# %s\n", termsafe.String(server))
		}
		fmt.Fprintln(w, "ID\tCWD\tTITLE\tUPDATED")
		for _, it := range items {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", termsafe.String(it.ID), termsafe.String(it.CWD), termsafe.String(it.Title),
				it.UpdatedAt.Local().Format(time.RFC3339))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "No threads yet (index: %s).\n", termsafe.String(ix.Path()))
	}
	return w.Flush()
}
