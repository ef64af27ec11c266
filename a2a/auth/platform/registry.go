package platform

// A registration is one managed platform as shim knows it: its name, its
// vendor's title, the hosts its credential may go to (SPEC §15; hosts.go
// reads them), and how what its console shows reads into an Agent. A new
// platform is one row of registry and the file that reads its places.
type registration struct {
	name  Name
	title string
	// hosts are the host names its credential may go to.
	hosts []hostPattern
	// owns, when set, reports whether raw (not a URL) is a name of the
	// platform's own form: a runtime ARN, a resource name.
	owns func(raw string) bool
	// resolve reads raw (a URL, or a name owns reports) into the agent.
	resolve func(raw string, opts Options) (*Agent, error)
}

// registry is every platform, in the order --platform auto tries them. It
// is set by init: its readers reach the host table through it.
var registry []registration

func init() {
	registry = []registration{
		{AgentCore, "Amazon Bedrock AgentCore", []hostPattern{
			{"bedrock-agentcore.{region}.amazonaws.com", true},
			{"bedrock-agentcore-fips.{region}.amazonaws.com", true},
			{"bedrock-agentcore.{region}.amazonaws.com.cn", true},
			// A VPC interface endpoint's own names; any AWS service has them,
			// so auto does not take one for AgentCore.
			{"*.vpce.amazonaws.com", false},
		}, func(raw string) bool { _, ok := parseARN(raw); return ok }, agentCore},
		{Vertex, "Google Vertex AI Agent Engine", []hostPattern{
			{"{location}-aiplatform.googleapis.com", true},
			{"aiplatform.googleapis.com", true},
		}, func(raw string) bool { _, _, ok := vertexName(raw); return ok }, vertex},
		{GeminiEnterprise, "Google Gemini Enterprise", []hostPattern{
			{"discoveryengine.googleapis.com", true},
			{"{location}-discoveryengine.googleapis.com", true},
		}, func(raw string) bool { _, _, ok := geminiName(raw); return ok }, geminiEnterprise},
		{Foundry, "Microsoft Foundry", []hostPattern{
			{"{account}.services.ai.azure.com", true},
		}, nil, foundry},
		{ServiceNow, "ServiceNow AI Agents", []hostPattern{
			{"{instance}.service-now.com", true},
		}, nil, func(raw string, _ Options) (*Agent, error) { return serviceNow(raw) }},
	}
	Names = []Name{Auto, None}
	for _, r := range registry {
		Names = append(Names, r.name)
	}
}

// lookup is platform n's registration.
func lookup(n Name) (registration, bool) {
	for _, r := range registry {
		if r.name == n {
			return r, true
		}
	}
	return registration{}, false
}
