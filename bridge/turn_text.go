package bridge

// A turn's answer text, thoughts and files, as they are shown.

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// artifact shows an artifact's parts.
func (t *turn) artifact(a *a2a.Artifact, appendMode bool) {
	if a == nil {
		return
	}
	// (The copies inside the ifs keep a chunk without usage or context
	// from allocating them.)
	if u, ok := a.Usage(); ok {
		u := u
		t.usage = &u
		t.sess.mu.Lock()
		t.sess.costUSD += u.CostUSD
		t.sess.mu.Unlock()
	}
	if c, ok := a.Context(); ok {
		c := c
		t.ctxInfo = &c
	}
	var one [1]string // the usual chunk has one text part
	textParts := one[:0]
	for i := range a.Parts {
		p := &a.Parts[i]
		switch p.Kind {
		case a2a.PartText:
			if !p.Thought() {
				textParts = append(textParts, p.Text)
			} else {
				t.thought(p.Text)
			}
		case a2a.PartFile:
			t.file(p)
		case a2a.PartData:
			if !p.Known() {
				t.showArtifactText(a.ID, "```json\n"+p.DataJSON()+"\n```\n")
			}
		}
	}
	if len(textParts) == 0 {
		return
	}
	key := t.artifactKey(a.ID)
	st := t.texts[key]
	if st == nil {
		st = newShownText()
		t.texts[key] = st
	}
	joined := strings.Join(textParts, "")
	var show string
	if appendMode {
		show = st.Append(joined)
	} else {
		show = st.Replace(joined)
	}
	t.showArtifactText(a.ID, show)
}

// artifactKey names an artifact of the turn's current task.
func (t *turn) artifactKey(id string) string { return t.task() + "\x00" + id }

// showArtifactText shows new text of an artifact; the first text of a
// second artifact is preceded by a blank line.
func (t *turn) showArtifactText(id, s string) {
	if s == "" {
		return
	}
	if key := t.artifactKey(id); !t.shownIDs[key] {
		t.shownIDs[key] = true
		if t.anyText {
			s = "\n\n" + s
		}
	}
	t.emitArtifactText(id, s)
	t.anyText = true
	t.artifactText = true
}

// showStatusText shows a status or message text as answer text.
func (t *turn) showStatusText(s string) {
	if s == "" {
		return
	}
	if !t.anyText {
		s = t.statusText.trimLead(s)
	}
	if s == "" {
		return
	}
	t.emit(acp.AgentMessageChunk{Content: acp.Text(s)})
	t.anyText = true
}

func (t *turn) thought(s string) {
	if s == "" {
		return
	}
	t.emit(acp.AgentThoughtChunk{Content: acp.Text(s)})
}

// file shows a file part: a link for a URL, an image for raw image bytes.
func (t *turn) file(p *a2a.Part) {
	switch {
	case p.URL != "":
		name := p.Filename
		if name == "" {
			name = p.URL
			if i := strings.LastIndexByte(strings.TrimSuffix(name, "/"), '/'); i >= 0 {
				name = name[i+1:]
			}
		}
		t.emit(acp.AgentMessageChunk{Content: acp.ResourceLink{URI: p.URL, Name: name, MimeType: p.MediaType}})
		t.anyText = true
	case len(p.Raw) > 0 && strings.HasPrefix(p.MediaType, "image/"):
		t.emit(acp.AgentMessageChunk{Content: acp.ImageContent{Data: base64.StdEncoding.EncodeToString(p.Raw), MimeType: p.MediaType}})
		t.anyText = true
	case len(p.Raw) > 0:
		name := p.Filename
		if name == "" {
			name = "a file"
		}
		t.showArtifactText("file:"+name, fmt.Sprintf("[%s (%s, %d bytes) not shown]", name, orUnknown(p.MediaType), len(p.Raw)))
	}
}
