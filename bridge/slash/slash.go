package slash

import (
	"slices"
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/textcut"
)

// Status is shim's own command.
const Status = "status"

// Limits of a command's name, description and input hint, and of the
// list (SPEC §13 amended: shim's own command included).
const (
	nameMax = 32
	descMax = 200
	hintMax = 80
	Max     = 1000
)

// Set is the commands of a card: the list the editor shows and the skill
// id behind each skill's name.
type Set struct {
	List    []acp.AvailableCommand
	skillOf map[string]string
}

// Skill is the skill id the command name names, "" for none (shim's own
// status among them).
func (s Set) Skill(name string) string { return s.skillOf[name] }

// Same reports whether two lists show the same commands.
func Same(a, b []acp.AvailableCommand) bool { return slices.EqualFunc(a, b, sameCommand) }

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
	if len(name) > nameMax {
		name = name[:nameMax]
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

// Of builds the commands of a card (nil: no card known): its
// first skills, as many as the list holds beside shim's own.
func Of(card *a2a.Card) Set {
	set := Set{skillOf: map[string]string{}}
	nm := newNamer(Status)
	if card != nil {
		for _, sk := range card.Skills[:min(len(card.Skills), Max-1)] {
			base := commandName(sk.ID)
			if base == "" {
				base = commandName(sk.Name)
			}
			if base == "" {
				base = "skill"
			}
			name := nm.name(base)
			desc, _, _ := strings.Cut(strings.TrimSpace(sk.Description), "\n")
			desc = textcut.FirstChars(strings.TrimSpace(desc), descMax)
			if desc == "" {
				desc = textcut.FirstChars(strings.TrimSpace(sk.Name), descMax)
			}
			if desc == "" {
				desc = sk.ID
			}
			cmd := acp.AvailableCommand{Name: name, Description: desc}
			if len(sk.Examples) > 0 && strings.TrimSpace(sk.Examples[0]) != "" {
				cmd.Input = &acp.CommandInput{Hint: textcut.FirstChars(sk.Examples[0], hintMax)}
			}
			set.List = append(set.List, cmd)
			set.skillOf[name] = sk.ID
		}
	}
	set.List = append(set.List, acp.AvailableCommand{Name: Status,
		Description: "Show the agent, its connection and this session's permissions and model (answered by shim)"})
	return set
}

func sameCommand(a, b acp.AvailableCommand) bool {
	if a.Name != b.Name || a.Description != b.Description || (a.Input == nil) != (b.Input == nil) {
		return false
	}
	return a.Input == nil || a.Input.Hint == b.Input.Hint
}

// Command reads the command a prompt starts with: the "/word" at the
// start of its first text block; "" when there is none.
func Command(blocks []acp.PromptBlock) string {
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
