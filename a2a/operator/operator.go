package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/wire"
)

// The optional operator HTTP API of protoAgent-style servers. Every call
// goes to the same base (with the /agents/<slug> prefix), with the same
// token and headers as A2A. A 404 or 405 means the server lacks that part
// of the API: the call reports it absent (ErrAbsent), never as a failure,
// and it is not asked again in this process.

// ErrAbsent is returned by operator calls the server does not offer.
var ErrAbsent = errors.New("a2a: the server has no operator API for this")

// API is the operator API client of one agent. It is safe for concurrent
// use.
type API struct {
	conn *binding.Conn
	// base is the agent's base URL (with the /agents/<slug> prefix); ""
	// when only an endpoint is known: then every call is ErrAbsent.
	base string
	// dialect is the dialect of the card in use (its headers go on every
	// call too).
	dialect func() a2a.Dialect

	mu     sync.Mutex
	absent map[string]bool
	// keep is told of each part found absent that is worth keeping
	// between launches (Remember); nil keeps none.
	keep func(part string)
	// listed is set once the sessions list answered: the server has the
	// sessions API, so a 404 on one session means "unknown session".
	listed bool
	// misses counts the 404s of Session per id; unknown holds the ids
	// not asked again (see Session).
	misses  map[string]int
	unknown map[string]bool
	// learning is closed once the sessions list Learn asked answered.
	learning chan struct{}
}

// New returns the operator API of the agent at base over conn; dialect
// gives the dialect of the card in use, whose headers every call carries.
func New(conn *binding.Conn, base string, dialect func() a2a.Dialect) *API {
	return &API{conn: conn, base: base, dialect: dialect,
		absent: map[string]bool{}, misses: map[string]int{}, unknown: map[string]bool{}}
}

// do makes one call; family names the part of the API for the
// absent-cache. It returns the status and body of a 2xx answer.
func (o *API) do(ctx context.Context, family, method, path string, body any) (int, []byte, error) {
	o.mu.Lock()
	gone := o.absent[family]
	o.mu.Unlock()
	if gone {
		return 0, nil, ErrAbsent
	}
	if o.base == "" {
		return 0, nil, ErrAbsent
	}
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	target := o.base + path
	resp, data, err := o.conn.Call(ctx, method, target, b, o.dialect(), "")
	if err != nil {
		return 0, nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		if family != "" {
			o.mu.Lock()
			o.markAbsent(family, resp.StatusCode)
			o.mu.Unlock()
		}
		return resp.StatusCode, nil, ErrAbsent
	case resp.StatusCode/100 != 2:
		return resp.StatusCode, nil, binding.HTTPError(resp.StatusCode, target, resp.Header.Get("Content-Type"), data)
	}
	return resp.StatusCode, data, nil
}

