package acp

// notify queues one notification the way Conn.Notify does.
func (s *stream) notify(method string, params any) error {
	b, err := encodeNotification(method, params)
	if err != nil {
		return err
	}
	return s.out.post(b, true)
}

// flushClose waits until everything queued was written (or the writer
// failed), then closes: tests read the output after it.
func (s *stream) flushClose() {
	q := s.out
	q.mu.Lock()
	for (len(q.buf) > 0 || q.busy) && q.err == nil {
		q.cond.Wait()
	}
	q.mu.Unlock()
	s.Close()
}

func idOf(n uint64) ID { return ID{Num: n} }
