package flags

import (
	"slices"

	"github.com/urfave/cli/v2"
)

// The flags each command reads (besides serving, which reads them all).
var (
	Login = []string{"url", "card-url", "platform", "platform-host", "endpoint", "slug", "a2a-version", "binding", "allow-insecure-http", "keyring", "config-dir", "log-level",
		"oauth-client-id", "oauth-client-secret-file", "oauth-scopes", "card-keys"}
	Logout  = []string{"url", "card-url", "platform", "platform-host", "slug", "keyring", "config-dir", "log-level"}
	Threads = []string{"url", "card-url", "platform", "platform-host", "endpoint", "slug", "state-dir", "config-dir", "keyring", "log-level"}
	Doctor  = []string{"url", "card-url", "platform", "platform-host", "endpoint", "token", "token-file", "slug", "a2a-version", "binding", "agent-profile", "allow-insecure-http",
		"state-dir", "config-dir", "keyring", "log-level", "oauth-client-secret-file", "card-keys"}
)

// DoctorCommand are doctor's flags (none when the command line does
// not name doctor) and its own --probe.
func DoctorCommand(flags []cli.Flag) []cli.Flag {
	if flags == nil {
		return nil
	}
	return append(flags, &cli.BoolFlag{Name: "probe", Usage: "also send the agent one short message (\"ping\") and cancel it while it runs: " +
		"reports whether streaming works, the time to the first event and where the agent departs from the A2A spec"})
}

// LoginOnly adds to login's flags (when they are built) those only login
// reads.
func LoginOnly(flags []cli.Flag) []cli.Flag {
	if flags == nil {
		return nil
	}
	return append(flags, WithNames([]cli.Flag{
		&cli.BoolFlag{Name: "trust-new-key", Usage: "show the key the agent card is signed with now beside the key pinned for it, " +
			"and on a terminal ask whether to trust the new one (pin it, or forget the pin of a card no longer signed); nothing else is done"},
	})...)
}

// Named returns fresh definitions of the named flags, in the order of
// Common.
func Named(names ...string) []cli.Flag {
	var out []cli.Flag
	for _, f := range Common() {
		if slices.Contains(names, f.Names()[0]) {
			out = append(out, f)
		}
	}
	return out
}

