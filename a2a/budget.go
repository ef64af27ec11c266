package a2a

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
)

// ReadBudget bounds what a series of calls reads from the server: the
// bytes of their response bodies and the number of requests (SPEC §13: one
// session/load reads at most 64 MiB and 100 pages). Calls made with a
// context that carries one (WithReadBudget) draw on it; past it they fail
// with an error that is ErrBudget.
type ReadBudget struct {
	mu       sync.Mutex
	bytes    int64
	requests int
	spent    bool
}

// NewReadBudget returns a budget of bytes and requests.
func NewReadBudget(bytes int64, requests int) *ReadBudget {
	return &ReadBudget{bytes: bytes, requests: requests}
}

// ErrBudget is the error of a call past its context's ReadBudget.
var ErrBudget = errors.New("a2a: the read budget is spent")

type budgetKey struct{}

// WithReadBudget returns a context whose calls draw on b.
func WithReadBudget(ctx context.Context, b *ReadBudget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

func budgetOf(ctx context.Context) *ReadBudget {
	b, _ := ctx.Value(budgetKey{}).(*ReadBudget)
	return b
}

// Spent reports whether a call was refused or cut for want of budget.
func (b *ReadBudget) Spent() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// request takes one request from the budget of ctx, if any.
func takeRequest(ctx context.Context) error {
	b := budgetOf(ctx)
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.requests <= 0 || b.bytes <= 0 {
		b.spent = true
		return ErrBudget
	}
	b.requests--
	return nil
}

// bodyLimit is how much a body may be: ceiling, or less when the
// request's budget has less left.
func bodyLimit(resp *http.Response, ceiling int64) (int64, *ReadBudget) {
	limit := ceiling
	var b *ReadBudget
	if resp.Request != nil {
		b = budgetOf(resp.Request.Context())
	}
	if b != nil {
		b.mu.Lock()
		limit = min(limit, max(b.bytes, 0))
		b.mu.Unlock()
	}
	return limit, b
}

// readBody reads a whole response body of at most bodyLimit bytes (counted
// decoded: the transport inflates a compressed body before this sees it),
// in chunks joined once at the end.
func (cn *conn) readBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	limit, b := bodyLimit(resp, int64(cn.eventMax))
	var c chunks
	buf := make([]byte, 32<<10)
	tooLarge := func() error { return overBudget(b, limit, int64(cn.eventMax)) }
	for {
		n, err := resp.Body.Read(buf)
		if werr := c.write(buf[:n], int(min(limit, int64(cn.eventMax))), tooLarge); werr != nil {
			return nil, werr
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if b != nil {
		b.mu.Lock()
		b.bytes -= int64(c.n)
		b.mu.Unlock()
	}
	out := c.bytes()
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// overBudget is the error of a body over limit: the budget's when it set
// the limit, else the size limit's.
func overBudget(b *ReadBudget, limit, ceiling int64) error {
	if b != nil && limit < ceiling {
		b.mu.Lock()
		b.spent, b.bytes = true, 0
		b.mu.Unlock()
		return ErrBudget
	}
	if b != nil {
		b.mu.Lock()
		b.spent = true
		b.mu.Unlock()
	}
	return &tooLargeError{what: "a response body", limit: limit}
}
