package a2a

import (
	"context"
	"errors"
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

// BudgetOf returns the budget ctx carries, or nil.
func BudgetOf(ctx context.Context) *ReadBudget {
	b, _ := ctx.Value(budgetKey{}).(*ReadBudget)
	return b
}

// TakeRequest takes one request from the budget of ctx, if any: ErrBudget
// when none is left.
func TakeRequest(ctx context.Context) error {
	b := BudgetOf(ctx)
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.requests <= 0 || b.bytes <= 0 {
		return ErrBudget
	}
	b.requests--
	return nil
}

// Limit is how many bytes a body may have: ceiling, or less when the
// budget has less left. A nil budget limits nothing below ceiling.
func (b *ReadBudget) Limit(ceiling int64) int64 {
	if b == nil {
		return ceiling
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return min(ceiling, max(b.bytes, 0))
}

// Spend takes n bytes read from the budget.
func (b *ReadBudget) Spend(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.bytes -= n
	b.mu.Unlock()
}

// Exhaust spends what is left (a body was cut at the budget's limit).
func (b *ReadBudget) Exhaust() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.bytes = 0
	b.mu.Unlock()
}
