package a2aclient

// Where a server departs from the A2A spec and the client reads it anyway
// (SPEC §16): one function per departure, named for what the server does,
// its comment naming the server (README, "Agents known to work" and the
// table of departures the client reads). Each says once in the log what
// the server did (a2a.Departures), and `shim doctor --probe` reports it
// (Client.Departures).

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/remember"
)

// failureUnderUnknownTask: @a2a-js/sdk 0.3.x's request handler (Strands
// Agents and BeeAI run on 0.3.14) publishes the failure of a run that
// throws as `status-update {state: failed, final: true}` under a task id
// of its own making, after the stream named the real task, whose record
// stays working. On the turn's own stream (never a resubscription), a
// final failed or rejected status of the turn's context under a task id
// no earlier frame of that stream named is that failure of the task the
// stream named first: the event is given as the turn's task's. Any other
// frame of another task id is left as it is (a completed one included).
func failureUnderUnknownTask(seen *a2a.Departures, contextID string) func(ev *a2a.Event) {
	var first string
	named := map[string]bool{}
	return func(ev *a2a.Event) {
		if first != "" && ev.Kind == a2a.EventStatus && ev.Final && !named[ev.TaskID] &&
			(ev.Status.State == a2a.StateFailed || ev.Status.State == a2a.StateRejected) &&
			ev.ContextID != "" && ev.ContextID == contextID {
			seen.Saw(a2a.DepartureFailureUnknownTask, "sent", ev.TaskID, "task", first)
			ev.TaskID = first
			return
		}
		msgTask := ""
		if ev.Message != nil {
			msgTask = ev.Message.TaskID
		}
		for _, id := range [...]string{ev.TaskID, msgTask} {
			if id == "" || named[id] {
				continue
			}
			named[id] = true
			if first == "" {
				first = id
			}
		}
	}
}

// cardAtOldPath: Strands Agents and BeeAI cards name protocol versions
// 0.2.0 and 0.1.0, whose agent card sat at /.well-known/agent.json; a
// server of that age may serve it only there. When the card at the default
// place (<base>/.well-known/agent-card.json, no --card-url) answered 404
// (notFound), the card is read at <base>/.well-known/agent.json before
// discovery gives up (SPEC §16). Otherwise, or when the old path has no
// card either, notFound is returned as it was (a refused credential at
// the old path as it is).
func (r *cardReader) cardAtOldPath(ctx context.Context, notFound error, forced a2a.Dialect, bind a2a.Binding, pinned bool) (*a2a.Card, remember.Card, error) {
	var herr *a2a.HTTPError
	old := r.at.oldPath()
	if old == "" || !errors.As(notFound, &herr) || herr.StatusCode != http.StatusNotFound {
		return nil, remember.Card{}, notFound
	}
	card, served, err := r.readCard(ctx, CardPlace{URL: old}, forced, bind, pinned, nil)
	switch {
	case err == nil:
		r.departures.Saw(a2a.DepartureOldCardPath, "url", old)
		return card, served, nil
	case a2a.IsUnauthorized(err):
		return nil, remember.Card{}, err
	}
	return nil, remember.Card{}, notFound
}

// streamingNotServed: a server whose card says `streaming: true` while
// its streaming call (JSON-RPC message/stream or SendStreamingMessage,
// HTTP+JSON message:stream) is not there, answering -32601 (method not
// found) or HTTP 404 or 405. The message is then sent again on the
// non-streaming path (SPEC §12.6), and every later one of this client
// goes there directly (SPEC §16). It reports whether err is that answer.
func streamingNotServed(seen *a2a.Departures, noStreaming *atomic.Bool, err error) bool {
	var rpc *a2a.RPCError
	var status interface{ HTTPStatus() int }
	var herr *a2a.HTTPError
	code := 0
	switch {
	case errors.As(err, &status):
		code = status.HTTPStatus()
	case errors.As(err, &herr):
		code = herr.StatusCode
	}
	missing := code == http.StatusNotFound || code == http.StatusMethodNotAllowed ||
		(errors.As(err, &rpc) && rpc.Code == a2a.CodeMethodNotFound)
	if missing {
		noStreaming.Store(true)
		seen.Saw(a2a.DepartureStreamingNotServed, "err", err)
	}
	return missing
}