func (o *API) getJSON(ctx context.Context, family, path string, v any) error {
	_, data, err := o.do(ctx, family, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	// The decoder of every A2A body (a thread's turns can be megabytes).
	if err := wire.Unmarshal(data, v); err != nil {
		return a2a.NewDecodeError(err, data)
	}
	return nil
}

// ProjectRoot is one project root the server reports.
type ProjectRoot struct{ Name, Path string }

// Roots returns the server's project roots, in priority order:
// /api/fs/roots, else /api/config's filesystem.projects then /api/projects.
// The three are asked at once (one round trip, SPEC §19).
func (o *API) Roots(ctx context.Context) ([]ProjectRoot, error) {
	var fs struct {
		Roots json.RawMessage `json:"roots"`
	}
	var cfg struct {
		Config struct {
			Filesystem struct {
				Projects []struct{ Name, Path string } `json:"projects"`
			} `json:"filesystem"`
		} `json:"config"`
	}
	var projects struct {
		Projects []struct{ Name, Path string } `json:"projects"`
	}
	var err, cerr, perr error
	var wg sync.WaitGroup
	wg.Go(func() { err = o.getJSON(ctx, "fs-roots", "/api/fs/roots", &fs) })
	wg.Go(func() { cerr = o.getJSON(ctx, "config", "/api/config", &cfg) })
	wg.Go(func() { perr = o.getJSON(ctx, "projects", "/api/projects", &projects) })
	wg.Wait()
	if err == nil {
		return orderedRoots(fs.Roots), nil
	}
	if !errors.Is(err, ErrAbsent) {
		return nil, err
	}
	var out []ProjectRoot
	for _, p := range cfg.Config.Filesystem.Projects {
		out = append(out, ProjectRoot{p.Name, p.Path})
	}
	for _, p := range projects.Projects {
		out = append(out, ProjectRoot{p.Name, p.Path})
	}
	if len(out) == 0 {
		if cerr != nil && !errors.Is(cerr, ErrAbsent) {
			return nil, cerr
		}
		if perr != nil && !errors.Is(perr, ErrAbsent) {
			return nil, perr
		}
	}
	return out, nil
}

// orderedRoots reads {"name": "/path", …} keeping the server's order.
func orderedRoots(raw json.RawMessage) []ProjectRoot {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []ProjectRoot
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return out
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return out
		}
		name, _ := k.(string)
		switch p := v.(type) {
		case string:
			out = append(out, ProjectRoot{name, p})
		case map[string]any:
			if s, ok := p["path"].(string); ok {
				out = append(out, ProjectRoot{name, s})
			}
		}
	}
	return out
}

// SessionRow is one thread the server lists.
type SessionRow struct {
	ID      string
	Title   string
	Updated time.Time
	// UpdatedDigits is how many fractional-second digits the server gave
	// (its precision, kept when the time is shown).
	UpdatedDigits int
	TurnCount     int
}

// Sessions lists the server's chat sessions, newest first.
func (o *API) Sessions(ctx context.Context) ([]SessionRow, error) {
	var r struct {
		Sessions []struct {
			ID          string  `json:"session_id"`
			Title       string  `json:"title"`
			LastUpdated string  `json:"last_updated"`
			TurnCount   float64 `json:"turn_count"`
		} `json:"sessions"`
		Reason string `json:"reason"`
	}
	if err := o.getJSON(ctx, "sessions", "/api/chat/sessions?limit=200", &r); err != nil {
		return nil, err
	}
	if len(r.Sessions) == 0 && r.Reason != "" {
		return nil, fmt.Errorf("the server could not list its sessions: %s", r.Reason)
	}
	out := make([]SessionRow, 0, len(r.Sessions))
	o.mu.Lock()
	o.listed = true
	for _, s := range r.Sessions {
		// Listed: the server knows it now; its busy signal is worth asking.
		delete(o.unknown, s.ID)
		delete(o.misses, s.ID)
	}
	o.mu.Unlock()
	for _, s := range r.Sessions {
		out = append(out, SessionRow{ID: s.ID, Title: s.Title, Updated: ParseTime(s.LastUpdated),
			UpdatedDigits: FracDigits(s.LastUpdated), TurnCount: int(s.TurnCount)})
	}
	return out, nil
}

