package history

// session/list's rows (SPEC §4.4): the server's sessions when it has the
// operator API, with what the thread index knows of each, else the
// index's threads; filtered; the missing titles fetched.

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/bridge/past"
	"github.com/shimdev/shim/threads"
)

const (
	// titleFetchers bounds the concurrent fetches of missing titles.
	titleFetchers = 4
	// titleBudget bounds the time a listing spends fetching titles.
	titleBudget = 10 * time.Second
)

// Row is one thread of a listing.
type Row struct {
	ID  string
	CWD string
	// Dirs are the thread's additional directories (the index's).
	Dirs    []string
	Title   string
	Updated time.Time
	Digits  int // fractional-second digits of Updated to show
	TaskIDs []string
	// Fetched: the title was fetched (the index is to learn it).
	Fetched bool
}

// Listing is what a listing reads and how it filters.
type Listing struct {
	Client *a2aclient.Client
	// Items are the thread index's threads of this agent (nil: none).
	Items []threads.Item
	// Prefix, when set, keeps only the threads whose id starts with it
	// (--threads-only).
	Prefix string
	// CWD, when set, keeps only the threads of that cwd (or of none,
	// which then get it).
	CWD string
	Log *slog.Logger
}

// List returns the rows of a listing, their missing titles fetched (a few
// at a time, within a time budget). Its only error is a refused token.
func List(ctx context.Context, l Listing) ([]*Row, error) {
	rows, operator, err := l.rows(ctx)
	if err != nil {
		return nil, err
	}
	kept := rows[:0]
	for _, r := range rows {
		if l.Prefix != "" && !strings.HasPrefix(r.ID, l.Prefix) {
			continue
		}
		if l.CWD != "" && r.CWD != "" && r.CWD != l.CWD {
			continue
		}
		if r.CWD == "" {
			r.CWD = l.CWD
		}
		kept = append(kept, r)
	}
	l.fillTitles(ctx, kept, operator)
	return kept, nil
}

// rows are the server's sessions (operator true) or the index's threads,
// the deleted ones and those that never got a prompt left out.
func (l Listing) rows(ctx context.Context) (rows []*Row, operator bool, err error) {
	sessions, err := l.Client.Operator().Sessions(ctx)
	switch {
	case err == nil:
		indexed := make(map[string]threads.Item, len(l.Items))
		for _, it := range l.Items {
			indexed[it.ID] = it
		}
		for _, s := range sessions {
			it := indexed[s.ID]
			if it.Deleted {
				continue
			}
			title := s.Title
			if title == s.ID {
				// A server that titles a thread by its id has no
				// title for it: the first user message is its title.
				title = ""
			}
			if title == "" {
				title = it.Title
			}
			rows = append(rows, &Row{ID: s.ID, CWD: it.CWD, Dirs: it.AdditionalDirectories, Title: title, Updated: s.Updated, Digits: s.UpdatedDigits, TaskIDs: it.TaskIDs})
		}
		return rows, true, nil
	case a2a.IsUnauthorized(err):
		return nil, false, err
	case !errors.Is(err, a2aclient.ErrNoOperator):
		l.Log.Warn("the server's session list failed; listing the local thread index", "err", err)
	}
	for _, it := range l.Items {
		if !it.Deleted && prompted(it) {
			rows = append(rows, &Row{ID: it.ID, CWD: it.CWD, Dirs: it.AdditionalDirectories, Title: it.Title, Updated: it.UpdatedAt, TaskIDs: it.TaskIDs})
		}
	}
	return rows, false, nil
}

// prompted reports whether an index entry is of a thread that got a
// prompt: it has a title or a task. An entry with neither is a chat that
// never got one, as earlier releases wrote them at session/new (SPEC §18):
// not listed.
func prompted(it threads.Item) bool { return it.Title != "" || len(it.TaskIDs) > 0 }

// fillTitles fetches the first user message of the rows with no title, a
// few at a time within a time budget.
func (l Listing) fillTitles(ctx context.Context, rows []*Row, operator bool) {
	ctx, cancel := context.WithTimeout(ctx, titleBudget)
	defer cancel()
	sem := make(chan struct{}, titleFetchers)
	var wg sync.WaitGroup
	for _, r := range rows {
		if r.Title != "" || (!operator && len(r.TaskIDs) == 0) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if title := l.fetchTitle(ctx, r, operator); title != "" {
				r.Title, r.Fetched = title, true
			}
		}()
	}
	wg.Wait()
}

// fetchTitle reads a thread's first user message: from /turns when the
// server has the operator API, else from the first recorded task.
func (l Listing) fetchTitle(ctx context.Context, r *Row, operator bool) string {
	if operator {
		ts, err := l.Client.Operator().Turns(ctx, r.ID)
		if err == nil {
			return past.Title(fromOperator(ts))
		}
		if !errors.Is(err, a2aclient.ErrNoOperator) {
			l.Log.Debug("title not fetched", "session", r.ID, "err", err)
			return ""
		}
	}
	if len(r.TaskIDs) == 0 {
		return ""
	}
	task, err := l.Client.GetTask(a2a.WithSession(ctx, r.ID), r.TaskIDs[0], a2a.HistoryAll)
	if err != nil {
		l.Log.Debug("title not fetched", "session", r.ID, "err", err)
		return ""
	}
	return past.Title([]past.Turn{fromTask(task)})
}
