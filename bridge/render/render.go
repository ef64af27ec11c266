package render

// The renderer: a2a values (artifacts, messages, tool calls, a past
// turn) to ACP updates. It holds only what a mapping needs to remember
// within one turn (the text shown per artifact, the open tool calls) and
// nothing else: no server, no turn, no lock, no network (tool paths are
// resolved against the roots snapshot it is given). The live turn feeds
// it events and routes what comes out (the prompt, the grace buffer,
// nobody); replay feeds it a past turn's values in order and sends what
// comes out.

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/steer"
)

// Out is one rendered update. Answer text (update nil) is kept unboxed
// with the artifact it belongs to, so that the live path can merge queued
// chunks of one artifact (acp.Conn.SendText); artifact is "" for answer
// text of no artifact.
type Out struct {
	update   acp.Update
	text     string
	artifact string
}

// AnswerChunk is the update of answer text.
func AnswerChunk(s string) acp.Update { return acp.AgentMessageChunk{Content: acp.Text(s)} }

// Update returns the update o stands for.
func (o Out) Update() acp.Update {
	if o.update != nil {
		return o.update
	}
	return AnswerChunk(o.text)
}

// ArtifactText is the answer text of an artifact o carries (the key its
// chunks merge under); ok is false for any other update.
func (o Out) ArtifactText() (artifact, text string, ok bool) {
	return o.artifact, o.text, o.update == nil && o.artifact != ""
}

// Renderer maps one turn's a2a values to updates. It is used by one
// goroutine at a time.
type Renderer struct {
	agent string
	roots Roots
	buf   []Out

	blocks blocks
	// texts and shownIDs are keyed by task and artifact id: artifact ids
	// are unique per task, and a new task of the same turn (a re-run
	// steer) starts afresh.
	texts    map[artKey]*shownText
	shownIDs map[artKey]bool
	// last is the text the last chunk was of (a stream's chunks are mostly
	// of one artifact): the two lookups above are skipped while it repeats.
	last         artKey
	lastText     *shownText
	lastShown    bool
	statusText   *shownText
	artifactText bool // answer text came from an artifact
	calls        calls
	// Snapshots (snapshot.go): the messages shown, by task and id; the
	// artifacts snapshots carried (a hash of their parts); whether answer
	// text came from a status message.
	msgs        map[string]uint8
	snapArts    map[string]uint64
	statusShown bool
	// held is a working snapshot's status message held for one frame,
	// of the task noteTask (a progress note or a snapshot streamer's
	// answer, snapshot.go); notes are the status messages shown as notes
	// (a hash of their text); framed are the tasks a frame of the turn
	// was about.
	held     *a2a.Message
	noteTask string
	notes    map[string]uint64
	framed   map[string]bool
	// terminals shows command calls as terminals (the client sent
	// _meta.terminal_output, SPEC §11.6).
	terminals bool
	// parsed is the arguments Unknown parsed, for the call's rendering.
	parsed parsedArgs
}

// parsedArgs is a call's argument text and what it parsed to.
type parsedArgs struct {
	text string
	args toolview.Args
	ok   bool
}

// New returns a renderer for a turn (or a replayed turn) of the agent
// named agent; tool paths resolve against roots; terminals is whether the
// client draws command calls as terminals.
func New(agent string, roots Roots, terminals bool) *Renderer {
	return &Renderer{agent: agent, roots: roots, terminals: terminals, texts: map[artKey]*shownText{}, shownIDs: map[artKey]bool{},
		statusText: newShownText(), calls: calls{open: map[string]*call{}},
		msgs: map[string]uint8{}, snapArts: map[string]uint64{}, notes: map[string]uint64{}, framed: map[string]bool{}}
}

// SetRoots gives the renderer a newer roots snapshot (after a reload, or
// roots learned from a list_projects result).
func (r *Renderer) SetRoots(roots Roots) { r.roots = roots }

// take returns what was rendered since the last take; the slice is valid
// until the next call of a rendering method.
func (r *Renderer) take() []Out {
	b := r.buf
	r.buf = r.buf[:0]
	return b
}

func (r *Renderer) push(u acp.Update) { r.buf = append(r.buf, Out{update: u}) }

// blocks is the one "blank line before new text" rule: a new block of
// answer text (another artifact, the failure line, a question, a note of
// shim's) that follows answer text already shown starts after a blank line.
type blocks struct{ any bool }

// start returns s as the start of a new block.
func (b *blocks) start(s string) string {
	if b.any {
		return "\n\n" + s
	}
	return s
}

// shown records that answer text was shown.
func (b *blocks) shown() { b.any = true }

// anyText reports whether answer text was shown in the turn.
func (r *Renderer) anyText() bool { return r.blocks.any }

// answer shows answer text of no artifact.
func (r *Renderer) answer(s string) {
	r.push(AnswerChunk(s))
	r.blocks.shown()
}

// block shows s as a new block of answer text.
func (r *Renderer) block(s string) { r.answer(r.blocks.start(s)) }