// ParseTime reads the server's timestamps: RFC 3339, or naive ISO 8601
// (UTC by the server's convention).
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	// No text parses in two of the layouts (a zone, or none; a T, or a
	// space): the one the text looks like is tried first, so that a
	// thread's naive timestamps cost no failed parse (and its error) each.
	layouts := timeLayouts[:]
	if naive(s) {
		layouts = naiveFirst[:]
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// The layouts of ParseTime, RFC 3339 first or last.
var (
	timeLayouts = [...]string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"}
	naiveFirst  = [...]string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", time.RFC3339Nano}
)

// naive reports whether a timestamp looks zoneless: no Z and no offset
// after its date.
func naive(s string) bool {
	const date = len("2006-01-02")
	return len(s) > date && !strings.ContainsAny(s[date:], "Zz+-")
}

// FracDigits is the number of fractional-second digits of a timestamp
// ParseTime reads (0 when it has none).
func FracDigits(s string) int {
	const secs = len("2006-01-02T15:04:05")
	if len(s) <= secs || s[secs] != '.' {
		return 0
	}
	n := 0
	for _, c := range s[secs+1:] {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	return n
}

// SessionSummary is the busy signal of one session.
type SessionSummary struct {
	// Active is true only when the server said exactly true.
	Active      bool
	LastState   string
	LastUpdated time.Time
}

// Session returns one session's summary; ErrAbsent when the route is
// missing or the session unknown.
//
// What makes the request useless is remembered, so a server without the
// API costs no GET per turn: a 405 means the route is absent. A 404 means
// either that or "unknown session"; the sessions list, asked once
// (?limit=1), tells them apart: absent too (404/405) and the whole busy
// check is off for the process. With the list there, the id is not asked
// again after its second 404 (the first can be a new thread the server
// learns with its first message), until the sessions list names it.
func (o *API) Session(ctx context.Context, id string) (*SessionSummary, error) {
	var r struct {
		Active      any    `json:"active"`
		LastState   string `json:"last_state"`
		LastUpdated string `json:"last_updated"`
	}
	o.learnt(ctx)
	o.mu.Lock()
	gone := o.absent["session"] || o.unknown[id]
	o.mu.Unlock()
	if gone {
		return nil, ErrAbsent
	}
	status, data, err := o.do(ctx, "", http.MethodGet, "/api/chat/sessions/"+url.PathEscape(id), nil)
	if err != nil {
		switch status {
		case http.StatusMethodNotAllowed:
			o.mu.Lock()
			o.markAbsent("session", status)
			o.mu.Unlock()
		case http.StatusNotFound:
			o.sessionMissed(ctx, id)
		}
		return nil, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, a2a.NewDecodeError(err, data)
	}
	active, _ := r.Active.(bool)
	return &SessionSummary{Active: active, LastState: r.LastState, LastUpdated: ParseTime(r.LastUpdated)}, nil
}

// sessionMissed handles a 404 on one session's summary (see Session).
func (o *API) sessionMissed(ctx context.Context, id string) {
	o.mu.Lock()
	listed, noList := o.listed, o.absent["sessions"]
	o.mu.Unlock()
	if !listed && !noList {
		_, _, err := o.do(ctx, "sessions", http.MethodGet, "/api/chat/sessions?limit=1", nil)
		switch {
		case err == nil:
			listed = true
		case errors.Is(err, ErrAbsent):
			noList = true
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if listed {
		o.listed = true
	}
	if noList {
		// No sessions list: the 404 is the route's (remembered as the
		// list's own absence is).
		o.markAbsent("session", http.StatusNotFound)
		return
	}
	if o.misses[id]++; o.misses[id] >= 2 {
		o.unknown[id] = true
	}
}

// Turn is one task of a thread as the operator API keeps it.
type Turn struct {
	TaskID    string
	State     a2a.State
	Updated   time.Time
	Text      string
	Status    a2a.Status
	Artifacts []a2a.Artifact
	History   []a2a.Message
}

// Turns returns a thread's newest turns (up to 200), oldest first.
func (o *API) Turns(ctx context.Context, id string) ([]Turn, error) {
	var r struct {
		Turns []struct {
			TaskID      string           `json:"task_id"`
			State       wire.Enum        `json:"state"`
			LastUpdated string           `json:"last_updated"`
			Text        string           `json:"text"`
			Status      *wire.Status     `json:"status"`
			Artifacts   []*wire.Artifact `json:"artifacts"`
			History     []*wire.Message  `json:"history"`
		} `json:"turns"`
	}
	if err := o.getJSON(ctx, "turns", "/api/chat/sessions/"+url.PathEscape(id)+"/turns?limit=200", &r); err != nil {
		return nil, err
	}
	out := make([]Turn, 0, len(r.Turns))
	for _, w := range r.Turns {
		t := Turn{TaskID: w.TaskID, State: w.State.State(), Updated: ParseTime(w.LastUpdated), Text: w.Text}
		if w.Status != nil {
			t.Status = w.Status.Model()
			if t.State == a2a.StateUnknown {
				t.State = t.Status.State
			}
		} else {
			t.Status = a2a.Status{State: t.State}
		}
		// Each artifact and message is read where the turn keeps it
		// (a null one is left out).
		t.Artifacts = modelsOf(w.Artifacts, (*wire.Artifact).ModelTo)
		t.History = modelsOf(w.History, (*wire.Message).MessageTo)
		out = append(out, t)
	}
	return out, nil
}

// nulls counts the null elements of a list.
func nulls[T any](ps []*T) int {
	n := 0
	for _, p := range ps {
		if p == nil {
			n++
		}
	}
	return n
}

// modelsOf reads each wire value of ws that is not null into a list sized
// for them (nil when there is none): to reads one in place.
func modelsOf[W, M any](ws []*W, to func(*W, *M)) []M {
	n := len(ws) - nulls(ws)
	if n == 0 {
		return nil
	}
	out := make([]M, n)
	i := 0
	for _, w := range ws {
		if w != nil {
			to(w, &out[i])
			i++
		}
	}
	return out
}

// Steer queues text for the running turn of a session. It reports true
// only when the server answered 200 with ok: true.
func (o *API) Steer(ctx context.Context, sessionID, steerID, text string) (bool, error) {
	_, data, err := o.do(ctx, "steer", http.MethodPost, "/api/chat/sessions/"+url.PathEscape(sessionID)+"/steer",
		map[string]string{"id": steerID, "text": text})
	if err != nil {
		return false, err
	}
	var r struct {
		OK bool `json:"ok"`
	}
	_ = json.Unmarshal(data, &r)
	return r.OK, nil
}

// Unsteer removes a queued steer; it reports whether it was still queued.
func (o *API) Unsteer(ctx context.Context, sessionID, steerID string) (bool, error) {
	_, data, err := o.do(ctx, "steer", http.MethodDelete,
		"/api/chat/sessions/"+url.PathEscape(sessionID)+"/steer/"+url.PathEscape(steerID), nil)
	if err != nil {
		return false, err
	}
	var r struct {
		Removed bool `json:"removed"`
	}
	_ = json.Unmarshal(data, &r)
	return r.Removed, nil
}

// Handoff is a session the console offered to an editor.
type Handoff struct {
	SessionID string
	Project   string
	Path      string
	Line      int
	Title     string
}

// Claim asks for a console hand-off matching cwd; nil when there is none.
func (o *API) Claim(ctx context.Context, cwd string) (*Handoff, error) {
	status, data, err := o.do(ctx, "handoff", http.MethodPost, "/api/editor/handoff/claim", map[string]string{"cwd": cwd})
	if err != nil {
		return nil, err
	}
	if status == http.StatusNoContent || len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var r struct {
		SessionID *string  `json:"session_id"`
		Project   *string  `json:"project"`
		Path      *string  `json:"path"`
		Line      *float64 `json:"line"`
		Title     *string  `json:"title"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, a2a.NewDecodeError(err, data)
	}
	if r.SessionID == nil || *r.SessionID == "" {
		return nil, nil
	}
	h := &Handoff{SessionID: *r.SessionID}
	if r.Project != nil {
		h.Project = *r.Project
	}
	if r.Path != nil {
		h.Path = *r.Path
	}
	if r.Line != nil {
		h.Line = int(*r.Line)
	}
	if r.Title != nil {
		h.Title = strings.TrimSpace(*r.Title)
	}
	return h, nil
}

// Check asks one operator API path with a GET, as shim doctor does, and
// returns the HTTP status; it goes through the same rules as every call
// (the token only to --url's origin, never over plain http to another
// machine, no redirect followed with it).
func (o *API) Check(ctx context.Context, path string) (int, error) {
	if o.base == "" {
		return 0, ErrAbsent
	}
	resp, _, err := o.conn.Call(ctx, http.MethodGet, o.base+path, nil, o.dialect(), "")
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}
