// Package auth is how shim signs in: the card's security schemes applied
// to a request (bearer, basic, an API key in a header, query or cookie),
// the OAuth token renewed (on expiry or 401, once, under the lock every
// process shares), the OAuth sign-in flows (device code, authorization
// code with PKCE, client credentials; golang.org/x/oauth2), and the
// Credential interface that puts a request's credential on, which the
// managed platforms' credentials (a signer, a token source, a header)
// implement in auth/platform. auth/credentials keeps the stored tokens and
// sign-ins.
//
// Files:
//   - credential.go: Credential, the origin a credential is sent to.
//   - scheme.go: the secret as the scheme takes it.
//   - oauth.go: Stored (the stored credential of a client: secret,
//     scheme, OAuth renewal), the 401 renewal's RoundTripper.
//   - login.go: the OAuth sign-in flows and their plan.
//   - page.go: the checks of a sign-in page and code before either is
//     shown (SPEC §15).
//
// Goroutines: the authorization-code flow serves its loopback redirect
// while it waits. Locks: Stored.mu is held across a renewal (the token
// request, and the shared sign-in's lock taken inside it: Stored.mu, then
// the credentials store's renewal lock).
package auth
