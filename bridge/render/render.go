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
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/steer"
)

// Out is one rendered update. Answer text (update nil) is kept unboxed
// with the id of its message, so that the live path can merge queued
// chunks of one message (acp.Conn.SendText).
type Out struct {
	update acp.Update
	text   string
	msgID  string
}

// AnswerChunk is the update of answer text of the message id (SPEC §14:
// every chunk names its message).
func AnswerChunk(id, s string) acp.Update {
	return acp.AgentMessageChunk{MessageID: id, Content: acp.Text(s)}
}

// Update returns the update o stands for.
func (o Out) Update() acp.Update {
	if o.update != nil {
		return o.update
	}
	return AnswerChunk(o.msgID, o.text)
}

// AnswerText is the answer text o carries and the id of its message (the
// key its queued chunks merge under); ok is false for any other update.
func (o Out) AnswerText() (messageID, text string, ok bool) {
	return o.msgID, o.text, o.update == nil
}

// Options are what the client draws, and how the messages shim writes
// itself are named.
type Options struct {
	// Terminals: command calls as terminals (the client sent
	// _meta.terminal_output, SPEC §11.6).
	Terminals bool
	// Notices: what shim says about itself as notices (the client
	// advertised session.notices, SPEC §14).
	Notices bool
	// Own is unique in the session (a turn's random token): the ids of
	// the messages shim writes itself (a note, a steer's marker with no
	// id) are Own-1, Own-2, …; "" draws one.
	Own string
}

// ArtifactMessageID is the message id of an artifact's chunks: artifact
// ids are unique only within their task, so the task's id makes it one
// of the session (SPEC §14). Live and replayed alike.
func ArtifactMessageID(taskID, artifactID string) string {
	if taskID == "" {
		return artifactID
	}
	return taskID + "/" + artifactID
}

// MessageID is the message id of the chunks of an A2A message of the task
// taskID: its own messageId, else one its task names (a message with no
// id), else one of shim's.
func (r *Renderer) MessageID(taskID string, m *a2a.Message) string {
	if id := messageID(taskID, m); id != "" {
		return id
	}
	return r.ownID()
}

// messageID is MessageID but for shim's own: "" when neither the message
// nor its task has an id.
func messageID(taskID string, m *a2a.Message) string {
	switch {
	case m != nil && m.ID != "":
		return m.ID
	case taskID != "":
		return taskID + "/message"
	}
	return ""
}

// QuestionChunk is the question of a park of the task taskID as answer
// text, of the park's message (a resumed thread's parked last turn).
func QuestionChunk(taskID string, m *a2a.Message) acp.Update {
	return AnswerChunk(messageID(taskID, m), ParkQuestion(m))
}

// ownID is the id of a message shim writes itself.
func (r *Renderer) ownID() string {
	if r.opts.Own == "" {
		r.opts.Own = "shim-" + randid.Hex(6)
	}
	r.own++
	return r.opts.Own + "-" + strconv.Itoa(r.own)
}

// Renderer maps one turn's a2a values to updates. It is used by one
// goroutine at a time.
type Renderer struct {
	agent string
	roots Roots
	opts  Options
	buf   []Out
	own   int // the ids of shim's own messages drawn

	blocks blocks
	// texts are the answer texts shown, keyed by task and artifact id
	// (artifact ids are unique per task, and a new task of the same turn,
	// a re-run steer, starts afresh), and each task's status answer; the
	// last one used is kept at hand (last, lastTask, lastArtifact).
	texts        map[string]*answerText
	last         *answerText
	lastTask     string
	lastArtifact string
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
	// was about, lastFramed the one the last frame was about once
	// anyFramed (a stream's frames are of one task: no map lookup while
	// it repeats).
	held       *a2a.Message
	noteTask   string
	notes      map[string]uint64
	framed     map[string]bool
	lastFramed string
	anyFramed  bool
	// parsed is the arguments Unknown parsed, for the call's rendering.
	parsed parsedArgs
	// past is the list Past returned last (its room kept by Renew).
	past []Out
}

// answerText is an answer's text shown so far (an artifact's, a task's
// status answer) and the id of its message.
type answerText struct {
	shownText
	id string
	// begun is set once its first text was shown (a block started).
	begun bool
}

// parsedArgs is a call's argument text and what it parsed to.
type parsedArgs struct {
	text string
	args toolview.Args
	ok   bool
}

// New returns a renderer for a turn (or a replayed turn) of the agent
// named agent; tool paths resolve against roots.
func New(agent string, roots Roots, opts Options) *Renderer {
	return &Renderer{agent: agent, roots: roots, opts: opts, texts: map[string]*answerText{},
		statusText: newShownText(), calls: calls{open: map[string]*call{}},
		msgs: map[string]uint8{}, snapArts: map[string]uint64{}, notes: map[string]uint64{}, framed: map[string]bool{}}
}

