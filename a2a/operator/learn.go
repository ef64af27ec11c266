package operator

// What the server does not serve, learnt off a prompt's path (SPEC §19):
// the sessions list asked once in the background, so that a later
// prompt's busy check sends nothing on a server without the sessions API.

import (
	"context"
	"errors"
	"net/http"
)

// Learn asks the sessions list (?limit=1) once per process, unless it is
// known already. A session this process just minted is unknown to the
// server until its first message, so its busy signal would answer 404
// whatever the server has; with the list absent too (404/405) that 404
// reads as the route being absent (Session's rule), and the busy check is
// off for the process. Session waits for a Learn in flight rather than
// asking the list itself.
func (o *API) Learn(ctx context.Context) {
	o.mu.Lock()
	if o.base == "" || o.learning != nil || o.listed || o.absent["sessions"] || o.absent["session"] {
		o.mu.Unlock()
		return
	}
	done := make(chan struct{})
	o.learning = done
	o.mu.Unlock()
	defer close(done)
	_, _, err := o.do(ctx, "sessions", http.MethodGet, "/api/chat/sessions?limit=1", nil)
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case err == nil:
		o.listed = true
	case errors.Is(err, ErrAbsent):
		o.absent["session"] = true
	}
}

// learnt waits for a Learn in flight, if any (at most until ctx ends).
func (o *API) learnt(ctx context.Context) {
	o.mu.Lock()
	ch := o.learning
	o.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}
