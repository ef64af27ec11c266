package bridge

// Commands (SPEC §11.1): the card's skills as the editor's "/" menu,
// then shim's own `status`, sent after the response of new, load and
// resume and again when the card changes; a prompt that starts with a
// skill's command carries the skill's id as a hint; /status is answered
// here without an A2A call.

import (
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/bridge/turn"
	"github.com/shimdev/shim/internal/textcut"
	"slices"
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
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

// knownCard is the card in use, when discovery ran; it never fetches.
func (s *Server) knownCard() *a2a.Card {
	s.clientMu.Lock()
	c := s.client
	s.clientMu.Unlock()
	if c == nil {
		return nil
	}
	return c.KnownCard()
}

// sendCommands sends a session its commands (after the response that
// introduced it) and remembers the list sent.
func (s *Server) sendCommands(id string) {
	set := commandsOf(s.knownCard())
	s.cmdMu.Lock()
	s.commandsSent = set.list
	s.cmdMu.Unlock()
	s.notify(id, render.Commands(set.list))
}

// cardChanged re-sends the commands to every open session when the card
// in use gives another list than the one sent: the extended card replaced
// the public one (SPEC §12.2; a2aclient.Client.OnCardChange calls it), or a new
// card after authenticate.
func (s *Server) cardChanged() {
	set := commandsOf(s.knownCard())
	s.cmdMu.Lock()
	same := s.commandsSent == nil || slices.EqualFunc(s.commandsSent, set.list, sameCommand)
	if !same {
		s.commandsSent = set.list
	}
	s.cmdMu.Unlock()
	var ids []string
	if !same {
		s.sessMu.Lock()
		for id := range s.sessions {
			ids = append(ids, id)
		}
		s.sessMu.Unlock()
	}
	if same || len(ids) == 0 {
		return
	}
	slices.Sort(ids)
	s.log.Info("the agent's skills changed; sending the commands again", "sessions", len(ids))
	for _, id := range ids {
		s.enqueue(id, func() { s.notify(id, render.Commands(set.list)) })
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
func (s *Server) skillHint(cmd string) string {
	if cmd == "" {
		return ""
	}
	return commandsOf(s.knownCard()).skillOf[cmd]
}

// showStatus answers /status: what the session talks to and how, as
// message chunks, then end_turn. No A2A call is made.
func (s *Server) showStatus(req *acp.Request, sess *turn.Session) {
	c := s.knownClient()
	card := s.knownCard()
	line := func(label, value string) string {
		if value == "" {
			value = "unknown"
		}
		return "- " + label + ": " + value + "\n"
	}
	var b strings.Builder
	b.WriteString("**" + s.agentName() + "** through shim " + s.opts.Version + "\n\n")
	url := ""
	if c != nil {
		url = c.Base()
	}
	b.WriteString(line("URL", url))
	dialect, endpoint := "", ""
	if card != nil {
		dialect, endpoint = "A2A "+card.Dialect.String()+", "+card.Binding.String(), card.Endpoint
	}
	b.WriteString(line("Protocol", dialect))
	b.WriteString(line("Endpoint", endpoint))
	creds := "none"
	if s.opts.CredentialSource != nil {
		if src := s.opts.CredentialSource(); src != "" {
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
	s.notify(sess.ID(), render.AnswerChunk(b.String()))
	s.reply(req, acp.PromptResult{StopReason: acp.StopEndTurn}, nil)
}

// knownClient is the A2A client when one was built; it builds none.
func (s *Server) knownClient() *a2aclient.Client {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	return s.client
}
