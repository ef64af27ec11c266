// Package agentcard reads an agent card's JSON (SPEC §3.1, §12.1, §12.2)
// in either dialect into package a2a's Card: the endpoint, dialect and
// binding among its interfaces, its skills, extensions and extended-card
// flag (Parse), and its security schemes and requirements
// (ParseSecurity). It is wire's neighbour for one document kind, kept
// apart so that each stays small.
//
// Files:
//   - card.go: the card's endpoint, dialect and binding; its skills,
//     extensions and extended card.
//   - security.go: the card's security schemes and requirements.
//   - warm.go: Warm, a card decoded once as a process starts.
//
// Goroutines: none. Locks: none.
package agentcard
