package bridge

// emitArtifactText sends answer text of one artifact, like emit, on the
// output path where queued chunks of the same artifact merge (stdio.go,
// textChunk).
func (t *turn) emitArtifactText(artifactID, s string) {
	update := chunkUpdate{SessionUpdate: uAgentMessage, Content: text(s)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.win.Route(bufferItem(update)) {
		if err := t.srv.stream.textChunk(t.sess.id, artifactID, uAgentMessage, s); err != nil {
			t.srv.log.Debug("update not delivered", "err", err)
		}
	}
}
