package a2a

import "context"

type sessionKey struct{}

// WithSession returns a context whose calls are made for the editor's
// session id (an ACP session, which is one A2A context). A platform that
// keeps a session's state between requests (AgentCore's runtime session)
// reads it with SessionOf as the request is sent; nothing else does.
func WithSession(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionOf returns the session id ctx carries, or "" for a call made for
// no session (the card, the sign-in probe).
func SessionOf(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}