// Common are every flag shim knows, fresh definitions each call; serving
// reads them all.
func Common() []cli.Flag {
	return WithNames([]cli.Flag{
		&cli.StringFlag{Name: "url", EnvVars: []string{"SHIM_URL"}, Usage: "base `URL` of the remote agent (an instance or a hub); default: the URL of the last `shim login`"},
		&cli.StringFlag{Name: "endpoint", EnvVars: []string{"SHIM_ENDPOINT"}, Usage: "JSON-RPC endpoint `URL`, skipping agent card discovery"},
		&cli.StringFlag{Name: "card-url", EnvVars: []string{"SHIM_CARD_URL"}, Usage: "the agent card's full `URL` (default <url>/.well-known/agent-card.json), for a server hosting several agents " +
			"(e.g. https://host/api/.well-known/AGENT/agent-card.json); needs no --url, and the stored token and the thread index are filed under it. " +
			"A --url whose path ends in .json is taken as a card URL too"},
		&cli.StringFlag{Name: "platform", EnvVars: []string{"SHIM_PLATFORM"}, Value: "auto", Usage: "managed agent `PLATFORM`: auto (from the URL's host), none, " +
			"agentcore (--url: the runtime ARN), vertex (the reasoning engine's URL), gemini-enterprise (the agent's URL), foundry (the agent's A2A URL), " +
			"servicenow (the agent's URL); its own credential is used: AWS, Google Application Default Credentials, Azure, or what `shim login` stores"},
		&cli.StringSliceFlag{Name: "platform-host", EnvVars: []string{"SHIM_PLATFORM_HOST"}, Usage: "a `HOST` outside the platform's domains that may still receive " +
			"the platform's credential with a named --platform (a private endpoint with a DNS name of its own); exactly that host name; repeatable"},
		&cli.StringFlag{Name: "card-keys", EnvVars: []string{"SHIM_CARD_KEYS"}, Usage: "`FILE` holding a JWKS: the only keys trusted to sign the agent card " +
			"(default: the key the first signed card is signed with is pinned in <config-dir>/known_agents.json)"},
		&cli.StringFlag{Name: "token", Usage: "bearer `TOKEN` (env SHIM_TOKEN); discouraged: other local users can read it in the process list, so prefer `shim login` or --token-file"},
		&cli.StringFlag{Name: "token-file", Usage: "`FILE` holding the bearer token, trimmed, ~ expanded (env SHIM_TOKEN_FILE)"},
		&cli.StringFlag{Name: "slug", EnvVars: []string{"SHIM_SLUG"}, Usage: "reach fleet member `SLUG` through a hub: every path gets the prefix /agents/SLUG"},
		&cli.StringSliceFlag{Name: "root", Usage: "local root of project NAME, as `NAME=PATH` (~ expanded, a relative PATH taken in the directory shim starts in; repeatable; always wins)"},
		&cli.StringFlag{Name: "context-prefix", Usage: "`PREFIX` of minted context ids (default chat-<client>, e.g. chat-zed)"},
		&cli.StringFlag{Name: "steer-grace", EnvVars: []string{"SHIM_STEER_GRACE"}, Value: "1.5s", Usage: "`DURATION` after a cancel in which a new prompt steers the running turn; 0 disables steering"},
		&cli.BoolFlag{Name: "threads-only", Usage: "list and load only threads whose id has this shim's prefix"},
		&cli.StringFlag{Name: "a2a-version", EnvVars: []string{"SHIM_A2A_VERSION"}, Value: "auto", Usage: "A2A protocol `VERSION`: auto, 1.0 or 0.3"},
		&cli.StringFlag{Name: "binding", EnvVars: []string{"SHIM_BINDING"}, Value: "auto", Usage: "A2A transport `BINDING`: auto (from the card), jsonrpc, http+json"},
		&cli.StringFlag{Name: "agent-profile", EnvVars: []string{"SHIM_AGENT_PROFILE"}, Value: "auto", Usage: "`PROFILE` of the agent's own protocol: auto (recognise known servers from the card), generic, gemini-cli"},
		&cli.StringFlag{Name: "state-dir", EnvVars: []string{"SHIM_STATE_DIR"}, Usage: "`DIR` of threads.json (default $XDG_STATE_HOME/shim, else ~/.local/state/shim)"},
		&cli.StringFlag{Name: "config-dir", EnvVars: []string{"SHIM_CONFIG_DIR"}, Usage: "`DIR` of the credentials file (default $XDG_CONFIG_HOME/shim, else ~/.config/shim)"},
		&cli.StringFlag{Name: "keyring", EnvVars: []string{"SHIM_KEYRING"}, Value: "auto", Usage: "`MODE`: auto (OS keyring when one answers, else the file), on, off"},
		&cli.StringFlag{Name: "busy-timeout", Value: "120s", Usage: "how long to wait (`DURATION`) for a chat that is busy elsewhere"},
		&cli.BoolFlag{Name: "allow-insecure-http", Usage: "allow sending a token over plain http to a non-loopback host"},
		&cli.BoolFlag{Name: "no-preamble", Usage: "never add the editor-context preamble to the first prompt"},
		&cli.Int64Flag{Name: "context-window", Usage: "the remote model's context window in `TOKENS`, for usage updates"},
		&cli.StringFlag{Name: "models", EnvVars: []string{"SHIM_MODELS"}, Usage: "comma-separated model ids (`LIST`) the agent accepts in message metadata model; offered as the editor's model picker"},
		&cli.StringFlag{Name: "stall", Value: "90s", Usage: "a stream silent this long (`DURATION`, keep-alives included) counts as dropped"},
		&cli.StringFlag{Name: "trace-frames", Usage: "append every raw A2A frame to `FILE`, one JSON line each, tokens redacted"},
		&cli.StringFlag{Name: "oauth-client-id", EnvVars: []string{"SHIM_OAUTH_CLIENT_ID"}, Usage: "OAuth client `ID` for `shim login` against an OAuth 2.0 / OpenID Connect agent"},
		&cli.StringFlag{Name: "oauth-client-secret-file", EnvVars: []string{"SHIM_OAUTH_CLIENT_SECRET_FILE"}, Usage: "`FILE` holding the OAuth client secret (trimmed, ~ expanded), for the client-credentials flow"},
		&cli.StringFlag{Name: "oauth-scopes", EnvVars: []string{"SHIM_OAUTH_SCOPES"}, Usage: "space- or comma-separated OAuth `SCOPES` to ask for (default: those the agent card lists)"},
		&cli.StringFlag{Name: "log-level", EnvVars: []string{"SHIM_LOG_LEVEL"}, Value: "info", Usage: "`LEVEL`: debug, info, warn or error (logs go to stderr only)"},
	})
}

// NameLibraryFlags makes the library's --help and --version flags know
// their names too.
func NameLibraryFlags() {
	named := WithNames([]cli.Flag{cli.HelpFlag, cli.VersionFlag})
	cli.HelpFlag, cli.VersionFlag = named[0], named[1]
}

// Flags that know their names. urfave/cli v2 works a flag's names out
// with a regular expression on every call of Names (FlagNames), and a run
// looks every flag up by name for every flag (runFlagActions, IsSet): with
// shim's flags that was some 500 regexp replacements at each start, 7% of
// the CPU of a cold start (perf record of 200 starts, BENCHMARKS.md).
// These wrappers give the names the library would give (a flag's name and
// aliases, none of which holds a comma or a space), worked out once;
// everything else is the library's own flag. Bool flags, the library's
// --help and --version among them, are wrapped by pointer: the library
// compares those flags with ==.
type (
	boolFlag struct {
		*cli.BoolFlag
		names []string
	}
	stringFlag struct {
		*cli.StringFlag
		names []string
	}
	stringSliceFlag struct {
		*cli.StringSliceFlag
		names []string
	}
	int64Flag struct {
		*cli.Int64Flag
		names []string
	}
)

func (f *boolFlag) Names() []string       { return f.names }
func (f stringFlag) Names() []string      { return f.names }
func (f stringSliceFlag) Names() []string { return f.names }
func (f int64Flag) Names() []string       { return f.names }

// WithNames wraps flags in flags that know their names.
func WithNames(flags []cli.Flag) []cli.Flag {
	for i, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			flags[i] = &boolFlag{f, append([]string{f.Name}, f.Aliases...)}
		case *cli.StringFlag:
			flags[i] = stringFlag{f, append([]string{f.Name}, f.Aliases...)}
		case *cli.StringSliceFlag:
			flags[i] = stringSliceFlag{f, append([]string{f.Name}, f.Aliases...)}
		case *cli.Int64Flag:
			flags[i] = int64Flag{f, append([]string{f.Name}, f.Aliases...)}
		}
	}
	return flags
}
