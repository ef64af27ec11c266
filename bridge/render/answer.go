package render

// The answer text of a turn: the text shown per artifact (a replace adds
// only the new part, package shown), the task's status answer, thoughts, files,
// the failure line of a replay, a question, a steer's marker; the blank-line rule
// (blocks); the message id of every chunk (SPEC §14: an artifact's made
// unique with its task's, a message's own).

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/failure"
	"github.com/shimdev/shim/bridge/render/question"
	"github.com/shimdev/shim/bridge/render/shown"
	"github.com/shimdev/shim/steer"
)

// Answer is a turn's answer text as shown so far.
type Answer struct {
	out   *sink
	ids   *msgIDs
	agent string

	blocks blocks
	// texts are the answer texts shown, keyed by task and artifact id
	// (artifact ids are unique per task, and a new task of the same turn,
	// a re-run steer, starts afresh), and each task's status answer; the
	// last one used is kept at hand (last, lastTask, lastArtifact).
	texts        map[string]*answerText
	last         *answerText
	lastTask     string
	lastArtifact string
	statusText   *shown.Text
	// artifactText: answer text came from an artifact; statusShown: from
	// a status message (a snapshot streamer's answer, snapshot.go).
	artifactText bool
	statusShown  bool
	// failed is the friendly text of the turn's failure (Failure).
	failed string
}

// answerText is an answer's text shown so far (an artifact's, a task's
// status answer) and the id of its message.
type answerText struct {
	shown.Text
	id string
	// begun is set once its first text was shown (a block started).
	begun bool
}

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

// MessageID is the message id of the chunks of an A2A message of the task
// taskID: its own messageId, else one its task names (a message with no
// id), else one of shim's.
func (a *Answer) MessageID(taskID string, m *a2a.Message) string { return a.ids.of(taskID, m) }

// anyText reports whether answer text was shown in the turn.
func (a *Answer) anyText() bool { return a.blocks.any }

// answer shows answer text of the message id that is no artifact's.
func (a *Answer) answer(id, s string) {
	a.out.push(AnswerChunk(id, s))
	a.blocks.shown()
}

// block shows s as a new block of answer text of the message id.
func (a *Answer) block(id, s string) { a.answer(id, a.blocks.start(s)) }

// Artifact shows an artifact's parts (of the task taskID).
func (a *Answer) Artifact(taskID string, art *a2a.Artifact, appendMode bool) []Out {
	var one [1]string // the usual chunk has one text part
	textParts := one[:0]
	for i := range art.Parts {
		p := &art.Parts[i]
		switch p.Kind {
		case a2a.PartText:
			if !p.Thought() {
				textParts = append(textParts, p.Text)
			} else {
				a.thought(a.textOfArtifact(taskID, art.ID).id, p.Text)
			}
		case a2a.PartFile:
			a.file(taskID, a.textOfArtifact(taskID, art.ID).id, p)
		case a2a.PartData:
			if !p.Known() {
				a.showText(a.textOfArtifact(taskID, art.ID), "```json\n"+p.DataJSON()+"\n```\n")
			}
		}
	}
	if len(textParts) == 0 {
		return a.out.take()
	}
	at := a.textOfArtifact(taskID, art.ID)
	joined := strings.Join(textParts, "")
	var show string
	if appendMode {
		show = at.Append(joined)
	} else {
		show = at.Replace(joined)
	}
	a.showText(at, show)
	return a.out.take()
}

// textOfArtifact is what was shown of an artifact's text, made on first use.
// The one last used is at hand: a stream's chunks are of one artifact.
func (a *Answer) textOfArtifact(taskID, artifactID string) *answerText {
	if at := a.last; at != nil && a.lastTask == taskID && a.lastArtifact == artifactID {
		return at
	}
	at := a.textOf(taskID+"\x00"+artifactID, func() string { return ArtifactMessageID(taskID, artifactID) })
	a.last, a.lastTask, a.lastArtifact = at, taskID, artifactID
	return at
}

// textOf is the answer text kept under key, made with the message id id()
// on first use.
func (a *Answer) textOf(key string, id func() string) *answerText {
	at := a.texts[key]
	if at == nil {
		at = &answerText{id: id()}
		at.Reset()
		a.texts[key] = at
	}
	return at
}

// showText shows new text of an artifact; the first text of a second
// artifact starts a block.
func (a *Answer) showText(at *answerText, s string) {
	if s == "" {
		return
	}
	if !at.begun {
		at.begun = true
		s = a.blocks.start(s)
	}
	a.out.text(at.id, s)
	a.blocks.shown()
	a.artifactText = true
}

// ArtifactAnswered reports whether answer text of the turn came from an
// artifact.
func (a *Answer) ArtifactAnswered() bool { return a.artifactText }

