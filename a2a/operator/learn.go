package operator

// What the server does not serve, learnt off a prompt's path (SPEC §19):
// the busy signal of a session this process minted and the sessions list,
// asked at once before its first prompt, so that a later prompt's busy
// check sends nothing on a server without them.

import (
	"context"
	"net/http"
	"net/url"
	"sync"
)

// Learn asks, at once, the busy signal of id (a session this process just
// minted) and the sessions list (?limit=1, unless known already), and
// keeps what Session would have concluded from their answers: a 405, or a
// 404 with the list absent too, turns the busy check off for the process;
// a 404 with the list there counts as the id's first miss. It asks once
// per process; Session waits for a Learn in flight.
func (o *API) Learn(ctx context.Context, id string) {
	o.mu.Lock()
	if o.base == "" || o.learning != nil || o.absent["session"] {
		o.mu.Unlock()
		return
	}
	listKnown := o.listed || o.absent["sessions"]
	done := make(chan struct{})
	o.learning = done
	o.mu.Unlock()
	defer close(done)
	var status int
	var listErr error
	var wg sync.WaitGroup
	wg.Go(func() { status, _, _ = o.do(ctx, "", http.MethodGet, "/api/chat/sessions/"+url.PathEscape(id), nil) })
	if !listKnown {
		wg.Go(func() { _, _, listErr = o.do(ctx, "sessions", http.MethodGet, "/api/chat/sessions?limit=1", nil) })
	}
	wg.Wait()
	o.mu.Lock()
	if !listKnown && listErr == nil {
		o.listed = true
	}
	if status == http.StatusMethodNotAllowed {
		o.markAbsent("session", status)
	}
	o.mu.Unlock()
	if status == http.StatusNotFound {
		o.sessionMissed(ctx, id) // the list's answer is known by now
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