// Renew makes r what New(agent, roots, opts) returns, keeping the room
// of its maps and lists: a replay renders each past turn through a
// renderer of its own, and ten thousand new ones were a fifth of what it
// allocated. What r rendered before must have been taken and used.
func (r *Renderer) Renew(agent string, roots Roots, opts Options) {
	st := r.statusText
	*st = shownText{}
	st.h.SetSeed(textSeed)
	clear(r.texts)
	clear(r.calls.open)
	clear(r.msgs)
	clear(r.snapArts)
	clear(r.notes)
	clear(r.framed)
	*r = Renderer{agent: agent, roots: roots, opts: opts, buf: r.buf[:0], texts: r.texts,
		statusText: st, calls: calls{open: r.calls.open, order: r.calls.order[:0]},
		msgs: r.msgs, snapArts: r.snapArts, notes: r.notes, framed: r.framed, past: r.past[:0]}
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

// answer shows answer text of the message id that is no artifact's.
func (r *Renderer) answer(id, s string) {
	r.push(AnswerChunk(id, s))
	r.blocks.shown()
}

// block shows s as a new block of answer text of the message id.
func (r *Renderer) block(id, s string) { r.answer(id, r.blocks.start(s)) }

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
				r.thought(r.textOfArtifact(taskID, a.ID).id, p.Text)
			}
		case a2a.PartFile:
			r.file(taskID, r.textOfArtifact(taskID, a.ID).id, p)
		case a2a.PartData:
			if !p.Known() {
				r.showText(r.textOfArtifact(taskID, a.ID), "```json\n"+p.DataJSON()+"\n```\n")
			}
		}
	}
	if len(textParts) == 0 {
		return r.take()
	}
	at := r.textOfArtifact(taskID, a.ID)
	joined := strings.Join(textParts, "")
	var show string
	if appendMode {
		show = at.Append(joined)
	} else {
		show = at.Replace(joined)
	}
	r.showText(at, show)
	return r.take()
}

// textOfArtifact is what was shown of an artifact's text, made on first use.
// The one last used is at hand: a stream's chunks are of one artifact.
func (r *Renderer) textOfArtifact(taskID, artifactID string) *answerText {
	if at := r.last; at != nil && r.lastTask == taskID && r.lastArtifact == artifactID {
		return at
	}
	at := r.textOf(taskID+"\x00"+artifactID, func() string { return ArtifactMessageID(taskID, artifactID) })
	r.last, r.lastTask, r.lastArtifact = at, taskID, artifactID
	return at
}

// textOf is the answer text kept under key, made with the message id id()
// on first use.
func (r *Renderer) textOf(key string, id func() string) *answerText {
	at := r.texts[key]
	if at == nil {
		at = &answerText{id: id()}
		at.h.SetSeed(textSeed)
		r.texts[key] = at
	}
	return at
}

// showText shows new text of an artifact; the first text of a second
// artifact starts a block.
func (r *Renderer) showText(at *answerText, s string) {
	if s == "" {
		return
	}
	if !at.begun {
		at.begun = true
		s = r.blocks.start(s)
	}
	r.buf = append(r.buf, Out{text: s, msgID: at.id})
	r.blocks.shown()
	r.artifactText = true
}

// ArtifactAnswered reports whether answer text of the turn came from an
// artifact.
func (r *Renderer) ArtifactAnswered() bool { return r.artifactText }

// StatusAnswer shows a status or message text (of the message id) as
// answer text; blank lines before the turn's first text are dropped.
func (r *Renderer) StatusAnswer(id, s string) []Out {
	if s != "" && !r.anyText() {
		s = r.statusText.trimLead(s)
	}
	if s != "" {
		r.answer(id, s)
	}
	return r.take()
}

func (r *Renderer) thought(id, s string) {
	if s != "" {
		r.push(acp.AgentThoughtChunk{MessageID: id, Content: acp.Text(s)})
	}
}

// Thoughts shows the reasoning of a message of the task taskID.
func (r *Renderer) Thoughts(taskID string, m *a2a.Message) []Out {
	if th := m.Thoughts(); len(th) > 0 {
		id := r.MessageID(taskID, m)
		for _, s := range th {
			r.thought(id, s)
		}
	}
	return r.take()
}

// file shows a file part of the artifact whose chunks are of the message
// id: a link for a URL, an image for raw image bytes, a line naming any
// other file.
func (r *Renderer) file(taskID, id string, p *a2a.Part) {
	switch {
	case p.URL != "":
		name := p.Filename
		if name == "" {
			name = p.URL
			if i := strings.LastIndexByte(strings.TrimSuffix(name, "/"), '/'); i >= 0 {
				name = name[i+1:]
			}
		}
		r.push(acp.AgentMessageChunk{MessageID: id, Content: acp.ResourceLink{URI: p.URL, Name: name, MimeType: p.MediaType}})
		r.blocks.shown()
	case isImage(p):
		r.push(acp.AgentMessageChunk{MessageID: id, Content: imageOf(p)})
		r.blocks.shown()
	case len(p.Raw) > 0:
		name := p.Filename
		if name == "" {
			name = "a file"
		}
		r.showText(r.textOf(taskID+"\x00file:"+name, func() string { return id }), fmt.Sprintf("[%s (%s, %d bytes) not shown]", name, orUnknown(p.MediaType), len(p.Raw)))
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

// Failure shows the failed-turn line of the task taskID, whose status
// message m says why, and returns the turn's error, which says the same.
func (r *Renderer) Failure(taskID string, m *a2a.Message) ([]Out, *acp.Error) {
	detail := m.Text()
	line, f := r.failureLine(detail)
	r.block(r.MessageID(taskID, m), line)
	return r.take(), Failed(r.agent, f, taskID, detail)
}

// Question shows a park of the task taskID as a question (SPEC §6).
func (r *Renderer) Question(taskID string, m *a2a.Message) []Out {
	r.block(r.MessageID(taskID, m), ParkQuestion(m))
	return r.take()
}

// Marker places the marker of a steer the agent read (the steer's id
// names its message; "" draws one).
func (r *Renderer) Marker(id, text string) []Out {
	if id == "" {
		id = r.ownID()
	}
	r.answer(id, steer.Marker(text))
	return r.take()
}
