package bridge

import (
	"log/slog"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/roots"
	"github.com/shimdev/shim/threads"
)

// Options configures a Server.
type Options struct {
	// Version is shim's version, for agentInfo.
	Version string
	// Executable is the absolute path of the running binary (terminal auth).
	Executable string
	// ContextPrefix overrides the prefix of minted context ids.
	ContextPrefix string
	// SteerGrace is the window after a cancel in which a prompt steers.
	SteerGrace time.Duration
	// NoPreamble disables the editor-context preamble.
	NoPreamble bool
	// ContextWindow is the remote model's context window, 0 when unknown.
	ContextWindow int64
	// BusyTimeout bounds the wait for a chat busy elsewhere.
	BusyTimeout time.Duration
	// ThreadsOnly lists and loads only this shim's threads.
	ThreadsOnly bool
	// ServerKey is the normalized URL: the thread index key.
	ServerKey string
	// CurrentKey, when set, gives the key as it is now (authenticate may
	// switch to the URL of a login made after start); it wins over
	// ServerKey.
	CurrentKey func() string
	// Index is the local thread index (nil: none).
	Index *threads.Index
	// RootOverrides are the --root flags; they always win.
	RootOverrides []roots.Root
	// Home is this machine's home directory, for "~" in roots.
	Home string
	// Connect builds the A2A client from the current configuration and
	// credentials. It is called lazily and again on authenticate.
	Connect func() (*a2aclient.Client, error)
	// Logout forgets the stored token.
	Logout func() error
	// RefusedAdvice, when set, says what to do about a token the server
	// refused (it depends on where the token came from); the default
	// says to run `shim login`.
	RefusedAdvice func() string
	// Models are the model ids the agent accepts (--models): offered as
	// the model picker; none, no picker.
	Models []string
	// SignIn, when set, is signing in from the editor (signin.go).
	SignIn *SignIn
	// CredentialSource, when set, says where the token in use came from
	// (never the token), for /status.
	CredentialSource func() string
	// Log receives diagnostics (stderr).
	Log *slog.Logger
	// Answered, when set, runs once on a goroutine of its own after the
	// first initialize is answered: the process's reading ahead (what
	// earlier launches remembered, SPEC §19), which sends nothing and so
	// costs the editor's first answer nothing.
	Answered func()

	// busyPoll is how often a busy chat is polled; 0 means every 2 s.
	// Only tests set it (export_test.go).
	busyPoll time.Duration
}
