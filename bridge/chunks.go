package bridge

import (
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/steer"
)

// emitArtifactText sends answer text of one artifact, like emit, on the
// output path where queued chunks of the same artifact merge
// (acp.Conn.SendText).
func (t *turn) emitArtifactText(artifactID, s string) {
	t.mu.Lock()
	// Attached, the window routes to the prompt without looking at the
	// update; only otherwise is one built (and boxed) for the buffer.
	sent := t.win.State() == steer.Attached || t.win.Route(bufferItem(render.AnswerChunk(s)))
	if sent {
		if err := t.srv.conn.SendText(t.sess.id, artifactID, s); err != nil {
			t.srv.log.Debug("update not delivered", "err", err)
			sent = false
		}
	}
	t.mu.Unlock()
	if sent {
		t.srv.pace()
	}
}
