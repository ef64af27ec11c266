package auth

// Pages a sign-in asks the person to open (SPEC §15): the device flow's
// verification page and code, and the authorization URL of the
// authorization-code flow. They come from a server (or a card) shim does
// not trust, and the editor or the terminal acts on them, so each is
// checked before it is shown, and a sign-in whose page fails goes no
// further: nothing is opened, no token is asked for, nothing is stored.

import (
	"fmt"
	"net/url"
	"unicode"
	"unicode/utf8"
)

// Limits of what a sign-in shows.
const (
	// MaxPageBytes is the longest page URL shim asks anyone to open.
	MaxPageBytes = 2048
	// MaxUserCode is the longest code a person is asked to enter, in
	// printable ASCII characters.
	MaxUserCode = 64
)

// PageError is a sign-in page or code shim refused to show: What names
// it, Rule says which rule it broke.
type PageError struct{ What, Rule string }

func (e *PageError) Error() string {
	return e.What + " was refused: " + e.Rule + "; nothing was opened (ask whoever runs the agent to fix its sign-in)"
}

// CheckPage fails, naming the rule, for a URL shim would ask the editor
// or a person to open that is not https: (or http: to this machine:
// 127.0.0.0/8, ::1, localhost), that carries a user name or password,
// that holds a control or whitespace character, or that is longer than
// MaxPageBytes. what names the page in the error.
func CheckPage(what, raw string) error {
	rule := pageRule(raw)
	if rule == "" {
		return nil
	}
	return &PageError{What: what, Rule: rule}
}

// pageRule is the rule raw breaks as a page to open, "" when none.
func pageRule(raw string) string {
	switch {
	case raw == "":
		return "it is empty"
	case len(raw) > MaxPageBytes:
		return "it is longer than 2,048 bytes"
	case !utf8.ValidString(raw):
		return "it is not UTF-8 text"
	}
	for _, r := range raw {
		// Cc (C0, DEL, C1), Cf (direction overrides, zero-width
		// characters: a host that reads as another) and every space.
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Z) {
			return "it holds a control or whitespace character"
		}
	}
	const notHTTPS = "it is not https (nor http to this machine)"
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "it is not a web address"
	case u.Scheme != "https" && u.Scheme != "http":
		return notHTTPS // javascript:, file:, data:, a protocol handler
	case u.Host == "" || u.Opaque != "":
		return "it is not a web address with a host"
	case u.User != nil:
		return "it carries a user name or password before its host"
	case u.Scheme == "http" && !IsLoopback(u.Hostname()):
		return notHTTPS
	}
	return ""
}

// CheckUserCode fails, naming the rule, for a code a person would be
// asked to enter that is empty, longer than MaxUserCode or not printable
// ASCII.
func CheckUserCode(code string) error {
	rule := ""
	switch {
	case code == "":
		rule = "it is empty"
	case len(code) > MaxUserCode:
		rule = fmt.Sprintf("it is longer than %d characters", MaxUserCode)
	default:
		for i := 0; i < len(code); i++ {
			if c := code[i]; c < 0x20 || c > 0x7e {
				rule = "it holds a character other than printable ASCII"
				break
			}
		}
	}
	if rule == "" {
		return nil
	}
	return &PageError{What: "the code to enter at the sign-in page", Rule: rule}
}

// DevicePage is what the device flow shows: the page to open, the page
// that carries the code too (set only when it passed and has the page's
// origin), and the code.
type DevicePage struct{ URI, Complete, Code string }

// devicePage checks what a device authorization answered (RFC 8628
// §3.2): the page and the code must pass, or the flow ends here; the page
// with the code in it is kept only when it passes and has the origin of
// the page, else the person opens the page and types the code.
func devicePage(uri, complete, code string) (DevicePage, error) {
	if err := CheckPage("the sign-in page the authorization server gave", uri); err != nil {
		return DevicePage{}, err
	}
	if err := CheckUserCode(code); err != nil {
		return DevicePage{}, err
	}
	p := DevicePage{URI: uri, Code: code}
	if complete != "" && pageRule(complete) == "" && sameOrigin(uri, complete) {
		p.Complete = complete
	}
	return p, nil
}

// sameOrigin reports whether a and b (both passed CheckPage) have one
// origin: scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return Origin(ua) == Origin(ub)
}
