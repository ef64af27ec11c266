package agentcard

// The agent card, in either dialect: its endpoint, dialect and binding
// chosen among its interfaces, its skills, extensions and extended card.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire"
)

// bindingOf reads a card's protocolBinding (0.3: its transport) name.
func bindingOf(name string) a2a.Binding {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "JSONRPC", "JSON-RPC":
		return a2a.BindingJSONRPC
	case "HTTP+JSON", "HTTP_JSON", "REST":
		return a2a.BindingHTTPJSON
	}
	return 0
}

// wireCardExtras is what shim reads of a card beyond its endpoint: the
// skills, the extensions and the extended card's flag (either dialect).
type wireCardExtras struct {
	Capabilities struct {
		Extended   wire.Flag       `json:"extendedAgentCard"`
		Extended2  wire.Flag       `json:"extended_agent_card"`
		Extensions []wireExtension `json:"extensions"`
	} `json:"capabilities"`
	Extended03  wire.Flag   `json:"supportsAuthenticatedExtendedCard"`
	Extended03b wire.Flag   `json:"supports_authenticated_extended_card"`
	Skills      []wireSkill `json:"skills"`
}

type wireExtension struct {
	URI      string    `json:"uri"`
	Required wire.Flag `json:"required"`
}

type wireSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Examples    []string `json:"examples"`
}

// cardExtras fills in the skills, extensions and extended-card flag.
func cardExtras(body []byte, card *a2a.Card) {
	var w wireCardExtras
	if json.Unmarshal(body, &w) != nil {
		return
	}
	card.ExtendedCard = bool(w.Capabilities.Extended || w.Capabilities.Extended2 || w.Extended03 || w.Extended03b)
	for _, e := range w.Capabilities.Extensions {
		if e.URI != "" {
			card.Extensions = append(card.Extensions, a2a.Extension{URI: e.URI, Required: bool(e.Required)})
		}
	}
	for _, s := range w.Skills {
		if s.ID == "" && s.Name == "" {
			continue
		}
		card.Skills = append(card.Skills, a2a.Skill(s))
	}
}

func (i wireInterface) binding() a2a.Binding {
	return bindingOf(cmp.Or(cmp.Or(i.Binding, i.Binding2), i.Binding03))
}

// pickInterface chooses among a 1.0 card's interfaces: forced binding
// only when given, else JSON-RPC first and HTTP+JSON when the card has no
// JSON-RPC interface; within a binding the dialect asked for (1.0 by
// default) first.
func pickInterface(ifaces []wireInterface, forced a2a.Dialect, bind a2a.Binding) (*wireInterface, a2a.Binding, error) {
	want := forced
	if want == 0 {
		want = a2a.V10
	}
	order := []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}
	if bind != 0 {
		order = []a2a.Binding{bind}
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
func pickURL03(url, preferred string, additional []wireInterface, bind a2a.Binding) (string, a2a.Binding, error) {
	pref := bindingOf(preferred)
	if preferred == "" {
		pref = a2a.BindingJSONRPC
	}
	order := []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}
	if bind != 0 {
		order = []a2a.Binding{bind}
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

type wireCard struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	Version      string `json:"version"`
	URL          string `json:"url"`
	Preferred    string `json:"preferredTransport"`
	Preferred2   string `json:"preferred_transport"`
	Protocol     string `json:"protocolVersion"`
	Protocol2    string `json:"protocol_version"`
	Capabilities struct {
		Streaming *bool `json:"streaming"`
	} `json:"capabilities"`
	Interfaces  []wireInterface `json:"supportedInterfaces"`
	Interfaces2 []wireInterface `json:"supported_interfaces"`
	Additional  []wireInterface `json:"additionalInterfaces"`
	Additional2 []wireInterface `json:"additional_interfaces"`
}

type wireInterface struct {
	URL      string `json:"url"`
	Binding  string `json:"protocolBinding"`
	Binding2 string `json:"protocol_binding"`
	// Binding03 is 0.3's name of the binding (its "transport").
	Binding03 string `json:"transport"`
	Version   string `json:"protocolVersion"`
	Version2  string `json:"protocol_version"`
	Tenant    string `json:"tenant"`
}

func (i wireInterface) dialect() a2a.Dialect {
	if strings.HasPrefix(strings.TrimPrefix(cmp.Or(i.Version, i.Version2), "v"), "0.") {
		return a2a.V03
	}
	return a2a.V10
}

// Parse reads a card of either dialect. forced, when not zero, is the
// dialect --a2a-version asks for; bind, when not zero, the binding
// --binding asks for. A card with no usable interface is returned with
// the error (its name, skills and capabilities read).
func Parse(body []byte, forced a2a.Dialect, bind a2a.Binding) (*a2a.Card, error) {
	var w wireCard
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	card := &a2a.Card{Name: w.Name, Description: w.Description, Version: w.Version,
		Streaming: w.Capabilities.Streaming == nil || *w.Capabilities.Streaming}
	cardExtras(body, card)
	ifaces := w.Interfaces
	if len(ifaces) == 0 {
		ifaces = w.Interfaces2
	}
	if len(ifaces) > 0 {
		pick, b, err := pickInterface(ifaces, forced, bind)
		if err != nil {
			return card, err
		}
		card.Endpoint, card.Dialect, card.Tenant, card.Binding = pick.URL, pick.dialect(), pick.Tenant, b
		if forced != 0 {
			card.Dialect = forced
		}
		return card, nil
	}
	// A 0.3 card: url + preferredTransport (+ additionalInterfaces).
	card.Dialect = a2a.V03
	if forced != 0 {
		card.Dialect = forced
	}
	additional := w.Additional
	if len(additional) == 0 {
		additional = w.Additional2
	}
	ep, b, err := pickURL03(w.URL, cmp.Or(w.Preferred, w.Preferred2), additional, bind)
	if err != nil {
		return card, err
	}
	card.Endpoint, card.Binding = ep, b
	return card, nil
}
