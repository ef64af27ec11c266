package a2aclient

// The agent card remembered between launches (SPEC §19, package
// remember): checked as a fetched card is (SPEC §17), used at once, and
// asked for again in parallel with its validators; a card that changed is
// used as soon as it arrives, and a refused one stops the client. A
// signed card (verified under its pin or --card-keys) is asked for again
// first (askFirst): no credential goes out before the card the agent
// serves now passes its check, as on a first launch.

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/cardsig"
	"github.com/shimdev/shim/a2a/remember"
)

// errNotModified is readCard's answer to a 304 for a remembered card.
var errNotModified = errors.New("the agent card has not changed")

// setValidators asks for the card only when it changed since known.
func setValidators(h http.Header, known *remember.Card) {
	if known.ETag != "" {
		h.Set("If-None-Match", known.ETag)
	}
	if known.LastModified != "" {
		h.Set("If-Modified-Since", known.LastModified)
	}
}

// rememberedCard is the card remembered for the first of the card's
// places that has one (the old path included), parsed and checked as a
// fetched card is: ok is false when none is remembered or the one
// remembered does not pass (it is forgotten, and the card is read as on a
// first launch, so a refusal comes from the card the agent serves now).
// The client's mu is held.
func (r *cardReader) rememberedCard(ctx context.Context, forced a2a.Dialect, bind a2a.Binding, isPinned bool) (*a2a.Card, CardPlace, remember.Card, *cardsig.Verdict, bool) {
	places := r.at.cardPlaces()
	if old := r.at.oldPath(); old != "" {
		places = append(slices.Clip(places), CardPlace{URL: old})
	}
	for _, place := range places {
		known := r.mem.Card(place.URL)
		if known == nil {
			continue
		}
		card, err := agentcard.Parse(known.Body, forced, bind)
		if err != nil && !(isPinned && card != nil) {
			r.log.Info("the remembered agent card does not decode; reading it again", "card", place.URL, "err", err)
			r.mem.ForgetCard(place.URL)
			return nil, place, remember.Card{}, nil, false
		}
		var verdict *cardsig.Verdict
		if v := r.check.verifier; v != nil {
			got, err := v.Verify(ctx, place.URL, known.Body)
			if err != nil {
				r.log.Info("the remembered agent card does not pass its signature check; reading it again", "card", place.URL, "err", err)
				r.mem.ForgetCard(place.URL)
				return nil, place, remember.Card{}, nil, false
			}
			verdict = &got
		}
		if place.URL == r.at.oldPath() {
			r.departures.Saw(a2a.DepartureOldCardPath, "url", place.URL)
		}
		r.log.Debug("using the remembered agent card; asking the agent whether it changed", "card", place.URL, "checked", known.Checked)
		return card, place, *known, verdict, true
	}
	return nil, CardPlace{}, remember.Card{}, nil, false
}

// cardRemembered tells whether a card is remembered for one of the card's
// places (the client's mu is held).
func (r *cardReader) cardRemembered() bool {
	places := r.at.cardPlaces()
	if old := r.at.oldPath(); old != "" {
		places = append(slices.Clip(places), CardPlace{URL: old})
	}
	return slices.ContainsFunc(places, func(p CardPlace) bool { return r.mem.Card(p.URL) != nil })
}

// revalidate asks the agent for the card again, with the remembered
// card's validators, in the background (the client's mu is held): a 304 or the same
// bytes keep it; another card is checked and used at once (or, refused,
// stops the client); a card no longer served is forgotten for the next
// launch. awaitCard waits for it.
func (r *cardReader) revalidate(ctx context.Context, place CardPlace, known remember.Card, forced a2a.Dialect, bind a2a.Binding, isPinned bool) {
	done := make(chan struct{})
	r.mu.Lock()
	r.asked = done
	r.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(done)
		card, served, err := r.readCard(ctx, place, forced, bind, isPinned, &known)
		switch {
		case errors.Is(err, errNotModified), err == nil && bytes.Equal(served.Body, known.Body):
			r.mem.KeepCard(confirmed(known, served))
		case err != nil:
			r.readAgainFailed(place.URL, err)
		default:
			r.cardChanged(ctx, card, served)
		}
	}()
}

// askFirst asks for a remembered signed card again before it is used
// (the client's mu is held): unchanged (a 304 or the same bytes), the remembered card
// is used and kept (remembered true); changed, the card served now is
// returned to be checked and used as a fetched one; not read, nil and the
// card is read as on a first launch.
func (r *cardReader) askFirst(ctx context.Context, place CardPlace, card *a2a.Card, known remember.Card, forced a2a.Dialect, bind a2a.Binding, isPinned bool) (*a2a.Card, remember.Card, bool) {
	fresh, served, err := r.readCard(ctx, place, forced, bind, isPinned, &known)
	switch {
	case errors.Is(err, errNotModified), err == nil && bytes.Equal(served.Body, known.Body):
		r.mem.KeepCard(confirmed(known, served))
		return card, known, true
	case err == nil:
		return fresh, served, false
	}
	r.readAgainFailed(place.URL, err)
	return nil, remember.Card{}, false
}

// confirmed is known as the agent confirmed it now (a 304 or the same
// bytes): checked now, with the validators it sent.
func confirmed(known, served remember.Card) remember.Card {
	known.Checked = time.Time{} // KeepCard: now
	if served.ETag != "" {
		known.ETag = served.ETag
	}
	if served.LastModified != "" {
		known.LastModified = served.LastModified
	}
	return known
}

// readAgainFailed: the remembered card could not be read again. An answer
// of the agent (no card there now, a card that does not decode) forgets it
// for the next launch; a connection that failed keeps it. This process
// goes on with it either way.
func (r *cardReader) readAgainFailed(cardURL string, err error) {
	var unreachable *a2a.UnreachableError
	if errors.As(err, &unreachable) {
		r.log.Info("the agent card could not be read again; using the remembered one", "card", cardURL, "err", err)
		return
	}
	r.log.Warn("the agent card is no longer served as remembered; using the remembered one this time", "card", cardURL, "err", err)
	r.mem.ForgetCard(cardURL)
}

// cardChanged gives a card that changed since it was remembered to
// changed, once it passes its check (a refused one is forgotten), and
// tells awaitCard it changed.
func (r *cardReader) cardChanged(ctx context.Context, card *a2a.Card, served remember.Card) {
	verdict, err := r.keep(ctx, served)
	if err != nil {
		return
	}
	r.changed(card, served, verdict)
	r.mu.Lock()
	r.changedCard = true
	r.mu.Unlock()
}

// awaitCard waits for the remembered card's revalidation, if one runs:
// the card's refusal when it was refused, else whether the card in use
// changed since the last call.
func (r *cardReader) awaitCard(ctx context.Context) (changed bool, err error) {
	r.mu.Lock()
	asked := r.asked
	r.mu.Unlock()
	if asked == nil {
		return false, nil
	}
	select {
	case <-asked:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	if ce := r.check.refused.Load(); ce != nil {
		return false, ce
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	changed, r.changedCard = r.changedCard, false
	return changed, nil
}
