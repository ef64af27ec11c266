package bridge

// Commands (SPEC §11.1): the card's skills as the editor's "/" menu,
// then shim's own `status`, sent after the response of new, load and
// resume and again when the card changes; a prompt that starts with a
// skill's command carries the skill's id as a hint; /status is answered
// here without an A2A call.

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/textcut"
)

// statusCommand is shim's own command.
const statusCommand = "status"

// Limits of a command's name, description and input hint, and of the
// list (SPEC §13 amended: shim's own command included).
const (
	commandNameMax = 32
	commandDescMax = 200
	commandHintMax = 80
	commandsMax    = 1000
)

// commands is the card's skills as the editor's commands: the list last
// sent (cardChanged compares), a prompt's skill hint, and /status.
type commands struct {
	out   *out
	agent *remoteAgent
	store *store
	log   *slog.Logger
	// version is shim's; source, when set, says where the token in use
	// came from (Options.CredentialSource).
	version string
	source  func() string

	// mu guards the command list last sent.
	mu   sync.Mutex
	sent []acp.AvailableCommand
}

// commandSet is the commands of a card: the list the editor shows and the
// skill id behind each skill's name.
type commandSet struct {
	list    []acp.AvailableCommand
	skillOf map[string]string
}

// commandName is a skill id made a command name: lowercased, each run of
// characters outside [a-z0-9_-] one "-", "-" trimmed, cut at 32.
func commandName(id string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(id) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-")
	if len(name) > commandNameMax {
		name = name[:commandNameMax]
	}
	return name
}

// namer gives each command a name no earlier one has: the base, else
// base-2, base-3, … Each base remembers the suffix it reached, so that n
// skills of one id cost n names tried, not n²/2 (SPEC §13 amended).
type namer struct {
	used  map[string]bool
	next  map[string]int
	tried int // names tried, for the tests that pin the cost linear
}

func newNamer(taken ...string) *namer {
	nm := &namer{used: map[string]bool{}, next: map[string]int{}}
	for _, name := range taken {
		nm.used[name] = true
	}
	return nm
}

// name returns the first free name for base and takes it.
func (nm *namer) name(base string) string {
	name := base
	nm.tried++
	if nm.used[name] {
		n := max(nm.next[base], 2)
		for ; ; n++ {
			name = base + "-" + strconv.Itoa(n)
			nm.tried++
			if !nm.used[name] {
				break
			}
		}
		nm.next[base] = n + 1
	}
	nm.used[name] = true
	return name
}

// commandsOf builds the commands of a card (nil: no card known): its
// first skills, as many as the list holds beside shim's own.
func commandsOf(card *a2a.Card) commandSet {
	set := commandSet{skillOf: map[string]string{}}
	nm := newNamer(statusCommand)
	if card != nil {
		for _, sk := range card.Skills[:min(len(card.Skills), commandsMax-1)] {
			base := commandName(sk.ID)
			if base == "" {
				base = commandName(sk.Name)
			}
			if base == "" {
				base = "skill"
			}
			name := nm.name(base)
			desc, _, _ := strings.Cut(strings.TrimSpace(sk.Description), "\n")
			desc = textcut.FirstChars(strings.TrimSpace(desc), commandDescMax)
			if desc == "" {
				desc = textcut.FirstChars(strings.TrimSpace(sk.Name), commandDescMax)
			}
			if desc == "" {
				desc = sk.ID
			}
			cmd := acp.AvailableCommand{Name: name, Description: desc}
			if len(sk.Examples) > 0 && strings.TrimSpace(sk.Examples[0]) != "" {
				cmd.Input = &acp.CommandInput{Hint: textcut.FirstChars(sk.Examples[0], commandHintMax)}
			}
			set.list = append(set.list, cmd)
			set.skillOf[name] = sk.ID
		}
	}
	set.list = append(set.list, acp.AvailableCommand{Name: statusCommand,
		Description: "Show the agent, its connection and this session's permissions and model (answered by shim)"})
	return set
}

// send sends a session its commands (after the response that
// introduced it) and remembers the list sent.
func (c *commands) send(id string) {
	set := commandsOf(c.agent.knownCard())
	c.mu.Lock()
	c.sent = set.list
	c.mu.Unlock()
	c.out.notify(id, render.Commands(set.list))
}

// cardChanged re-sends the commands to every open session when the card
// in use gives another list than the one sent: the extended card replaced
// the public one (SPEC §12.2; a2aclient.Client.OnCardChange calls it), or a new
// card after authenticate.
func (c *commands) cardChanged() {
	set := commandsOf(c.agent.knownCard())
	c.mu.Lock()
	same := c.sent == nil || slices.EqualFunc(c.sent, set.list, sameCommand)
	if !same {
		c.sent = set.list
	}
	c.mu.Unlock()
	if same {
		return
	}
	ids := c.store.ids()
	if len(ids) == 0 {
		return
	}
	c.log.Info("the agent's skills changed; sending the commands again", "sessions", len(ids))
	for _, id := range ids {
		c.store.enqueue(id, func() { c.out.notify(id, render.Commands(set.list)) })
	}
}

func sameCommand(a, b acp.AvailableCommand) bool {
	if a.Name != b.Name || a.Description != b.Description || (a.Input == nil) != (b.Input == nil) {
		return false
	}
	return a.Input == nil || a.Input.Hint == b.Input.Hint
}

// slashCommand reads the command a prompt starts with: the "/word" at the
// start of its first text block; "" when there is none.
func slashCommand(blocks []acp.PromptBlock) string {
	for i := range blocks {
		if blocks[i].C.Type != "text" {
			continue
		}
		rest, ok := strings.CutPrefix(blocks[i].C.Text, "/")
		if !ok {
			return ""
		}
		word, _, _ := strings.Cut(rest, " ")
		word, _, _ = strings.Cut(word, "\n")
		word, _, _ = strings.Cut(word, "\t")
		return word
	}
	return ""
}

// skillHint is the skill id a prompt's command names, "" for none.
func (c *commands) skillHint(cmd string) string {
	if cmd == "" {
		return ""
	}
	return commandsOf(c.agent.knownCard()).skillOf[cmd]
}

// status answers /status: what the session talks to and how, as
// message chunks, then end_turn. No A2A call is made.
func (c *commands) status(req *acp.Request, sess *turn.Session) {
	client := c.agent.knownClient()
	card := c.agent.knownCard()
	line := func(label, value string) string {
		if value == "" {
			value = "unknown"
		}
		return "- " + label + ": " + value + "\n"
	}
	var b strings.Builder
	b.WriteString("**" + c.agent.name() + "** through shim " + c.version + "\n\n")
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