// StatusAnswered reports whether answer text of the turn came from a
// status message (a snapshot streamer's answer).
func (a *Answer) StatusAnswered() bool { return a.statusShown }

// StatusAnswer shows a status or message text (of the message id) as
// answer text; blank lines before the turn's first text are dropped.
func (a *Answer) StatusAnswer(id, s string) []Out {
	if s != "" && !a.anyText() {
		s = a.statusText.TrimLead(s)
	}
	if s != "" {
		a.answer(id, s)
	}
	return a.out.take()
}

// statusAnswerKey names a task's status answer among its artifacts' texts.
const statusAnswerKey = "\x00status"

// statusReplace shows the text of a snapshot's status message m of
// taskID as a replace of the task's one status answer: only the suffix
// not shown yet.
func (a *Answer) statusReplace(taskID string, m *a2a.Message) []Out {
	// The task's status answer is one message: the id of the status
	// message it began with.
	at := a.textOf(taskID+"\x00"+statusAnswerKey, func() string { return a.MessageID(taskID, m) })
	if s := at.Replace(m.Text()); s != "" {
		if !at.begun {
			at.begun = true
			s = a.blocks.start(s)
		}
		a.out.text(at.id, s)
		a.blocks.shown()
		a.statusShown = true
	}
	return a.out.take()
}

func (a *Answer) thought(id, s string) {
	if s != "" {
		a.out.push(acp.AgentThoughtChunk{MessageID: id, Content: acp.Text(s)})
	}
}

// Thoughts shows the reasoning of a message of the task taskID.
func (a *Answer) Thoughts(taskID string, m *a2a.Message) []Out {
	if th := m.Thoughts(); len(th) > 0 {
		id := a.MessageID(taskID, m)
		for _, s := range th {
			a.thought(id, s)
		}
	}
	return a.out.take()
}

// file shows a file part of the artifact whose chunks are of the message
// id: a link for a URL, an image for raw image bytes, a line naming any
// other file.
func (a *Answer) file(taskID, id string, p *a2a.Part) {
	switch {
	case p.URL != "":
		name := p.Filename
		if name == "" {
			name = p.URL
			if i := strings.LastIndexByte(strings.TrimSuffix(name, "/"), '/'); i >= 0 {
				name = name[i+1:]
			}
		}
		a.out.push(acp.AgentMessageChunk{MessageID: id, Content: acp.ResourceLink{URI: p.URL, Name: name, MimeType: p.MediaType}})
		a.blocks.shown()
	case isImage(p):
		a.out.push(acp.AgentMessageChunk{MessageID: id, Content: imageOf(p)})
		a.blocks.shown()
	case len(p.Raw) > 0:
		name := p.Filename
		if name == "" {
			name = "a file"
		}
		a.showText(a.textOf(taskID+"\x00file:"+name, func() string { return id }), fmt.Sprintf("[%s (%s, %d bytes) not shown]", name, orUnknown(p.MediaType), len(p.Raw)))
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

// failureLine is the failed-turn line a replayed failed turn shows:
// ⚠️ <agent> error: <friendly text>. It returns the friendly text too.
func (a *Answer) failureLine(detail string) (line, friendly string) {
	f := a2a.FriendlyError(detail)
	if f == "" {
		f = "the task failed"
	}
	return "⚠️ " + a.agent + " error: " + f, f
}

// Failure is the error a live turn of the task taskID that failed
// answers its prompt with; m, the task's status message, says why. The
// failure is said once, by the error (SPEC §18): no failure line is shown
// as answer text as well, since clients draw the error themselves. A
// replayed failed turn, which has no error answer, shows the line (Past).
func (a *Answer) Failure(taskID string, m *a2a.Message) *acp.Error {
	detail := m.Text()
	_, f := a.failureLine(detail)
	a.failed = f
	return failure.Failed(a.agent, f, taskID, detail)
}

// FailedText is the friendly text of the turn's failure (the one Failure
// gave), "" when it did not fail so; the thread index keeps it (SPEC §16).
func (a *Answer) FailedText() string { return a.failed }

// Question shows a park of the task taskID as a question (SPEC §6).
func (a *Answer) Question(taskID string, m *a2a.Message) []Out {
	a.block(a.MessageID(taskID, m), question.Of(m))
	return a.out.take()
}

// Marker places the marker of a steer the agent read (the steer's id
// names its message; "" draws one).
func (a *Answer) Marker(id, text string) []Out {
	if id == "" {
		id = a.ids.next()
	}
	a.answer(id, steer.Marker(text))
	return a.out.take()
}

// QuestionChunk is the question of a park of the task taskID as answer
// text, of the park's message (a resumed thread's parked last turn).
func QuestionChunk(taskID string, m *a2a.Message) acp.Update {
	return AnswerChunk(messageID(taskID, m), question.Of(m))
}
