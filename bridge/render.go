package bridge

// The renderer: a2a values (artifacts, messages, tool calls, a past
// turn) to ACP updates. It holds only what a mapping needs to remember
// within one turn (the text shown per artifact, the open tool cards) and
// nothing else: no server, no turn, no lock, no network (tool paths are
// resolved by the resolver it is given). The live turn feeds it events
// and routes what comes out (the prompt, the grace buffer, nobody); replay
// feeds it a past turn's values in order and sends what comes out.

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/steer"
)

// out is one rendered update. Answer text (update nil) is kept unboxed
// with the artifact it belongs to, so that the live path can merge queued
// chunks of one artifact (acp.Conn.SendText); artifact is "" for answer
// text of no artifact.
type out struct {
	update   acp.Update
	text     string
	artifact string
}

// answerChunk is the update of answer text.
func answerChunk(s string) acp.Update { return acp.AgentMessageChunk{Content: acp.Text(s)} }

// Update returns the update o stands for.
func (o out) Update() acp.Update {
	if o.update != nil {
		return o.update
	}
	return answerChunk(o.text)
}

// renderer maps one turn's a2a values to updates. It is used by one
// goroutine at a time.
type renderer struct {
	agent string
	res   toolview.Resolver
	buf   []out

	blocks blocks
	// texts and shownIDs are keyed by task and artifact id: artifact ids
	// are unique per task, and a new task of the same turn (a re-run
	// steer) starts afresh.
	texts        map[string]*shownText
	shownIDs     map[string]bool
	statusText   *shownText
	artifactText bool // answer text came from an artifact
	cards        toolCards
	// Snapshots (render_snapshot.go): the messages shown, by task and id;
	// the artifacts snapshots carried (a hash of their parts); whether
	// answer text came from a status message.
	msgs        map[string]uint8
	snapArts    map[string]uint64
	statusShown bool
	// held is a working snapshot's status message held for one frame,
	// of the task noteTask (a progress note or a snapshot streamer's
	// answer, render_snapshot.go); notes are the status messages shown
	// as notes (a hash of their text); framed are the tasks a frame of
	// the turn was about.
	held     *a2a.Message
	noteTask string
	notes    map[string]uint64
	framed   map[string]bool
	// terminals shows command cards as terminals (the client sent
	// _meta.terminal_output, SPEC §11.6).
	terminals bool
}

func newRenderer(agent string, res toolview.Resolver) *renderer {
	return &renderer{agent: agent, res: res, texts: map[string]*shownText{}, shownIDs: map[string]bool{},
		statusText: newShownText(), cards: toolCards{open: map[string]*toolCard{}},
		msgs: map[string]uint8{}, snapArts: map[string]uint64{}, notes: map[string]uint64{}, framed: map[string]bool{}}
}

// newSessionRenderer is a renderer for a session of s: its options are
// what the client said it can show.
func (s *Server) newSessionRenderer(agent string, res toolview.Resolver) *renderer {
	r := newRenderer(agent, res)
	s.infoMu.Lock()
	r.terminals = s.terminals
	s.infoMu.Unlock()
	return r
}

// take returns what was rendered since the last take; the slice is valid
// until the next call of a rendering method.
func (r *renderer) take() []out {
	b := r.buf
	r.buf = r.buf[:0]
	return b
}

func (r *renderer) push(u acp.Update) { r.buf = append(r.buf, out{update: u}) }

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
func (r *renderer) anyText() bool { return r.blocks.any }

// answer shows answer text of no artifact.
func (r *renderer) answer(s string) {
	r.push(answerChunk(s))
	r.blocks.shown()
}

// block shows s as a new block of answer text.
func (r *renderer) block(s string) { r.answer(r.blocks.start(s)) }

