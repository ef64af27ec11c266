package a2aclient

// The bindings the client speaks, as tables: which binding serves a card
// is looked up by the card's dialect, its binding and the agent's
// profile; what a codec fixes, and which profile a card is recognised
// by, are rows too. Adding a binding is a row here and a package of its
// own implementing binding.Binding (jsonrpc, rest, gemini), whose own
// tables spell each dialect (0.3 converted at the edge: its method names,
// routes and bodies).

import (
	"fmt"
	"log/slog"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/binding"
	"github.com/shimdev/shim/a2a/gemini"
	"github.com/shimdev/shim/a2a/jsonrpc"
	"github.com/shimdev/shim/a2a/rest"
)

// Codec names a binding of one dialect with the spelling of its bodies
// (Config.Codec).
type Codec string

// CodecProtoJSON03 is A2A 0.3's HTTP+JSON binding with the ProtoJSON of
// the 0.3.0 proto (package rest), as Google's Vertex AI Agent Engine
// (URL …/reasoningEngines/<id>/a2a, card …/a2a/v1/card) and Gemini
// Enterprise (URL …/agents/<id>/a2a) serve it.
const CodecProtoJSON03 Codec = "protojson-0.3"

// pin is what a codec fixes.
type pin struct {
	dialect a2a.Dialect
	binding a2a.Binding
}

var codecs = map[Codec]pin{
	CodecProtoJSON03: {dialect: a2a.V03, binding: a2a.BindingHTTPJSON},
}

// Profiles (Config.Profile).
const (
	ProfileAuto      = "auto"
	ProfileGeneric   = "generic"
	ProfileGeminiCLI = "gemini-cli"
)

// A profile is a known server's behaviour (a package of its own): the
// card it is recognised by under auto, and what the log says once its
// binding is chosen.
type profile struct {
	name     string
	cardName string
	says     string
}

// profiles are the known servers' profiles, in the order auto tries them.
var profiles = []profile{
	{name: ProfileGeminiCLI, cardName: gemini.CardName, says: "the agent is Gemini CLI's A2A server: speaking its coderAgent protocol"},
}

// bindingKey is what chooses a binding.
type bindingKey struct {
	dialect a2a.Dialect
	binding a2a.Binding
	profile string
}

// newBinding makes the binding of a card's interface over conn.
type newBinding func(conn *binding.Conn, card *a2a.Card) binding.Binding

// as is a binding package's New as a newBinding.
func as[B binding.Binding](f func(*binding.Conn, *a2a.Card) B) newBinding {
	return func(conn *binding.Conn, card *a2a.Card) binding.Binding { return f(conn, card) }
}

// bindings are the bindings shim speaks. A profile with no row of a key
// is served by the generic row (HTTP+JSON has no profile); the Gemini CLI
// profile is its own binding of JSON-RPC whatever dialect the card names
// (the server speaks 0.3, and so does the profile).
var bindings = map[bindingKey]newBinding{
	{a2a.V10, a2a.BindingJSONRPC, ProfileGeneric}:   as(jsonrpc.New),
	{a2a.V03, a2a.BindingJSONRPC, ProfileGeneric}:   as(jsonrpc.New),
	{a2a.V10, a2a.BindingHTTPJSON, ProfileGeneric}:  as(rest.New),
	{a2a.V03, a2a.BindingHTTPJSON, ProfileGeneric}:  as(rest.New),
	{a2a.V10, a2a.BindingJSONRPC, ProfileGeminiCLI}: as(gemini.New),
	{a2a.V03, a2a.BindingJSONRPC, ProfileGeminiCLI}: as(gemini.New),
}

// bind returns the binding of card over conn for the agent of profile
// named (Config.Profile): its profile's row, else the generic row of its
// dialect and binding.
func bind(conn *binding.Conn, card *a2a.Card, named string, log *slog.Logger) (binding.Binding, error) {
	p := profileOf(named, card)
	if newB, ok := bindings[bindingKey{card.Dialect, card.Binding, p.name}]; ok && p.name != ProfileGeneric {
		log.Info(p.says, "profile", named)
		return newB(conn, card), nil
	}
	if newB, ok := bindings[bindingKey{card.Dialect, card.Binding, ProfileGeneric}]; ok {
		return newB(conn, card), nil
	}
	return nil, fmt.Errorf("shim speaks no %s binding of A2A %s", card.Binding, card.Dialect)
}

// profileOf is the profile of the agent of card: the one named, else
// (auto) the one whose card it is; generic (no row) when none applies.
func profileOf(named string, card *a2a.Card) profile {
	for _, p := range profiles {
		if named == p.name {
			return p
		}
	}
	if named != ProfileGeneric {
		for _, p := range profiles {
			if card.Name == p.cardName {
				return p
			}
		}
	}
	return profile{name: ProfileGeneric}
}
