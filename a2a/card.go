package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

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

// bindingOf reads a card's protocolBinding or transport name.
func bindingOf(name string) Binding {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "JSONRPC", "JSON-RPC":
		return BindingJSONRPC
	case "HTTP+JSON", "HTTP_JSON", "REST":
		return BindingHTTPJSON
	}
	return 0
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

// unsupported returns the error for the first required extension of the
// card that shim does not speak, else nil.
func (c *Card) unsupported() error {
	for _, e := range c.Extensions {
		if e.Required && !slices.Contains(Extensions, e.URI) {
			return &UnsupportedError{URI: e.URI}
		}
	}
	return nil
}

// wireCardExtras is what shim reads of a card beyond its endpoint: the
// skills, the extensions and the extended card's flag (either dialect).
type wireCardExtras struct {
	Capabilities struct {
		Extended   wireBool        `json:"extendedAgentCard"`
		Extended2  wireBool        `json:"extended_agent_card"`
		Extensions []wireExtension `json:"extensions"`
	} `json:"capabilities"`
	Extended03  wireBool    `json:"supportsAuthenticatedExtendedCard"`
	Extended03b wireBool    `json:"supports_authenticated_extended_card"`
	Skills      []wireSkill `json:"skills"`
}

type wireExtension struct {
	URI      string   `json:"uri"`
	Required wireBool `json:"required"`
}

type wireSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Examples    []string `json:"examples"`
}

// cardExtras fills in the skills, extensions and extended-card flag.
func cardExtras(body []byte, card *Card) {
	var w wireCardExtras
	if json.Unmarshal(body, &w) != nil {
		return
	}
	card.ExtendedCard = bool(w.Capabilities.Extended || w.Capabilities.Extended2 || w.Extended03 || w.Extended03b)
	for _, e := range w.Capabilities.Extensions {
		if e.URI != "" {
			card.Extensions = append(card.Extensions, Extension{URI: e.URI, Required: bool(e.Required)})
		}
	}
	for _, s := range w.Skills {
		if s.ID == "" && s.Name == "" {
			continue
		}
		card.Skills = append(card.Skills, Skill(s))
	}
}

func (i wireInterface) binding() Binding {
	return bindingOf(first(first(i.Binding, i.Binding2), i.Transport))
}

// pickInterface chooses among a 1.0 card's interfaces: forced binding
// only when given, else JSON-RPC first and HTTP+JSON when the card has no
// JSON-RPC interface; within a binding the dialect asked for (1.0 by
// default) first.
func pickInterface(ifaces []wireInterface, forced Dialect, bind Binding) (*wireInterface, Binding, error) {
	want := forced
	if want == 0 {
		want = V10
	}
	order := []Binding{BindingJSONRPC, BindingHTTPJSON}
	if bind != 0 {
		order = []Binding{bind}
	}
	for _, b := range order {
		var pick *wireInterface
		for i := range ifaces {
			in := &ifaces[i]
			if in.binding() != b {
				continue
			}
			if in.dialect() == want {
				pick = in
				break
			}
			if pick == nil {
				pick = in
			}
		}
		if pick != nil {
			return pick, b, nil
		}
	}
	if bind != 0 {
		return nil, 0, fmt.Errorf("the card offers no %s interface (--binding asks for it)", bind)
	}
	return nil, 0, errors.New("the card offers no JSONRPC or HTTP+JSON interface (shim speaks those two)")
}

// pickURL03 chooses a 0.3 card's endpoint: its url with its
// preferredTransport, or one of its additionalInterfaces; JSON-RPC first
// unless bind forces one.
func pickURL03(url, preferred string, additional []wireInterface, bind Binding) (string, Binding, error) {
	pref := bindingOf(preferred)
	if preferred == "" {
		pref = BindingJSONRPC
	}
	order := []Binding{BindingJSONRPC, BindingHTTPJSON}
	if bind != 0 {
		order = []Binding{bind}
	}
	for _, b := range order {
		if url != "" && pref == b {
			return url, b, nil
		}
		for _, in := range additional {
			if in.binding() == b && in.URL != "" {
				return in.URL, b, nil
			}
		}
	}
	if bind != 0 {
		return "", 0, fmt.Errorf("the card names no %s endpoint (--binding asks for it)", bind)
	}
	return "", 0, errors.New("the card names no JSON-RPC or HTTP+JSON endpoint")
}
