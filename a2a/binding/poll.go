package binding

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"strconv"
	"time"

	"github.com/shimdev/shim/a2a"
)

// pollFirst is the wait before a non-streaming task's first poll; the
// waits double up to Poll's interval (at most 1 s).
const pollFirst = 250 * time.Millisecond

// Poll follows a non-streaming send (SPEC §12.6). When the server
// answered at once with a task that is neither terminal nor interrupted,
// the stream returned gives that answer's events, then polls GetTask and
// gives what each snapshot shows that was not shown yet, until the task
// is terminal or interrupted. Any other answer (a message, a task that
// ran to its end because the server blocked anyway, an SSE stream) is
// returned as it is.
// interval is the longest wait between polls (at most 1 s; 0: 1 s).
func Poll(ctx context.Context, b Binding, s *Stream, interval time.Duration) *Stream {
	if s.sse != nil || len(s.queue) == 0 {
		return s
	}
	last := s.queue[len(s.queue)-1]
	if last.Kind != a2a.EventStatus || last.TaskID == "" || last.Status.State.Terminal() || last.Status.State.Interrupted() {
		return s
	}
	max := interval
	if max <= 0 || max > time.Second {
		max = time.Second
	}
	pctx, cancel := context.WithCancel(ctx)
	p := &poller{ctx: pctx, b: b, taskID: last.TaskID, max: max, wait: min(pollFirst, max),
		seen: map[string]bool{}, arts: map[string]uint64{}}
	ps := &Stream{log: s.log, trace: s.trace, ctx: pctx, method: "GetTask", cancel: cancel,
		stall: newStallReader(nil, 0, cancel), queue: p.fresh(s.queue), pull: p.next}
	s.log.Debug("the agent does not stream; polling its task", "task", p.taskID)
	return ps
}

// poller reads a task's snapshots and keeps what it already gave.
type poller struct {
	ctx    context.Context
	b      Binding
	taskID string
	max    time.Duration
	wait   time.Duration
	seen   map[string]bool   // messages given, by id (else content)
	arts   map[string]uint64 // artifacts given, by id: content hash
	status string            // the last status given
	done   bool
	queue  []a2a.Event
}

func (p *poller) next() (a2a.Event, error) {
	for len(p.queue) == 0 {
		if p.done {
			return a2a.Event{}, io.EOF
		}
		select {
		case <-time.After(p.wait):
		case <-p.ctx.Done():
			return a2a.Event{}, context.Canceled
		}
		p.wait = min(2*p.wait, p.max)
		t, err := p.b.GetTask(p.ctx, p.taskID, a2a.HistoryAll)
		if err != nil {
			if p.ctx.Err() != nil {
				return a2a.Event{}, context.Canceled
			}
			return a2a.Event{}, err
		}
		p.queue = p.fresh(a2a.TaskEvents(t))
	}
	ev := p.queue[0]
	p.queue = p.queue[1:]
	return ev, nil
}

// fresh keeps of a snapshot's events (TaskEvents' shape: agent messages,
// artifacts, then the status) those not given yet.
func (p *poller) fresh(evs []a2a.Event) []a2a.Event {
	var out []a2a.Event
	for i, ev := range evs {
		switch {
		case ev.Kind == a2a.EventArtifact && ev.Artifact != nil:
			key := ev.Artifact.ID
			if key == "" {
				key = "#" + strconv.Itoa(i)
			}
			h := hashOf(ev.Artifact.Parts, ev.Artifact.Metadata)
			if old, ok := p.arts[key]; ok && old == h {
				continue
			}
			p.arts[key] = h
		case ev.Kind == a2a.EventStatus && i < len(evs)-1:
			// An agent message of the history.
			k := messageKey(ev.Status.Message)
			if p.seen[k] {
				continue
			}
			p.seen[k] = true
		case ev.Kind == a2a.EventStatus:
			k := string(ev.Status.State) + "/" + messageKey(ev.Status.Message)
			if ev.Status.State.Terminal() || ev.Status.State.Interrupted() {
				p.done = true
			} else if k == p.status {
				continue
			}
			p.status = k
			if ev.Status.Message != nil {
				p.seen[messageKey(ev.Status.Message)] = true
			}
		}
		out = append(out, ev)
	}
	return out
}

func messageKey(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	if m.ID != "" {
		return m.ID
	}
	return "#" + strconv.FormatUint(hashOf(m.Parts, m.Metadata), 16)
}

func hashOf(parts []a2a.Part, meta json.RawMessage) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte{byte(p.Kind), 0})
		h.Write([]byte(p.Text))
		h.Write(p.Data)
		h.Write([]byte(p.URL))
		h.Write(p.Raw)
		h.Write([]byte{0})
	}
	h.Write(meta)
	return h.Sum64()
}
