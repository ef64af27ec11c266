package a2aclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/agentcard"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/cardsig"
	"github.com/shimdev/shim/a2a/remember"
)

// cardReader reads the agent card: from the first of its places that
// answers (the old path included), as an earlier launch remembered it,
// and asked for again in the background; it checks every card it reads
// (check) and keeps what it read (mem). The card in use is the client's:
// what the reader settles, the client uses, and a card that changed since
// it was remembered is given to changed.
type cardReader struct {
	at         *places
	conn       *binding.Conn
	check      *cardCheck
	mem        *remember.Origin
	departures *a2a.Departures
	log        *slog.Logger
	// What settle applies to every card (Config.EndpointOverride, Codec,
	// NoStreaming), and who is told its security scheme.
	endpointOverride string
	codec            Codec
	noStreaming      bool
	setSecurity      func(*a2a.Security)
	// changed uses a card that changed since it was remembered, checked
	// and kept (cardChanged): the client's.
	changed func(card *a2a.Card, served remember.Card, verdict *cardsig.Verdict)

	mu sync.Mutex
	// asked is closed when the remembered card's revalidation ended (nil:
	// none runs); changedCard: it brought another card, not yet told to
	// awaitCard.
	asked       chan struct{}
	changedCard bool
}

// keep checks a card read (served) and remembers it; a refused card is
// forgotten, and its refusal returned.
func (r *cardReader) keep(ctx context.Context, served remember.Card) (*cardsig.Verdict, error) {
	verdict, err := r.check.card(ctx, served.URL, served.Body)
	if err != nil {
		r.mem.ForgetCard(served.URL)
		return nil, err
	}
	r.mem.KeepCard(served)
	return verdict, nil
}

// Discover fetches the agent card once, checks its signatures (Config.
// CardCheck) and chooses the endpoint and the dialect; with an explicit
// endpoint it fetches nothing. A card remembered from an earlier launch
// (Config.Remember) is checked the same way and used at once, and asked
// for again in the background (remembered.go); a card fetched is
// remembered.
func (c *Client) Discover(ctx context.Context) (*a2a.Card, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.card != nil {
		return c.card, nil
	}
	forced := a2a.ParseDialect(c.cfg.Version)
	bind, err := a2a.ParseBinding(c.cfg.Binding)
	if err != nil {
		return nil, err
	}
	pinned, isPinned := codecs[c.cfg.Codec]
	if isPinned {
		forced, bind = pinned.dialect, pinned.binding
	}
	if c.cfg.Endpoint != "" {
		d := forced
		if d == 0 {
			d = a2a.V10
		}
		if bind == 0 {
			bind = a2a.BindingJSONRPC
		}
		c.card = &a2a.Card{Endpoint: c.cfg.Endpoint, Dialect: d, Binding: bind, Streaming: true}
		return c.card, nil
	}
	card, place, served, verdict, remembered := c.cards.rememberedCard(ctx, forced, bind, isPinned)
	background := remembered
	if remembered && verdict != nil && verdict.Status == cardsig.Verified {
		// A signed card is asked for first: nothing carries a credential
		// before the card the agent serves now passes its check (SPEC §17).
		background = false
		card, served, remembered = c.cards.askFirst(ctx, place, card, served, forced, bind, isPinned)
	}
	if !remembered {
		if card == nil {
			if card, served, err = c.cards.fetchCard(ctx, forced, bind, isPinned); err != nil {
				return nil, err
			}
		}
		c.cardURL = served.URL
		if verdict, err = c.cards.keep(ctx, served); err != nil {
			return nil, err
		}
	}
	c.cardURL = served.URL
	c.card, c.verdict = c.cards.settle(card, served.Body), verdict
	if background {
		c.cards.revalidate(ctx, place, served, forced, bind, isPinned)
	}
	return c.card, nil
}

// settle makes a card read and checked the one to use: the endpoint the
// configuration or the --url origin rule gives, the codec's dialect and
// binding, its security scheme (told to the stored credential).
func (r *cardReader) settle(card *a2a.Card, body []byte) *a2a.Card {
	pinned, isPinned := codecs[r.codec]
	card.Streaming = card.Streaming && !r.noStreaming
	switch {
	case r.endpointOverride != "":
		card.Endpoint = r.endpointOverride
	case isPinned:
		// The codec's calls go to the base, whatever interfaces the card
		// names (a platform's card may name the container behind it).
		card.Endpoint = r.at.base.String()
	default:
		card.Endpoint = r.at.rebase(card.Endpoint)
	}
	if isPinned {
		card.Tenant = ""
		card.Dialect, card.Binding = pinned.dialect, pinned.binding
	}
	card.Security = agentcard.ParseSecurity(body)
	r.setSecurity(card.Security)
	r.log.Debug("agent card", "name", card.Name, "endpoint", card.Endpoint, "dialect", card.Dialect.String(), "binding", card.Binding.String(), "streaming", card.Streaming)
	return card
}

