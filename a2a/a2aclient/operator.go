package a2aclient

// The operator API beside A2A (SPEC §3.4, package operator) as the client
// offers it: over the client's connection and credential, its answers
// named here, so that a caller never imports the package.

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/operator"
)

// What the operator API's calls answer.
type (
	// Operator is the agent's operator API (Client.Operator).
	Operator = operator.API
	// ProjectRoot is one project root the server reports (Operator.Roots).
	ProjectRoot = operator.ProjectRoot
	// SessionRow is one thread the server lists (Operator.Sessions).
	SessionRow = operator.SessionRow
	// SessionSummary is the busy signal of one thread (Operator.Session).
	SessionSummary = operator.SessionSummary
	// OperatorTurn is one task of a thread as the operator API keeps it
	// (Operator.Turns).
	OperatorTurn = operator.Turn
	// Handoff is a thread the console offered to an editor (Operator.Claim).
	Handoff = operator.Handoff
)

// ErrNoOperator is returned by an operator API call the server does not
// offer (a 404 or 405): it is absent, never a failure.
var ErrNoOperator = operator.ErrAbsent

// Operator returns the agent's operator API, over the client's connection.
func (c *Client) Operator() *Operator {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.op == nil {
		base := c.Base()
		if c.cfg.NoOperator {
			base = "" // every call is absent
		}
		// The operator API speaks the dialect of the card in use (1.0
		// before discovery).
		dialect := func() a2a.Dialect {
			if card := c.KnownCard(); card != nil {
				return card.Dialect
			}
			return a2a.V10
		}
		c.op = operator.New(c.conn, base, dialect)
		if base != "" {
			// What an earlier launch found absent is not asked again, and
			// what is found absent now is kept (SPEC §19).
			c.op.Remember(c.mem.Absent(base), func(part string) { c.mem.KeepAbsent(base, part) })
		}
	}
	return c.op
}
