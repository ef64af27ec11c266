package bridge

// A turn's answer text, thoughts and files: the renderer's output
// (render.go) routed to the turn's output.

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/render"
)

// show routes rendered updates to whoever owns the output now; answer
// text of an artifact takes the path where queued chunks merge.
func (t *turn) show(outs []render.Out) {
	for _, o := range outs {
		if id, text, ok := o.ArtifactText(); ok {
			t.emitArtifactText(id, text)
		} else {
			t.emit(o.Update())
		}
	}
}

// showSettled routes the updates that settle open cards (emitSettled).
func (t *turn) showSettled(outs []render.Out) {
	for _, o := range outs {
		t.emitSettled(o.Update())
	}
}

// artifact shows an artifact's parts, and keeps its usage and context.
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
	if render.ArtifactShows(a) {
		t.noteBeforeAnswer()
	}
	t.show(t.r.Artifact(t.task(), a, appendMode))
}

// showStatusText shows a status or message text as answer text.
func (t *turn) showStatusText(s string) { t.show(t.r.StatusAnswer(s)) }

func (t *turn) thought(s string) { t.show(t.r.Thought(s)) }
