package notice

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shimdev/shim/steer"
)

// ownNotice is a notice and the function that builds it.
type ownNotice struct {
	fn     string
	notice Notice
}

// ownNotices are every notice shim gives, one row per function that
// builds one (the functions with a parameter more than once).
var ownNotices = []ownNotice{
	{"BusyNotice", BusyNotice()},
	{"ReconnectingNotice", ReconnectingNotice()},
	{"RenewedNotice", RenewedNotice()},
	{"CancelRefusedNotice", CancelRefusedNotice()},
	{"StillFinishingNotice", StillFinishingNotice()},
	{"RenewalRefusedNotice", RenewalRefusedNotice()},
	{"MCPNotice", MCPNotice(1)},
	{"MCPNotice", MCPNotice(1000)},
	{"EarlierNotShown", EarlierNotShown()},
	{"NoSkipNotice", NoSkipNotice()},
	{"ElsewhereNotice", ElsewhereNotice()},
	{"NoReplayNotice", NoReplayNotice("Gemini SDLC Agent")},
}

// ownNotes are the other notes shim says of itself, as they are shown.
var ownNotes = []struct{ fn, text string }{
	{"steer.DroppedNote", steer.DroppedNote(90, 0)},
	{"steer.DroppedNote", steer.DroppedNote(0, 3)},
	{"steer.DroppedNote", steer.DroppedNote(1<<30, 100000)},
}

// Protocol words a person does not read (SPEC §18), and the ends of
// sentences (a full stop, a question or exclamation mark, an ellipsis,
// maybe closed by a bracket or a quote, then a space or the end).
var (
	protocolWords = regexp.MustCompile(`(?i)\b(tasks?|park|parks|parked|parking|bypass\w*|servers?|server-side)\b`)
	sentenceEnd   = regexp.MustCompile(`[.!?…]+[)\]"']*(\s|$)`)
)

// sentences counts the sentences of s (a text with no full stop is one).
func sentences(s string) int {
	n := len(sentenceEnd.FindAllStringIndex(s, -1))
	if t := strings.TrimRight(s, ")]\"' "); t != "" && !strings.ContainsAny(t[len(t)-1:], ".!?") && !strings.HasSuffix(t, "…") {
		n++ // the last sentence has no full stop
	}
	return n
}

// TestOwnWordsArePlain (SPEC §18): everything shim says of itself, a
// notice's title and description and what a client without notices is
// shown instead, and its other notes, names what happened in the user's
// terms: at most two sentences and 200 characters, no protocol words.
// Every function of this package that builds a Notice has a row, so a new
// one cannot skip the rule.
func TestOwnWordsArePlain(t *testing.T) {
	check := func(fn, part, s string) {
		t.Helper()
		s = strings.TrimSpace(s)
		if n := utf8.RuneCountInString(s); n > 200 {
			t.Errorf("%s %s: %d characters, at most 200: %q", fn, part, n, s)
		}
		if n := sentences(s); n > 2 {
			t.Errorf("%s %s: %d sentences, at most 2: %q", fn, part, n, s)
		}
		if w := protocolWords.FindString(s); w != "" {
			t.Errorf("%s %s: the protocol word %q: %q", fn, part, w, s)
		}
	}
	for _, c := range ownNotices {
		if strings.TrimSpace(c.notice.Title) == "" {
			t.Errorf("%s: no title", c.fn)
		}
		check(c.fn, "title", c.notice.Title)
		check(c.fn, "description", c.notice.Detail)
		check(c.fn, "text without notices", c.notice.Shown)
	}
	for _, c := range ownNotes {
		check(c.fn, "note", c.text)
	}

	// Every function that builds a Notice is a row above.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fd.Type.Results.List[0].Type.(*ast.Ident); !ok || id.Name != "Notice" {
				continue
			}
			if !slices.ContainsFunc(ownNotices, func(c ownNotice) bool { return c.fn == fd.Name.Name }) {
				t.Errorf("%s (%s) builds a notice that TestOwnWordsArePlain does not check: add a row", fd.Name.Name, name)
			}
		}
	}
}

// TestSentences: what the test above counts as sentences.
func TestSentences(t *testing.T) {
	for s, want := range map[string]int{
		"Waiting: this chat is busy":                       1,
		"One. Two.":                                        2,
		"One (a note). Two! Three?":                        3,
		"[One, then more: not shown here.]":                1,
		"Run `shim login` in a terminal. Then try again…":  2,
		"This agent asks (a delete is still asked).":       1,
		"Three dots… then on":                              2,
		"A title with no stop, then: a sentence. And more": 2,
	} {
		if got := sentences(s); got != want {
			t.Errorf("sentences(%q) = %d, want %d", s, got, want)
		}
	}
}
