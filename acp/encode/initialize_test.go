package encode

import (
	"testing"

	"github.com/shimdev/shim/acp"
)

// initializeCase is an InitializeResult built from a few values, each
// field on or off by a bit of on.
func initializeCase(s string, n int, on uint32) acp.InitializeResult {
	bit := func(i int) bool { return on&(1<<i) != 0 }
	pick := func(i int, v string) string {
		if bit(i) {
			return v
		}
		return ""
	}
	var r acp.InitializeResult
	r.ProtocolVersion = n
	r.AgentCapabilities.LoadSession = bit(0)
	r.AgentCapabilities.PromptCapabilities.Image = bit(1)
	r.AgentCapabilities.PromptCapabilities.Audio = bit(2)
	r.AgentCapabilities.PromptCapabilities.EmbeddedContext = bit(3)
	if bit(4) {
		r.Meta = &acp.InitializeMeta{}
		r.Meta.Steering.Supported = bit(5)
	}
	r.AgentInfo = acp.Implementation{Name: s, Title: pick(6, s+"<t>"), Version: pick(7, "v"+s)}
	if bit(8) {
		r.AuthMethods = []acp.AuthMethod{}
	}
	for i := range 1 + n%3 {
		if !bit(9 + i) {
			continue
		}
		m := acp.AuthMethod{Type: pick(12, "terminal"), ID: s, Name: s + "&", Description: pick(13, s)}
		if bit(14) {
			m.Args = []string{s, "login"}
		} else if bit(15) {
			m.Args = []string{}
		}
		if bit(16) {
			m.Meta = &acp.AuthMeta{TerminalAuth: acp.TerminalAuth{Label: s, Command: "/bin/" + s}}
			if bit(17) {
				m.Meta.TerminalAuth.Args = []string{}
			} else if bit(18) {
				m.Meta.TerminalAuth.Args = []string{"login", s}
			}
			if bit(19) {
				m.Meta.TerminalAuth.Env = map[string]string{}
			} else if bit(20) {
				m.Meta.TerminalAuth.Env = map[string]string{"Z": s, "a": "1", s: "k", "\xff": "bad"}
			}
		}
		r.AuthMethods = append(r.AuthMethods, m)
	}
	return r
}

// TestInitializeResultJSON: initialize's answer written by hand is the
// encoder's, byte for byte, with each field on and off.
func TestInitializeResultJSON(t *testing.T) {
	var cases []uint32
	for on := range uint32(1 << 9) { // every mix of the capabilities, _meta and agentInfo
		cases = append(cases, on)
	}
	for on := range uint32(1 << 12) { // every mix of the auth methods' fields
		cases = append(cases, on<<9|0b1_1011_0101)
	}
	for _, on := range cases {
		for _, s := range []string{"shim", "", "<b>&\"é\u2028\xff"} {
			r := initializeCase(s, int(on%5), on)
			if got, want := string(appendInitializeResult(nil, &r)), encodingJSON(t, r); got != want {
				t.Fatalf("case %b %q:\n got %s\nwant %s", on, s, got, want)
			}
		}
	}
}

// FuzzInitializeResultJSON: the same on any text, number and fields.
func FuzzInitializeResultJSON(f *testing.F) {
	f.Add("shim", 1, uint32(0x1fffff))
	f.Add("\x00<&>\"\\\u2029", -7, uint32(0x15555))
	f.Fuzz(func(t *testing.T, s string, n int, on uint32) {
		r := initializeCase(s, n, on)
		if got, want := string(appendInitializeResult(nil, &r)), encodingJSON(t, r); got != want {
			t.Fatalf("case %b %q:\n got %s\nwant %s", on, s, got, want)
		}
	})
}

// TestInitializeFieldsWritten: InitializeResult.appendJSON writes each
// field of these types by hand; a field added to one of them must be
// written there too, and this list then changed.
func TestInitializeFieldsWritten(t *testing.T) {
	var caps acp.AgentCapabilities
	var meta acp.InitializeMeta
	for _, tc := range []struct {
		v    any
		want string
	}{
		{acp.InitializeResult{}, "ProtocolVersion AgentCapabilities AuthMethods AgentInfo Meta"},
		{caps, "LoadSession PromptCapabilities SessionCapabilities Auth"},
		{caps.PromptCapabilities, "Image Audio EmbeddedContext"},
		{caps.SessionCapabilities, "List Resume Close Delete AdditionalDirectories"},
		{caps.Auth, "Logout"},
		{acp.Empty{}, ""},
		{meta, "Steering"},
		{meta.Steering, "Supported"},
		{acp.AuthMethod{}, "Type ID Name Description Args Meta"},
		{acp.AuthMeta{}, "TerminalAuth"},
		{acp.TerminalAuth{}, "Label Command Args Env"},
		{acp.Implementation{}, "Name Title Version"},
	} {
		if got := fieldNames(tc.v); got != tc.want {
			t.Errorf("%T has fields %q; appendJSON writes %q", tc.v, got, tc.want)
		}
	}
}
