// Command shim lets an editor that speaks the Agent Client Protocol drive
// a remote agent that speaks A2A. The editor starts `shim --url URL` as a
// stdio subprocess; stdout carries ACP messages only, logs go to stderr.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/shimdev/shim/cmd/shim/internal/buildinfo"
	"github.com/shimdev/shim/cmd/shim/internal/console"
	"github.com/shimdev/shim/cmd/shim/internal/flags"
	"github.com/shimdev/shim/cmd/shim/internal/memlimit"
	"github.com/shimdev/shim/internal/termsafe"
)

// Stamped by the release build (-ldflags -X).
var (
	version = ""
	commit  = ""
	date    = ""
)

// exitError carries a process exit code with its message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// ExitStatus is the process's exit status for the error. Not ExitCode:
// urfave/cli would take the error as its ExitCoder, print it unescaped and
// exit on its own.
func (e *exitError) ExitStatus() int { return e.code }

// stdout and stderr of the process: every write goes through the redactor.
var (
	stdout io.Writer = newRedactor(os.Stdout)
	stderr io.Writer = newRedactor(os.Stderr)
)

func main() {
	memlimit.Set(os.LookupEnv)
	app := newApp(console.Process, os.Args)
	app.Writer, app.ErrWriter = stdout, stderr
	if err := app.Run(os.Args); err != nil {
		var ee interface{ ExitStatus() int }
		code := 1
		if errors.As(err, &ee) {
			code = ee.ExitStatus()
		}
		if err.Error() != "" {
			// An error may quote the server (a body, an OAuth error).
			fmt.Fprintln(stderr, "shim:", termsafe.String(err.Error()))
		}
		os.Exit(code)
	}
}

// newApp is the CLI for the command line args; newConsole gives `shim
// login` its console. A command's flags are built only when args name the
// command (urfave/cli reads them only to run the command or show its
// help, and both need its name on the command line): building the five
// commands' lists of up to 35 flags was a fifth of shim's own work before
// it answers initialize (bench/analysis.md).
func newApp(newConsole func(prompt io.Writer) *console.Console, args []string) *cli.App {
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, buildinfo.String(version, commit, date)) }
	flags.NameLibraryFlags()
	common := flags.Common()
	flagsOf := func(command string, names ...string) []cli.Flag {
		if !slices.Contains(args, command) {
			return nil
		}
		if names == nil {
			return flags.Common()
		}
		return flags.Named(names...)
	}
	return &cli.App{
		Name:  "shim",
		Usage: "drive a remote A2A agent from any ACP editor (Zed, JetBrains, Neovim, Emacs)",
		Description: "Without a command, shim serves the Agent Client Protocol on stdin/stdout: point your editor's\n" +
			"agent server setting at `shim --url https://your-agent`.\n\n" +
			"Sign in once:      shim login --url https://your-agent   (prompts for the token; or pipe it in)\n" +
			"Check the setup:   shim doctor                           (a table of checks; exit 1 on a failure)\n\n" +
			"The token is taken from --token, --token-file, SHIM_TOKEN, SHIM_TOKEN_FILE, then the one\n" +
			"`shim login` stored for the URL. Flags may also come after the command name: those the\n" +
			"command uses (`shim <command> --help` lists them).",
		Version:              buildinfo.String(version, commit, date),
		Compiled:             time.Unix(0, 0), // never shown; a set value keeps Setup from statting the executable
		HideVersion:          false,
		Flags:                common,
		Action:               serveAction,
		OnUsageError:         usageError,
		EnableBashCompletion: false,
		Commands: []*cli.Command{
			{Name: "acp", Usage: "serve ACP on stdin/stdout (the same as no command)", Flags: flagsOf("acp"), Action: serveAction, OnUsageError: usageError},
			{Name: "login", Usage: "sign in to an agent URL: store its bearer token, API key or user:password (prompts on a terminal; else reads it from stdin), or run its OAuth flow",
				UsageText: "shim login [--url URL | --card-url URL] [--slug SLUG] [--keyring auto|on|off]\n" +
					"echo \"$TOKEN\" | shim login --url URL\n" +
					"shim login --trust-new-key [--url URL | --card-url URL]",
				Description: "On a terminal, asks for the agent URL (default: --url, else the URL of the last login) and the\n" +
					"token (not echoed). Otherwise reads the token from stdin. Then checks it against the server:\n" +
					"a refused token (HTTP 401/403) is not stored and the exit status is 1; a server that cannot be\n" +
					"reached gets the token stored anyway, with a warning. The token goes to the OS keyring\n" +
					"(service \"shim\", account = the normalized URL), or to <config-dir>/credentials.json (mode 0600)\n" +
					"with --keyring off or when no keyring answers. Editors then run `shim` with no --url.\n\n" +
					"The agent card says what to ask for: an API key, user:password, or nothing when it signs in with\n" +
					"OAuth 2.0 / OpenID Connect: then shim runs the device-code flow (prints a URL and a code), else\n" +
					"authorization code with PKCE (prints a URL to open; the browser comes back to 127.0.0.1), else\n" +
					"client credentials (--oauth-client-secret-file). --oauth-client-id is needed for those.\n\n" +
					"A signed agent card is checked: the first one of a URL pins its key (login prints the key's\n" +
					"thumbprint), and a card signed by another key is refused. After the agent's owner changed\n" +
					"its key, `shim login --trust-new-key` shows both keys and asks whether to trust the new one.",
				Flags: flags.LoginOnly(flagsOf("login", flags.Login...)), Action: func(c *cli.Context) error { return loginAction(c, newConsole) }, OnUsageError: usageError},
			{Name: "logout", Usage: "forget the stored token for an agent URL",
				UsageText:   "shim logout [--url URL | --card-url URL] [--slug SLUG]",
				Description: "Removes the token stored by `shim login` for URL (default: the URL of the last login) from\nthe OS keyring and from the credentials file.",
				Flags:       flagsOf("logout", flags.Logout...), Action: logoutAction, OnUsageError: usageError},
			{Name: "threads", Usage: "list the local thread index (id, cwd, title, updated), newest first",
				Flags: flagsOf("threads", flags.Threads...), Action: threadsAction, OnUsageError: usageError},
			{Name: "doctor", Usage: "check the agent card, dialect, endpoint, token, optional server APIs and state-dir permissions",
				UsageText: "shim doctor [--url URL | --card-url URL] [--slug SLUG] [--token-file FILE] [--probe]",
				Description: "Prints one row per check with its verdict: ok, absent (an optional server API the server\n" +
					"does not offer; not a problem), warn, skip, or FAIL. Exits 1 when a check a session needs\n" +
					"fails, and the FAIL row says what to do. With --probe it also sends the agent one short\n" +
					"message (\"ping\"), cancels it while it runs, and reports whether streaming works, the time to\n" +
					"the first event, and where the agent departs from the A2A spec (warn rows).",
				Flags: flags.DoctorCommand(flagsOf("doctor", flags.Doctor...)), Action: doctorAction, OnUsageError: usageError},
			{Name: "version", Usage: "print the version, commit and Go version", Action: func(c *cli.Context) error {
				fmt.Fprintln(c.App.Writer, buildinfo.String(version, commit, date))
				return nil
			}},
		},
	}
}

// usageError is a bad command line in one line, with where to look,
// instead of the whole help.
func usageError(c *cli.Context, err error, isSubcommand bool) error {
	help := "shim --help"
	if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
		help = "shim " + c.Command.Name + " --help"
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(name, "-")
	}
	return &exitError{code: 2, msg: fmt.Sprintf("%s (see `%s`)", msg, help)}
}
