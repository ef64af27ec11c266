package checkup

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/internal/termsafe"
)

// Verdicts of doctor's rows. Only FAIL makes the exit status 1.
const (
	OK     = "ok"
	Absent = "absent"
	Warn   = "warn"
	Skip   = "skip"
	Fail   = "FAIL"
)

// Table is doctor's table: a row per check, with its verdict.
type Table struct {
	w      *tabwriter.Writer
	failed int
}

// NewTable starts a table on w with its header line.
func NewTable(w io.Writer) *Table {
	t := &Table{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	fmt.Fprintln(t.w, "CHECK\tVERDICT\tDETAIL")
	return t
}

// Row adds a row; a FAIL row counts as a failed check.
func (t *Table) Row(check, verdict, detail string) {
	if verdict == Fail {
		t.failed++
	}
	// A detail quotes the server (a card name, an error body) and paths.
	fmt.Fprintf(t.w, "%s\t%s\t%s\n", check, verdict, termsafe.String(detail))
}

// Failed is how many rows said FAIL.
func (t *Table) Failed() int { return t.failed }

// Flush writes the table out, its columns aligned.
func (t *Table) Flush() error { return t.w.Flush() }

// cardAdvice says what a failed card fetch got and what to check, once,
// chosen by the kind of error.
func cardAdvice(err error) string {
	var unreachable *a2a.UnreachableError
	switch {
	case errors.Is(err, a2a.ErrNoCard):
		return fmt.Sprintf("%v: check --url (and --slug), or pass --endpoint to skip the card, "+
			"or --card-url with the card's URL (a server hosting several agents keeps each card under the agent's own path)", err)
	case errors.As(err, &unreachable):
		return fmt.Sprintf("%v: is the agent running, and is --url right?", err)
	}
	return err.Error()
}

// RefusedAdvice says what to do about a refused token, by where it came
// from: a token given by flag or variable wins over the one `shim login`
// stores, so logging in again cannot help.
func RefusedAdvice(src string) string {
	switch src {
	case credentials.SourceFlagToken, credentials.SourceFlagTokenFile, credentials.SourceEnvToken, credentials.SourceEnvTokenFile:
		return fmt.Sprintf("the token from %s was refused; fix it or remove it (it wins over the token `shim login` stores)", src)
	case "":
		return "run `shim login` to store a token"
	}
	return "run `shim login` to store a valid one"
}

func insecureAdvice(key string) string {
	return fmt.Sprintf("refusing to send the token over plain http to %s, which is not this machine: use https, or pass --allow-insecure-http if you trust the network", key)
}

// Source names where a token came from (src, as credentials names it;
// file is the credentials file).
func Source(src, file string) string {
	switch src {
	case credentials.SourceKeyring:
		return "the OS keyring"
	case credentials.SourceFile:
		return file
	}
	return src
}

// HTTPStatus returns the HTTP status of an HTTP error, else 0.
func HTTPStatus(err error) int {
	var h *a2a.HTTPError
	if errors.As(err, &h) {
		return h.StatusCode
	}
	return 0
}