// fetchCard reads and parses the card from the first of its places that
// answers with one: the card, and its body as served with its URL and
// validators.
func (r *cardReader) fetchCard(ctx context.Context, forced a2a.Dialect, bind a2a.Binding, isPinned bool) (*a2a.Card, remember.Card, error) {
	places := r.at.cardPlaces()
	for i, place := range places {
		card, served, err := r.readCard(ctx, place, forced, bind, isPinned, nil)
		if err == nil {
			return card, served, nil
		}
		if i == len(places)-1 {
			return r.cardAtOldPath(ctx, err, forced, bind, isPinned)
		}
		if a2a.IsUnauthorized(err) || !errors.Is(err, a2a.ErrNoCard) {
			return nil, remember.Card{}, err
		}
		r.log.Info("no agent card there; trying the next place", "url", place.URL, "next", places[i+1].URL, "err", err)
	}
	return nil, remember.Card{}, errors.New("no place to read the agent card from")
}

// ServedCard reads the agent card as served, from the first of its
// places that answers, without checking its signatures or using it: its
// URL and its bytes (what `shim login --trust-new-key` offers to trust).
// With only an endpoint there is no card: an error.
func (c *Client) ServedCard(ctx context.Context) (string, []byte, error) {
	if c.cfg.Endpoint != "" {
		return "", nil, errors.New("--endpoint skips the agent card")
	}
	forced := a2a.ParseDialect(c.cfg.Version)
	bind, err := a2a.ParseBinding(c.cfg.Binding)
	if err != nil {
		return "", nil, err
	}
	pinned, isPinned := codecs[c.cfg.Codec]
	if isPinned {
		forced, bind = pinned.dialect, pinned.binding
	}
	_, served, err := c.cards.fetchCard(ctx, forced, bind, isPinned)
	return served.URL, served.Body, err
}

// readCard reads and parses the card at place: the card, and its body as
// served with its URL and validators. pinned: a codec fixes the dialect
// and binding, so a card naming no interface of theirs is taken for its
// name, skills and capabilities. With known (a remembered card), the
// request carries its validators, and a 304 answers errNotModified.
func (r *cardReader) readCard(ctx context.Context, place CardPlace, forced a2a.Dialect, bind a2a.Binding, pinned bool, known *remember.Card) (*a2a.Card, remember.Card, error) {
	d := place.Dialect
	if d == 0 {
		d = a2a.V10
	}
	served := remember.Card{URL: place.URL}
	req, err := r.conn.NewRequest(ctx, http.MethodGet, place.URL, nil, d)
	if err != nil {
		return nil, served, err
	}
	if known != nil {
		setValidators(req.Header, known)
	}
	resp, err := r.conn.Do(req)
	if err != nil {
		return nil, served, r.conn.Error(place.URL, err)
	}
	body, err := r.conn.ReadBody(resp)
	if err != nil {
		return nil, served, r.conn.Error(place.URL, err)
	}
	served.Body, served.ETag, served.LastModified = body, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if known != nil && resp.StatusCode == http.StatusNotModified {
		return nil, served, errNotModified
	}
	if resp.StatusCode != http.StatusOK {
		herr := binding.HTTPError(resp.StatusCode, place.URL, resp.Header.Get("Content-Type"), body)
		herr.Want = "an agent card"
		if herr.Unauthorized() {
			return nil, served, herr
		}
		return nil, served, fmt.Errorf("%w: %w", a2a.ErrNoCard, herr)
	}
	card, err := agentcard.Parse(body, forced, bind)
	if err != nil && !(pinned && card != nil) {
		if !json.Valid(body) {
			herr := binding.HTTPError(resp.StatusCode, place.URL, resp.Header.Get("Content-Type"), body)
			herr.Want = "an agent card"
			return nil, served, fmt.Errorf("%w: %w", a2a.ErrNoCard, herr)
		}
		return nil, served, fmt.Errorf("agent card at %s: %w", place.URL, err)
	}
	return card, served, nil
}
