package platform

// Where a platform's credential may go (SPEC §15): the host names under
// each platform's domains, as a table, and the documented form of every
// part shim places into one of them (an ARN's region, a resource name's
// location). The credential a platform's library finds on its own (ADC,
// the AWS and Azure default chains) and a stored ServiceNow key go only
// to a host the table holds, to this machine, or to a host the user named
// with --platform-host; anything else is refused before any connection.

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/shimdev/shim/a2a"
)

// A form is the documented shape of one part of a host name.
type form struct {
	// expr is the part's regular expression, whole.
	expr string
	// says is what the part is, for an error ("an AWS region (like
	// us-east-1)").
	says string
}

// forms are the parts a host pattern names in braces, and the parts of an
// ARN or a resource name checked before use.
var forms = map[string]form{
	"region":      {`[a-z]{2}(-[a-z]+)+-[0-9]+`, "an AWS region (like us-east-1)"},
	"location":    {`[a-z]+(-[a-z]+[0-9]*)*`, "a Google Cloud location (like us-central1, global, us or eu)"},
	"aws-account": {`[0-9]{12}`, "an AWS account id (12 digits)"},
	"label":       {dnsLabel, "one DNS label (letters, digits and '-')"},
	"account":     {dnsLabel, "a Foundry resource name"},
	"instance":    {dnsLabel, "a ServiceNow instance name"},
}

// dnsLabel is one label of a host name.
const dnsLabel = `[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?`

// compiled holds the forms' expressions, compiled by the first check that
// needs one (a start with an agent on no platform compiles none).
var compiled = sync.OnceValue(func() map[string]*regexp.Regexp {
	out := make(map[string]*regexp.Regexp, len(forms))
	for name, f := range forms {
		out[name] = regexp.MustCompile(`^(?:` + f.expr + `)$`)
	}
	return out
})

// fits reports whether s has the form name.
func fits(name, s string) bool { return compiled()[name].MatchString(s) }

// A hostPattern is a host name of a platform: labels separated by dots,
// each literal or holding one {form}; a leading "*." stands for one or
// more DNS labels. Detect says whether --platform auto names the platform
// from a host of this pattern.
type hostPattern struct {
	Pattern string
	Detect  bool
}

// patterns are the host patterns of platform n.
func patterns(n Name) []hostPattern {
	if r, ok := lookup(n); ok {
		return r.hosts
	}
	return nil
}

// domains names platform n's hosts, as an error or doctor says them.
func domains(n Name) string {
	var out []string
	for _, p := range patterns(n) {
		out = append(out, strings.NewReplacer("{", "<", "}", ">").Replace(p.Pattern))
	}
	return strings.Join(out, ", ")
}

// match reports whether host (lowercase, no port) is one of pattern's,
// with the value of each {form} it holds.
func (p hostPattern) match(host string) (map[string]string, bool) {
	// The literal tail first: a host of no platform costs no allocation.
	if !strings.HasSuffix(host, p.Pattern[strings.LastIndexAny(p.Pattern, "}*")+1:]) {
		return nil, false
	}
	want := strings.Split(p.Pattern, ".")
	got := strings.Split(host, ".")
	if want[0] == "*" {
		want = want[1:]
		n := len(got) - len(want)
		if n < 1 || slices.ContainsFunc(got[:n], func(l string) bool { return !fits("label", l) }) {
			return nil, false
		}
		got = got[n:]
	}
	if len(got) != len(want) {
		return nil, false
	}
	// The literal labels first: a host of no platform compiles nothing.
	for i, w := range want {
		if !strings.Contains(w, "{") && got[i] != w {
			return nil, false
		}
	}
	var parts map[string]string
	for i, w := range want {
		open, shut := strings.IndexByte(w, '{'), strings.IndexByte(w, '}')
		if open < 0 {
			continue
		}
		pre, name, post := w[:open], w[open+1:shut], w[shut+1:]
		l := got[i]
		if len(l) <= len(pre)+len(post) || !strings.HasPrefix(l, pre) || !strings.HasSuffix(l, post) {
			return nil, false
		}
		v := l[len(pre) : len(l)-len(post)]
		if !fits(name, v) {
			return nil, false
		}
		if parts == nil {
			parts = map[string]string{}
		}
		parts[name] = v
	}
	return parts, true
}

// onPlatform reports whether host is one of platform n's (detect: one
// auto names it from), with the parts its pattern holds.
func onPlatform(n Name, host string, detect bool) (map[string]string, bool) {
	for _, p := range patterns(n) {
		if detect && !p.Detect {
			continue
		}
		if parts, ok := p.match(host); ok {
			return parts, true
		}
	}
	return nil, false
}

// detectHost names the platform of host ("" for none).
func detectHost(host string) Name {
	for _, r := range registry {
		if _, ok := onPlatform(r.name, host, true); ok {
			return r.name
		}
	}
	return ""
}

// isLoopback reports whether host (no port) is this machine: localhost,
// 127.0.0.0/8 or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// Why a host may have the credential (Agent.HostWhy).
const (
	whyDomain   = "the platform's domain"
	whyLoopback = "this machine"
	whyNamed    = "named with --platform-host"
)

// allowHost says why platform n's credential may go to host (lowercase,
// no port), or refuses it naming the host and --platform-host.
func allowHost(n Name, host string, named []string) (string, error) {
	switch {
	case host == "":
		return "", &a2a.RefusedError{Msg: "the URL names no host"}
	case isLoopback(host):
		return whyLoopback, nil
	}
	if _, ok := onPlatform(n, host, false); ok {
		return whyDomain, nil
	}
	for _, h := range named {
		if strings.EqualFold(strings.TrimSpace(h), host) {
			return whyNamed, nil
		}
	}
	return "", &a2a.RefusedError{Msg: fmt.Sprintf("the host %s is outside the platform's domains (%s), so shim will not send it the platform's credential; "+
		"nothing was sent. If it is the platform's own private endpoint, pass --platform-host %s; for an agent on no platform, pass --platform none",
		quoteHost(host), domains(n), quoteHost(host))}
}

// checkPart refuses a part placed into a host name (what names it: "the
// region of the runtime ARN") that is not of its form.
func checkPart(name, what, v string) error {
	if fits(name, v) {
		return nil
	}
	return &a2a.RefusedError{Msg: fmt.Sprintf("%s, %q, is not %s: shim places it in the host name the platform's credential is sent to, "+
		"so it refuses it; nothing was sent. Copy it again from the platform's console", what, v, forms[name].says)}
}

// quoteHost writes a host as it is when it holds only what a host name
// holds, else quoted.
func quoteHost(h string) string {
	if strings.Trim(h, "abcdefghijklmnopqrstuvwxyz0123456789.-:") == "" {
		return h
	}
	return fmt.Sprintf("%q", h)
}

// CheckHostFlag refuses a --platform-host value that is not a bare host
// name: the flag names a host, not a URL, a port or a pattern.
func CheckHostFlag(h string) error {
	h = strings.ToLower(strings.TrimSpace(h))
	ok := h != "" && len(h) <= 253
	for _, l := range strings.Split(h, ".") {
		ok = ok && fits("label", l)
	}
	if !ok && net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")) == nil {
		return fmt.Errorf("--platform-host %q: give one host name alone (like agents.internal.example), without a scheme, port, path or wildcard", h)
	}
	return nil
}
