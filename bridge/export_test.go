package bridge

// currentTurn is the session's latest turn.
func currentTurn(sess *session) *turn {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.current
}

// winBuffered is the detached output buffered and dropped (for tests).
func (t *turn) winBuffered() (kept, dropped int) { return t.win.Buffered() }
