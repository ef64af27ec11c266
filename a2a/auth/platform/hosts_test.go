package platform

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// TestPartForms: the parts shim places into a host name have the
// platforms' documented forms (SPEC §15): an AWS region
// [a-z]{2}(-[a-z]+)+-[0-9]+, a Google location [a-z]+(-[a-z]+[0-9]*)*
// (global, us and eu among them), an AWS account 12 digits; anything
// else (#, ?, /, @, ., %, a port, capitals, nothing) is refused, and the
// refusal names the part and quotes it.
func TestPartForms(t *testing.T) {
	hostile := []string{"", "x#", "x?", "x/y", "x@y", "x.y", "x%2e", "x:443", " x", "x\n"}
	for _, c := range []struct {
		form    string
		ok, bad []string
	}{
		{"region", []string{"us-east-1", "us-west-2", "eu-central-1", "ap-southeast-2", "us-gov-west-1", "cn-north-1", "il-central-1"},
			[]string{"us-east-1.evil.test#", "us-east-1#", "us-east-1:443", "US-EAST-1", "us-east", "useast-1", "u-east-1", "us-east-1-"}},
		{"location", []string{"us-central1", "europe-west4", "global", "us", "eu", "asia-northeast1", "northamerica-northeast1", "me-central2"},
			[]string{"evil.test", "evil.test#", "us-central1.evil.test#", "us-central1@evil.test#", "evil.test%23", "US", "-us", "us-", "1us", "us--central1"}},
		{"aws-account", []string{"123456789012", "000000000000"},
			[]string{"12345678901", "1234567890123", "12345678901a", "123456789012#", "1234@evil.test"}},
	} {
		for _, v := range c.ok {
			if err := checkPart(c.form, "the part", v); err != nil {
				t.Errorf("%s %q refused: %v", c.form, v, err)
			}
		}
		for _, v := range append(c.bad, hostile...) {
			err := checkPart(c.form, "the part", v)
			var re *a2a.RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "the part, ") || !strings.Contains(err.Error(), strings.TrimSuffix(forms[c.form].says, ")")) {
				t.Errorf("%s %q: %v, want a refusal naming the part", c.form, v, err)
			}
		}
	}
}

// TestResolveRefusesParts: an ARN or a resource name whose region,
// location or account is not of its form is refused by Resolve (auto and
// named) naming the part and quoting it; no agent is returned.
func TestResolveRefusesParts(t *testing.T) {
	for _, c := range []struct {
		name      Name
		raw, want string
	}{
		{Auto, "projects/p/locations/evil.test#/reasoningEngines/1", `the location of the resource name, "evil.test#", is not a Google Cloud location`},
		{Auto, "projects/p/locations/evil.test?/reasoningEngines/1", `"evil.test?"`},
		{Vertex, "projects/p/locations/us-central1.evil.test#/reasoningEngines/1", `"us-central1.evil.test#"`},
		{Auto, "projects/p/locations/evil.test:443#/reasoningEngines/1", `"evil.test:443#"`},
		{Auto, "projects/p/locations/x@evil.test#/reasoningEngines/1", `"x@evil.test#"`},
		{Auto, "projects/p/locations/evil.test%23/reasoningEngines/1", `"evil.test%23"`},
		{Auto, "projects/p/locations/evil.test/reasoningEngines/1", `"evil.test"`},
		{Auto, "projects/p/locations/evil.test#/collections/c/engines/e/assistants/a/agents/1", `the location of the resource name, "evil.test#"`},
		{GeminiEnterprise, "projects/p/locations/evil.test/collections/c/engines/e/assistants/a/agents/1", `"evil.test"`},
		{Auto, "arn:aws:bedrock-agentcore:us-east-1.evil.test#:123456789012:runtime/x", `the region of the runtime ARN, "us-east-1.evil.test#", is not an AWS region`},
		{AgentCore, "arn:aws:bedrock-agentcore:us-east-1/evil.test:123456789012:runtime/x", `"us-east-1/evil.test"`},
		{Auto, "arn:aws:bedrock-agentcore:us-east-1@evil.test:123456789012:runtime/x", `"us-east-1@evil.test"`},
		{Auto, "arn:aws:bedrock-agentcore:us-east-1:1234@evil.test:runtime/x", `the account of the runtime ARN, "1234@evil.test", is not an AWS account id`},
		// The ARN in an invocations URL gives the region when the host has none.
		{AgentCore, "http://127.0.0.1:9/runtimes/arn:aws:bedrock-agentcore:evil.test:123456789012:runtime/x/invocations", `"evil.test"`},
	} {
		a, err := Resolve(c.name, c.raw, Options{})
		if !errors.As(err, new(*a2a.RefusedError)) || !strings.Contains(err.Error(), c.want) || a != nil {
			t.Errorf("%s %s: %v %v, want a refusal saying %q", c.name, c.raw, a, err, c.want)
		}
	}
}