// Artifact shows an artifact's parts (of the task taskID).
func (r *Renderer) Artifact(taskID string, a *a2a.Artifact, appendMode bool) []Out {
	var one [1]string // the usual chunk has one text part
	textParts := one[:0]
	for i := range a.Parts {
		p := &a.Parts[i]
		switch p.Kind {
		case a2a.PartText:
			if !p.Thought() {
				textParts = append(textParts, p.Text)
			} else {
				r.thought(p.Text)
			}
		case a2a.PartFile:
			r.file(taskID, p)
		case a2a.PartData:
			if !p.Known() {
				r.showArtifactText(taskID, a.ID, "```json\n"+p.DataJSON()+"\n```\n")
			}
		}
	}
	if len(textParts) == 0 {
		return r.take()
	}
	st := r.shownText(artKey{taskID, a.ID})
	joined := strings.Join(textParts, "")
	var show string
	if appendMode {
		show = st.Append(joined)
	} else {
		show = st.Replace(joined)
	}
	r.showArtifactText(taskID, a.ID, show)
	return r.take()
}

// showArtifactText shows new text of an artifact; the first text of a second
// artifact starts a block.
func (r *Renderer) showArtifactText(taskID, id, s string) {
	if s == "" {
		return
	}
	if !r.markShown(artKey{taskID, id}) {
		s = r.blocks.start(s)
	}
	r.buf = append(r.buf, Out{text: s, artifact: id})
	r.blocks.shown()
	r.artifactText = true
}

// artKey names an artifact's text: its task and its id (a map key built
// per chunk without a concatenation).
type artKey struct{ task, id string }

// own is k with strings of its own: an event's strings may share its
// frame's buffer, which a map key would keep.
func (k artKey) own() artKey { return artKey{strings.Clone(k.task), strings.Clone(k.id)} }

// shownText is what was shown of the text keyed k, made on first use.
func (r *Renderer) shownText(k artKey) *shownText {
	if r.lastText != nil && k == r.last {
		return r.lastText
	}
	st := r.texts[k]
	if st == nil {
		st = newShownText()
		r.texts[k.own()] = st
	}
	r.last, r.lastText, r.lastShown = k, st, false
	return st
}

// markShown marks the text keyed k as shown and reports whether it was
// before.
func (r *Renderer) markShown(k artKey) bool {
	if r.lastShown && k == r.last {
		return true
	}
	was := r.shownIDs[k]
	if !was {
		r.shownIDs[k.own()] = true
	}
	if k == r.last {
		r.lastShown = true
	}
	return was
}

// ArtifactAnswered reports whether answer text of the turn came from an
// artifact.
func (r *Renderer) ArtifactAnswered() bool { return r.artifactText }

// StatusAnswer shows a status or message text as answer text; blank lines
// before the turn's first text are dropped.
func (r *Renderer) StatusAnswer(s string) []Out {
	if s != "" && !r.anyText() {
		s = r.statusText.trimLead(s)
	}
	if s != "" {
		r.answer(s)
	}
	return r.take()
}

func (r *Renderer) thought(s string) {
	if s != "" {
		r.push(acp.AgentThoughtChunk{Content: acp.Text(s)})
	}
}

// Thoughts shows a message's reasoning.
func (r *Renderer) Thoughts(m *a2a.Message) []Out {
	for _, th := range m.Thoughts() {
		r.thought(th)
	}
	return r.take()
}

// Thought shows a text as reasoning.
func (r *Renderer) Thought(s string) []Out {
	r.thought(s)
	return r.take()
}

// file shows a file part: a link for a URL, an image for raw image bytes,
// a line naming any other file.
func (r *Renderer) file(taskID string, p *a2a.Part) {
	switch {
	case p.URL != "":
		name := p.Filename
		if name == "" {
			name = p.URL
			if i := strings.LastIndexByte(strings.TrimSuffix(name, "/"), '/'); i >= 0 {
				name = name[i+1:]
			}
		}
		r.push(acp.AgentMessageChunk{Content: acp.ResourceLink{URI: p.URL, Name: name, MimeType: p.MediaType}})
		r.blocks.shown()
	case isImage(p):
		r.push(acp.AgentMessageChunk{Content: imageOf(p)})
		r.blocks.shown()
	case len(p.Raw) > 0:
		name := p.Filename
		if name == "" {
			name = "a file"
		}
		r.showArtifactText(taskID, "file:"+name, fmt.Sprintf("[%s (%s, %d bytes) not shown]", name, orUnknown(p.MediaType), len(p.Raw)))
	}
}

func isImage(p *a2a.Part) bool { return len(p.Raw) > 0 && strings.HasPrefix(p.MediaType, "image/") }

func imageOf(p *a2a.Part) acp.ImageContent {
	return acp.ImageContent{Data: base64.StdEncoding.EncodeToString(p.Raw), MimeType: p.MediaType}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// failureLine is the failed-turn line: ⚠️ <agent> error: <friendly text>.
// It returns the friendly text too.
func (r *Renderer) failureLine(detail string) (line, friendly string) {
	f := a2a.FriendlyError(detail)
	if f == "" {
		f = "the task failed"
	}
	return "⚠️ " + r.agent + " error: " + f, f
}

// Failure shows the failed-turn line for the task taskID and returns the
// turn's error, which says the same.
func (r *Renderer) Failure(detail, taskID string) ([]Out, *acp.Error) {
	line, f := r.failureLine(detail)
	r.block(line)
	return r.take(), Failed(r.agent, f, taskID, detail)
}

// Question shows a park as a question (SPEC §6).
func (r *Renderer) Question(m *a2a.Message) []Out {
	r.block(ParkQuestion(m))
	return r.take()
}

// Note shows a line of shim's own in the answer.
func (r *Renderer) Note(s string) []Out {
	r.block(s + "\n\n")
	return r.take()
}

// Marker places the marker of a steer the agent read.
func (r *Renderer) Marker(text string) []Out {
	r.answer(steer.Marker(text))
	return r.take()
}
