package platform

// ServiceNow AI Agents (SPEC §12.7): A2A 0.3 JSON-RPC at the agent's path,
// its card at agent_card/id/<id> (the legacy well_known/agent_json next),
// an API key in x-sn-apikey (`shim login` stores it) or an OAuth bearer
// token. No streaming: the card says so, and each task is polled.

import (
	"fmt"
	"strings"

	"github.com/shimdev/shim/a2a"
)

// ServiceNowKeyHeader carries a ServiceNow API key.
const ServiceNowKeyHeader = "x-sn-apikey"

// serviceNow reads an agent's URL (/api/sn_aia/a2a/v2/agent/id/<id>) or
// one of its card URLs.
func serviceNow(raw string) (*Agent, error) {
	const want = "give the agent's A2A URL (https://<instance>.service-now.com/api/sn_aia/a2a/v2/agent/id/<agent id>)"
	u, err := parseHTTPS(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, want)
	}
	p := strings.TrimRight(u.EscapedPath(), "/")
	var id string
	for _, prefix := range []string{"/api/sn_aia/a2a/v2/agent/id/", "/api/sn_aia/a2a/v2/agent_card/id/", "/api/sn_aia/a2a/id/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			id, _, _ = strings.Cut(rest, "/")
			break
		}
	}
	if id == "" {
		return nil, fmt.Errorf("%s names no agent: %s", raw, want)
	}
	o := origin(u)
	base := o + "/api/sn_aia/a2a/v2/agent/id/" + id
	return &Agent{URL: base, Endpoint: base, NoStreaming: true,
		Cards: []Card{{URL: o + "/api/sn_aia/a2a/v2/agent_card/id/" + id, Dialect: a2a.V03},
			{URL: o + "/api/sn_aia/a2a/id/" + id + "/well_known/agent_json", Dialect: a2a.V03}},
		Scheme: &a2a.Scheme{Name: "apiKey", Kind: a2a.SchemeAPIKey, In: "header", Param: ServiceNowKeyHeader}}, nil
}
