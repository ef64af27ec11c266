package a2a

import (
	"log/slog"
	"sync"
)

// Departure is one way a server departs from the A2A spec that shim reads
// anyway (SPEC §16): its value says in plain words what the server did,
// as the log and `shim doctor --probe` say it. Where each is read is one
// function, named for what the server does (a2aclient/departures.go,
// sse.recordSeparator).
type Departure string

// The departures of SPEC §16 that the A2A client reads.
const (
	// DepartureFailureUnknownTask: the turn's own stream ended with a
	// failure under a task id no earlier frame named.
	DepartureFailureUnknownTask Departure = "sent a failure under a task id it never named"
	// DepartureOldCardPath: the agent card answered only at the A2A 0.2
	// path, /.well-known/agent.json.
	DepartureOldCardPath Departure = "has its agent card only at the old path /.well-known/agent.json"
	// DepartureStreamingNotServed: the card says the agent streams and
	// the streaming call is not there.
	DepartureStreamingNotServed Departure = "says it streams but does not answer streaming requests"
	// DepartureRecordSeparator: stream events start with U+001E (RFC 7464
	// JSON text sequences) before their JSON.
	DepartureRecordSeparator Departure = "starts each stream event with a record separator (U+001E)"
)

// The departures of SPEC §16 that a turn reads (bridge/turn), recorded
// through the A2A client's record (a2aclient.Client.Departed).
const (
	// DepartureAnswerResentInHistory: a task snapshot carried the answer
	// in its history, then the completed status carried the same message.
	DepartureAnswerResentInHistory Departure = "sent its answer again in a task's history before completing with it"
	// DepartureCancelRefused: a cancel of a task that still ran was
	// refused (the turn ended cancelled all the same).
	DepartureCancelRefused Departure = "refused to cancel a task that still runs"
)

// Departures records the departures one agent was seen to make, each
// logged once. The zero value logs nothing; a nil *Departures records
// nothing. Safe for concurrent use.
type Departures struct {
	log  *slog.Logger
	mu   sync.Mutex
	seen []Departure
}

// NewDepartures returns a record that logs each departure the first time
// it is seen to log (nil: nowhere).
func NewDepartures(log *slog.Logger) *Departures { return &Departures{log: log} }

// Saw records d; the first time, it says so in the log with attrs.
func (r *Departures) Saw(d Departure, attrs ...any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	for _, s := range r.seen {
		if s == d {
			r.mu.Unlock()
			return
		}
	}
	r.seen = append(r.seen, d)
	r.mu.Unlock()
	if r.log != nil {
		r.log.Warn("the agent departs from the A2A spec; shim reads it anyway: it "+string(d), attrs...)
	}
}

// Seen returns the departures seen so far, in the order first seen.
func (r *Departures) Seen() []Departure {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Departure(nil), r.seen...)
}