// artifact shows an artifact's parts (of the task taskID).
func (r *renderer) artifact(taskID string, a *a2a.Artifact, appendMode bool) []out {
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
	key := taskID + "\x00" + a.ID
	st := r.texts[key]
	if st == nil {
		st = newShownText()
		r.texts[key] = st
	}
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
func (r *renderer) showArtifactText(taskID, id, s string) {
	if s == "" {
		return
	}
	if key := taskID + "\x00" + id; !r.shownIDs[key] {
		r.shownIDs[key] = true
		s = r.blocks.start(s)
	}
	r.buf = append(r.buf, out{text: s, artifact: id})
	r.blocks.shown()
	r.artifactText = true
}

// statusAnswer shows a status or message text as answer text; blank lines
// before the turn's first text are dropped.
func (r *renderer) statusAnswer(s string) []out {
	if s != "" && !r.anyText() {
		s = r.statusText.trimLead(s)
	}
	if s != "" {
		r.answer(s)
	}
	return r.take()
}

func (r *renderer) thought(s string) {
	if s != "" {
		r.push(acp.AgentThoughtChunk{Content: acp.Text(s)})
	}
}

// thoughts shows a message's reasoning.
func (r *renderer) thoughts(m *a2a.Message) []out {
	for _, th := range m.Thoughts() {
		r.thought(th)
	}
	return r.take()
}

// thoughtText shows a text as reasoning.
func (r *renderer) thoughtText(s string) []out {
	r.thought(s)
	return r.take()
}

// file shows a file part: a link for a URL, an image for raw image bytes,
// a line naming any other file.
func (r *renderer) file(taskID string, p *a2a.Part) {
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

// failureLine is the failed-turn line: ⚠️ <agent> error: <friendly text>.
// It returns the friendly text too.
func (r *renderer) failureLine(detail string) (line, friendly string) {
	f := a2a.FriendlyError(detail)
	if f == "" {
		f = "the task failed"
	}
	return "⚠️ " + r.agent + " error: " + f, f
}

// failure shows the failed-turn line and returns its friendly text.
func (r *renderer) failure(detail string) ([]out, string) {
	line, f := r.failureLine(detail)
	r.block(line)
	return r.take(), f
}

// question shows a park as a question (SPEC §6).
func (r *renderer) question(m *a2a.Message) []out {
	r.block(parkQuestion(m))
	return r.take()
}

// note shows a line of shim's own in the answer.
func (r *renderer) note(s string) []out {
	r.block(s + "\n\n")
	return r.take()
}

// marker places the marker of a steer the agent read.
func (r *renderer) marker(text string) []out {
	r.answer(steer.Marker(text))
	return r.take()
}

// userMessage shows a past user message: its text (preamble stripped)
// and its images.
func (r *renderer) userMessage(m *a2a.Message) []out {
	if s := stripPreamble(m.Text()); strings.TrimSpace(s) != "" {
		r.push(acp.UserMessageChunk{Content: acp.Text(s)})
	}
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind == a2a.PartFile && isImage(p) {
			r.push(acp.UserMessageChunk{Content: imageOf(p)})
		}
	}
	return r.take()
}

// steersRead shows the steers a past turn's agent read, as the user's
// words.
func (r *renderer) steersRead(items []a2a.SteerItem) []out {
	for _, st := range items {
		if strings.TrimSpace(st.Text) != "" {
			r.push(acp.UserMessageChunk{Content: acp.Text(st.Text)})
		}
	}
	return r.take()
}

// pastEnd shows a past turn's answer and how it ended: its artifacts'
// text (else the operator API's text, else a completed turn's status
// text) as one chunk, then the failure line, the question, the
// authentication text or that it still runs.
func (r *renderer) pastEnd(p *pastTurn) []out {
	var b blocks
	var answer strings.Builder
	for i := range p.artifacts {
		if s := artifactAnswer(&p.artifacts[i]); strings.TrimSpace(s) != "" {
			answer.WriteString(b.start(s))
			b.shown()
		}
	}
	statusText := strings.TrimSpace(p.status.Message.Text())
	if !b.any && p.text != "" && (p.state != a2a.StateFailed || strings.TrimSpace(p.text) != statusText) {
		if s := trimLeadingBlankLines(p.text); s != "" {
			answer.WriteString(s)
			b.shown()
		}
	}
	if !b.any && (p.state == a2a.StateCompleted || p.state == a2a.StateRejected) && p.status.Message.Hitl() == nil {
		if s := trimLeadingBlankLines(p.status.Message.Text()); s != "" {
			answer.WriteString(s)
			b.shown()
		}
	}
	if b.any {
		r.push(answerChunk(answer.String()))
	}
	var end string
	switch p.state {
	case a2a.StateFailed:
		end, _ = r.failureLine(p.status.Message.Text())
	case a2a.StateInputRequired:
		end = parkQuestion(p.status.Message)
	case a2a.StateAuthRequired:
		end = statusText
	case a2a.StateWorking, a2a.StateSubmitted:
		end = "(still running elsewhere…)"
	}
	if end != "" {
		r.push(answerChunk(b.start(end)))
	}
	return r.take()
}

// artifactAnswer is the answer text of a stored artifact, without its
// leading blank lines.
func artifactAnswer(a *a2a.Artifact) string {
	var b strings.Builder
	for j := range a.Parts {
		if p := &a.Parts[j]; p.Kind == a2a.PartText && !p.Thought() {
			b.WriteString(p.Text)
		}
	}
	return trimLeadingBlankLines(b.String())
}

func trimLeadingBlankLines(s string) string {
	st := newShownText()
	return st.trimLead(s)
}

const preambleStart = "[Context: the user is talking to you from "

// stripPreamble removes the editor-context line shim puts before the first
// prompt of a minted session (and the blank line after it).
func stripPreamble(s string) string {
	if !strings.HasPrefix(s, preambleStart) {
		return s
	}
	line, rest, _ := strings.Cut(s, "\n")
	if !strings.HasSuffix(strings.TrimRight(line, " \r"), "]") {
		return s
	}
	rest = strings.TrimPrefix(rest, "\r")
	return strings.TrimPrefix(strings.TrimPrefix(rest, "\n"), "\r\n")
}