// TestHostRule: with --platform named, a URL is held to the platform's
// domains by its host (the table of hosts.go), or to this machine
// (localhost, 127.0.0.0/8, ::1), or to a host named exactly with
// --platform-host; every other host is refused naming it and the flag.
// auto names a platform only from a host of its domains (a VPC
// endpoint's name is any AWS service's, so auto leaves it alone).
func TestHostRule(t *testing.T) {
	paths := map[Name]string{
		AgentCore:        "/runtimes/" + escapedARN + "/invocations",
		Vertex:           "/v1beta1/projects/p/locations/us-central1/reasoningEngines/1",
		GeminiEnterprise: "/v1/projects/p/locations/global/collections/c/engines/e/assistants/a/agents/1",
		Foundry:          "/api/projects/p/agents/a/endpoint/protocols/a2a",
		ServiceNow:       "/api/sn_aia/a2a/v2/agent/id/1",
	}
	named := []string{"agents.private.example"}
	for _, c := range []struct {
		platform Name
		host     string
		why      string // "" refused
		detected bool   // auto names the platform from it
	}{
		{AgentCore, "bedrock-agentcore.us-east-1.amazonaws.com", "the platform's domain", true},
		{AgentCore, "bedrock-agentcore-fips.us-gov-west-1.amazonaws.com", "the platform's domain", true},
		{AgentCore, "bedrock-agentcore.cn-north-1.amazonaws.com.cn", "the platform's domain", true},
		{AgentCore, "vpce-0a1b2c3d-x1y2z3.bedrock-agentcore.us-east-1.vpce.amazonaws.com", "the platform's domain", false},
		{AgentCore, "bedrock-agentcore.us-east-1.evil.test", "", false},
		{AgentCore, "bedrock-agentcore.evil.amazonaws.com", "", false},
		{AgentCore, "vpce.amazonaws.com", "", false},
		{AgentCore, "x.vpce.amazonaws.com.evil.test", "", false},
		{Vertex, "us-central1-aiplatform.googleapis.com", "the platform's domain", true},
		{Vertex, "aiplatform.googleapis.com", "the platform's domain", true},
		{Vertex, "a.b-aiplatform.googleapis.com", "", false},
		{Vertex, "us-central1-aiplatform.googleapis.com.evil.test", "", false},
		{Vertex, "evil.test", "", false},
		{GeminiEnterprise, "discoveryengine.googleapis.com", "the platform's domain", true},
		{GeminiEnterprise, "eu-discoveryengine.googleapis.com", "the platform's domain", true},
		{GeminiEnterprise, "evil-discoveryengine.googleapis.com.evil.test", "", false},
		{Foundry, "acct-1.services.ai.azure.com", "the platform's domain", true},
		{Foundry, "a.b.services.ai.azure.com", "", false},
		{Foundry, "services.ai.azure.com", "", false},
		{ServiceNow, "acme.service-now.com", "the platform's domain", true},
		{ServiceNow, "acme.service-now.com.evil.test", "", false},
		{ServiceNow, "127.0.0.1:8443", "this machine", false},
		{ServiceNow, "127.9.8.7", "this machine", false},
		{ServiceNow, "[::1]:8443", "this machine", false},
		{ServiceNow, "localhost:8443", "this machine", false},
		{ServiceNow, "LOCALHOST", "this machine", false},
		{ServiceNow, "localhost.evil.test", "", false},
		{ServiceNow, "127.0.0.1.evil.test", "", false},
		{ServiceNow, "0.0.0.0", "", false},
		{Vertex, "agents.private.example", "named with --platform-host", false},
		{Vertex, "AGENTS.private.example:8443", "named with --platform-host", false},
		{Vertex, "x.agents.private.example", "", false},
		{Vertex, "agents.private.example.evil.test", "", false},
		{Vertex, "private.example", "", false},
	} {
		raw := "https://" + c.host + paths[c.platform]
		a, err := Resolve(c.platform, raw, Options{Hosts: named})
		host := strings.ToLower(c.host)
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		switch {
		case c.why == "" && (err == nil || !errors.As(err, new(*a2a.RefusedError)) ||
			!strings.Contains(err.Error(), "the host "+host+" is outside the platform's domains") ||
			!strings.Contains(err.Error(), "--platform-host "+host)):
			t.Errorf("%s %s: %v %v, want a refusal naming the host and --platform-host", c.platform, c.host, a, err)
		case c.why != "" && (err != nil || a.Host != host || a.HostWhy != c.why):
			t.Errorf("%s %s: %v %v, want %s (%s)", c.platform, c.host, a, err, host, c.why)
		}
		if got := Detect(raw); (got == c.platform) != c.detected {
			t.Errorf("auto %s: %s", raw, got)
		}
	}
}

// TestDomainsSaid: a refusal says the platform's domains as its
// documentation writes them.
func TestDomainsSaid(t *testing.T) {
	for n, want := range map[Name]string{
		AgentCore:  "bedrock-agentcore.<region>.amazonaws.com, bedrock-agentcore-fips.<region>.amazonaws.com, bedrock-agentcore.<region>.amazonaws.com.cn, *.vpce.amazonaws.com",
		Vertex:     "<location>-aiplatform.googleapis.com, aiplatform.googleapis.com",
		Foundry:    "<account>.services.ai.azure.com",
		ServiceNow: "<instance>.service-now.com",
	} {
		if got := domains(n); got != want {
			t.Errorf("%s: %q, want %q", n, got, want)
		}
	}
}

// TestCheckHostFlag: --platform-host takes one host name or IP address
// alone.
func TestCheckHostFlag(t *testing.T) {
	for _, ok := range []string{"agents.private.example", "Agents.Private.Example", "10.0.0.7", "::1", "vpce-1.example"} {
		if err := CheckHostFlag(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "https://evil.test", "evil.test:443", "*.evil.test", "evil.test/x", "evil test", "evil.test#", "a..b", "-a.b"} {
		if err := CheckHostFlag(bad); err == nil || !strings.Contains(err.Error(), "--platform-host") {
			t.Errorf("%q: %v, want a refusal", bad, err)
		}
	}
}
