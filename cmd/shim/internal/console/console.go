package console

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/shimdev/shim/a2a/auth/credentials"
	"github.com/shimdev/shim/internal/redact"
	"github.com/shimdev/shim/internal/termsafe"
)

// Console is what `shim login` talks through: stdin, where its prompts go,
// and whether stdin is a terminal (then the token is read without echo).
type Console struct {
	In       *bufio.Reader
	Prompt   io.Writer
	Terminal bool
	// ReadSecret reads one line from the terminal without echoing it.
	ReadSecret func() ([]byte, error)
}

// Process returns the process's console (stdin and its terminal).
func Process(prompt io.Writer) *Console {
	fd := int(os.Stdin.Fd())
	return &Console{
		In:         bufio.NewReader(os.Stdin),
		Prompt:     prompt,
		Terminal:   term.IsTerminal(fd),
		ReadSecret: func() ([]byte, error) { return term.ReadPassword(fd) },
	}
}

// MaxSecret bounds what is read of a secret: a token from stdin, a
// client secret file.
const MaxSecret = 64 << 10

// URL returns the agent URL: on a terminal it asks, offering def (the
// --url value, else the URL of the last login), until check takes the
// answer; otherwise it is def.
func (con *Console) URL(def string, check func(string) error) (string, error) {
	if !con.Terminal {
		if def == "" {
			return "", &Error{"no agent URL: pass --url https://your-agent " +
				"(stdin is not a terminal, so shim login cannot ask for it)"}
		}
		return def, nil
	}
	for range 3 {
		if def != "" {
			fmt.Fprintf(con.Prompt, "Agent URL [%s]: ", termsafe.String(def))
		} else {
			fmt.Fprint(con.Prompt, "Agent URL (e.g. https://agent.example:7870): ")
		}
		line, err := con.In.ReadString('\n')
		line = strings.TrimSpace(line)
		if err != nil && line == "" {
			fmt.Fprintln(con.Prompt)
			if def != "" {
				return def, nil
			}
			return "", &Error{"no agent URL given: run `shim login` again and type the URL, or pass --url https://your-agent"}
		}
		if line == "" {
			line = def
		}
		if line == "" {
			fmt.Fprintln(con.Prompt, "An agent URL is needed: the base URL of your A2A agent, as you would pass it with --url.")
			continue
		}
		if err := check(line); err != nil {
			fmt.Fprintf(con.Prompt, "%s\n", termsafe.String(err.Error()))
			continue
		}
		return line, nil
	}
	return "", &Error{"no usable agent URL given: run `shim login --url https://your-agent`"}
}

// Token returns the token: on a terminal it asks without echo;
// otherwise it reads all of stdin.
func (con *Console) Token(key, label string) (string, error) {
	var raw string
	if con.Terminal {
		fmt.Fprintf(con.Prompt, "%s for %s (input hidden): ", label, termsafe.String(key))
		var b []byte
		var err error
		if con.In.Buffered() > 0 {
			// Pasted together with the URL: it is already in the buffer.
			var line string
			line, err = con.In.ReadString('\n')
			b = []byte(line)
			if errors.Is(err, io.EOF) {
				err = nil
			}
		} else {
			b, err = con.ReadSecret()
		}
		fmt.Fprintln(con.Prompt)
		if err != nil {
			return "", fmt.Errorf("reading the token from the terminal: %w", err)
		}
		raw = string(b)
		if strings.TrimSpace(raw) == "" {
			return "", &Error{"no token typed: run `shim login` again and paste the token at the prompt"}
		}
	} else {
		b, err := io.ReadAll(io.LimitReader(con.In, MaxSecret+1))
		if err != nil {
			return "", fmt.Errorf("reading the token from stdin: %w", err)
		}
		if len(b) > MaxSecret {
			return "", &Error{fmt.Sprintf("stdin holds more than %d bytes: pipe only the token (`echo \"$TOKEN\" | shim login --url URL`)", MaxSecret)}
		}
		raw = string(b)
		if strings.TrimSpace(raw) == "" {
			return "", &Error{"no token on stdin: pipe it in (`echo \"$TOKEN\" | shim login --url URL`), " +
				"or run `shim login` in a terminal to be asked for it"}
		}
	}
	token := strings.TrimSpace(raw)
	token = strings.TrimSpace(strings.TrimPrefix(token, "Bearer "))
	if err := credentials.CheckToken(token); err != nil {
		return "", &Error{strings.TrimPrefix(err.Error(), "credentials: ") +
			": give the token alone (one line, no spaces or quotes) and run `shim login` again"}
	}
	if n := utf8.RuneCountInString(token); n < redact.MinLen {
		return "", &Error{fmt.Sprintf("the token has %d characters; shim takes no secret shorter than %d "+
			"(too short to keep out of logs and output without mangling other text); nothing was stored: "+
			"give the whole token and run `shim login` again", n, redact.MinLen)}
	}
	return token, nil
}

// Error is an answer the console cannot take (none, or not a usable one):
// the command line is to be run again, exit status 2.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// ExitStatus is the process's exit status for the error: 2.
func (e *Error) ExitStatus() int { return 2 }
