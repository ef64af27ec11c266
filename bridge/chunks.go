package bridge

import "github.com/shimdev/shim/steer"

// emitArtifactText sends answer text of one artifact, like emit, on the
// output path where queued chunks of the same artifact merge (stdio.go,
// textChunk).
func (t *turn) emitArtifactText(artifactID, s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Attached, the window routes to the prompt without looking at the
	// update; only otherwise is one built (and boxed) for the buffer.
	if t.win.State() == steer.Attached || t.win.Route(bufferItem(chunkUpdate{SessionUpdate: uAgentMessage, Content: text(s)})) {
		if err := t.srv.stream.textChunk(t.sess.id, artifactID, uAgentMessage, s); err != nil {
			t.srv.log.Debug("update not delivered", "err", err)
		}
	}
}
