package bridge

// Commands (SPEC §11.1): the card's skills as the editor's "/" menu,
// then shim's own `status`, sent after the response of new, load and
// resume and again when the card changes; a prompt that starts with a
// skill's command carries the skill's id as a hint; /status is answered
// here without an A2A call. A card's commands are package slash's.

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/remote"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/session"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/bridge/slash"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
)

// commands is the card's skills as the editor's commands: the list last
// sent (cardChanged compares), a prompt's skill hint, and /status.
type commands struct {
	out    *out
	agent  *remote.Agent
	store  *sessions.Store
	queues *queues
	log    *slog.Logger
	// version is shim's; source, when set, says where the token in use
	// came from (Options.CredentialSource).
	version string
	source  func() string

	// mu guards the command list last sent.
	mu   sync.Mutex
	sent []acp.AvailableCommand
}

// send sends a session its commands (after the response that
// introduced it) and remembers the list sent.
func (c *commands) send(id string) {
	set := slash.Of(c.agent.KnownCard())
	c.mu.Lock()
	c.sent = set.List
	c.mu.Unlock()
	c.out.notify(id, session.Commands(set.List))
}

// cardChanged re-sends the commands to every open session when the card
// in use gives another list than the one sent: the extended card replaced
// the public one (SPEC §12.2; a2aclient.Client.OnCardChange calls it), or a new
// card after authenticate.
func (c *commands) cardChanged() {
	set := slash.Of(c.agent.KnownCard())
	c.mu.Lock()
	same := c.sent == nil || slash.Same(c.sent, set.List)
	if !same {
		c.sent = set.List
	}
	c.mu.Unlock()
	if same {
		return
	}
	ids := c.store.IDs()
	if len(ids) == 0 {
		return
	}
	c.log.Info("the agent's skills changed; sending the commands again", "sessions", len(ids))
	for _, id := range ids {
		c.queues.enqueue(id, func() { c.out.notify(id, session.Commands(set.List)) })
	}
}

// skillHint is the skill id a prompt's command names, "" for none.
func (c *commands) skillHint(cmd string) string {
	if cmd == "" {
		return ""
	}
	return slash.Of(c.agent.KnownCard()).Skill(cmd)
}

// status answers /status: what the session talks to and how, as
// message chunks, then end_turn. No A2A call is made.
func (c *commands) status(req *acp.Request, sess *turn.Session) {
	client := c.agent.KnownClient()
	card := c.agent.KnownCard()
	line := func(label, value string) string {
		if value == "" {
			value = "unknown"
		}
		return "- " + label + ": " + value + "\n"
	}
	var b strings.Builder
	b.WriteString("**" + c.agent.Name() + "** through shim " + c.version + "\n\n")
	url := ""
	if client != nil {
		url = client.Base()
	}
	b.WriteString(line("URL", url))
	dialect, endpoint := "", ""
	if card != nil {
		dialect, endpoint = "A2A "+card.Dialect.String()+", "+card.Binding.String(), card.Endpoint
	}
	b.WriteString(line("Protocol", dialect))
	b.WriteString(line("Endpoint", endpoint))
	creds := "none"
	if c.source != nil {
		if src := c.source(); src != "" {
			creds = src
		}
	}
	b.WriteString(line("Credentials", creds))
	st := settingsOf(sess)
	b.WriteString(line("Permissions", modeName(st.mode)+" ("+st.mode+")"))
	model := "Agent's default"
	if st.model != "" {
		model = st.model
	}
	b.WriteString(line("Model", model))
	c.out.notify(sess.ID(), render.AnswerChunk("shim-status-"+randid.Hex(6), b.String()))
	c.out.reply(req, acp.PromptResult{StopReason: acp.StopEndTurn}, nil)
}
