package editor

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/internal/randid"
)

// defaultPrefix prefixes minted context ids until initialize names the
// client.
const defaultPrefix = "chat-acp"

// Editor is what the client is and draws, as initialize said (its name,
// what it draws, whether it opens a page shim asks it to), the prefix of
// the context ids minted for it, and the notes it is given once.
type Editor struct {
	version string
	// fixed: the context-id prefix was given (--context-prefix); the
	// client's name does not change it.
	fixed bool

	mu    sync.Mutex
	name  string
	title string
	// draws is what the client draws: elicitation forms, command calls
	// as terminals, notices (SPEC §11.3, §11.6, §14).
	draws render.Draws
	// urlElicitation: the client opens a page shim asks it to (SPEC §14).
	urlElicitation bool
	prefix         string
	mcpNoted       bool
	// noReplayTold: the person was told a thread's history cannot be
	// replayed (an agent whose card says NoReplay).
	noReplayTold bool
}

// New is the editor before initialize: prefix, when set, is the
// context-id prefix whatever the client.
func New(version, prefix string) *Editor {
	e := &Editor{version: version, fixed: prefix != "", prefix: prefix}
	if prefix == "" {
		e.prefix = defaultPrefix
	}
	return e
}

// Learn keeps what initialize says of the client.
func (e *Editor) Learn(p *acp.InitializeParams) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p.ClientInfo != nil {
		e.name, e.title = p.ClientInfo.Name, p.ClientInfo.Title
	}
	e.draws = render.DrawsOf(p.ClientCapabilities)
	e.urlElicitation = p.ClientCapabilities.URLElicitation()
	if !e.fixed {
		e.prefix = "chat-" + Slug(e.name)
	}
}

// Answer is initialize's answer: what shim is and does, the auth methods
// it offers, and the agent's name as its title.
func (e *Editor) Answer(methods []acp.AuthMethod, agent string) acp.InitializeResult {
	var res acp.InitializeResult
	res.ProtocolVersion = 1
	caps := &res.AgentCapabilities
	caps.LoadSession = true
	caps.PromptCapabilities.Image = true
	caps.PromptCapabilities.EmbeddedContext = true
	res.Meta = &acp.InitializeMeta{}
	res.Meta.Steering.Supported = true
	res.AuthMethods = methods
	res.AgentInfo = acp.Implementation{Name: "shim", Title: agent, Version: e.version}
	return res
}

// Draws is what the client draws (SPEC §11.3, §11.6, §14).
func (e *Editor) Draws() render.Draws {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.draws
}

// Notices reports whether the client advertised notices (SPEC §14).
func (e *Editor) Notices() bool { return e.Draws().Notices }

// ShowsURL reports whether the client opens a page shim asks it to.
func (e *Editor) ShowsURL() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.urlElicitation
}

// Name is clientInfo.name from initialize.
func (e *Editor) Name() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.name
}

// Called is what the preamble calls the client: its title, else its
// name, else "an ACP editor".
func (e *Editor) Called() string {
	e.mu.Lock()
	client := e.title
	if client == "" {
		client = e.name
	}
	e.mu.Unlock()
	if client == "" {
		client = "an ACP editor"
	}
	return client
}

// ContextPrefix prefixes the context ids minted for this client.
func (e *Editor) ContextPrefix() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.prefix
}

// FirstMCPNote reports whether the log is yet to say that the editor's MCP
// servers are not forwarded: once per process.
func (e *Editor) FirstMCPNote() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	first := !e.mcpNoted
	e.mcpNoted = true
	return first
}

// FirstNoReplayNote reports whether the note that a thread's history
// cannot be replayed is due: once per process.
func (e *Editor) FirstNoReplayNote() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	first := !e.noReplayTold
	e.noReplayTold = true
	return first
}

// Slug is clientInfo.name lowercased with every character outside
// [a-z0-9] dropped, cut to 16, else "acp".
func Slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > 16 {
		s = s[:16]
	}
	if s == "" {
		return "acp"
	}
	return s
}

// MintContextID returns <prefix>-<epoch ms>-<6 hex>.
func MintContextID(prefix string, now time.Time) string {
	return prefix + "-" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + randid.Hex(3)
}
