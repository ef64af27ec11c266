package a2a

import (
	"fmt"
	"slices"
	"strings"
)

// Dialect is the A2A protocol version spoken with the server.
type Dialect uint8

// The dialects.
const (
	V10 Dialect = iota + 1
	V03
)

func (d Dialect) String() string {
	switch d {
	case V10:
		return "1.0"
	case V03:
		return "0.3"
	}
	return "unknown"
}

// ParseDialect reads --a2a-version: "1.0" or "0.3" (a leading "v" and a
// patch version allowed); anything else ("auto") is 0, the card chooses.
func ParseDialect(v string) Dialect {
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v") {
	case "1", "1.0":
		return V10
	case "0.3", "0.3.0":
		return V03
	}
	return 0
}

// Binding is the protocol binding the calls go over (SPEC §12.3).
type Binding uint8

// The bindings.
const (
	BindingJSONRPC Binding = iota + 1
	BindingHTTPJSON
)

// String is the binding's name as doctor shows it.
func (b Binding) String() string {
	switch b {
	case BindingJSONRPC:
		return "JSON-RPC"
	case BindingHTTPJSON:
		return "HTTP+JSON"
	}
	return "unknown"
}

// ParseBinding reads --binding: "auto" (or empty) is 0, the card chooses.
func ParseBinding(s string) (Binding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return 0, nil
	case "jsonrpc", "json-rpc":
		return BindingJSONRPC, nil
	case "http+json", "http-json", "rest":
		return BindingHTTPJSON, nil
	}
	return 0, fmt.Errorf("binding %q: use auto, jsonrpc or http+json", s)
}

// Card is what shim uses of an agent card.
type Card struct {
	Name        string
	Description string
	Version     string
	// Streaming is false only when the card says capabilities.streaming: false.
	Streaming bool
	Endpoint  string
	Dialect   Dialect
	Tenant    string
	// NoReplay is set when the agent's task history cannot be trusted to
	// replay a thread (its GetTask history is empty or partial).
	NoReplay bool
	// Security is what the card says about signing in (security.go).
	Security *Security
	// Binding is the protocol binding the calls go over.
	Binding Binding
	// Skills are the card's skills in its order.
	Skills []Skill
	// Extensions are the extensions the card declares.
	Extensions []Extension
	// ExtendedCard is set when the card offers an extended card to
	// authenticated clients; Extended is set once it replaced this one.
	ExtendedCard bool
	Extended     bool
}

// Skill is one of the card's skills.
type Skill struct {
	ID          string
	Name        string
	Description string
	Examples    []string
}

// Extension is an extension the card declares.
type Extension struct {
	URI      string
	Required bool
}

// UnsupportedError is a card that requires an extension shim does not
// speak (SPEC §12.6): no call is made for it.
type UnsupportedError struct {
	URI string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("the agent requires the A2A extension %s, which shim does not support", e.URI)
}

// Unsupported returns the error for the first required extension of the
// card that shim does not speak, else nil.
func (c *Card) Unsupported() error {
	for _, e := range c.Extensions {
		if e.Required && !slices.Contains(Extensions, e.URI) {
			return &UnsupportedError{URI: e.URI}
		}
	}
	return nil
}
