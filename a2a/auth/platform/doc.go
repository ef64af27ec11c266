// Package platform is how shim reaches an A2A agent on a managed platform
// (SPEC §12.7), beside the card's security schemes of package auth: each
// platform says where the agent's endpoint and card are (from what its
// console shows: an AgentCore runtime ARN, a Vertex reasoning engine's
// resource URL, a Gemini Enterprise agent's URL, a Foundry agent's A2A
// URL, a ServiceNow agent's URL), the binding and dialect it speaks, how
// a stored secret is put on, the platform's own credential (an
// auth.Credential from the platform's own library), and its extra headers.
// Nothing above the A2A client knows which platform ran: the client is
// configured with the Agent's URLs and its Credential.
//
// The credential libraries load lazily: Resolve and Credential construct
// nothing of theirs and read no file; the first request that needs the
// credential loads it, and a failure is tried again by the next request.
// aws-sdk-go-v2's config.LoadDefaultConfig and azidentity's
// NewDefaultAzureCredential (with MSAL) live in another executable, the
// credential helper shim-platform (cmd/shim-platform): Go runs every linked
// package's init at start, and theirs cost about a millisecond of every
// start of shim, platform or not. shim runs the helper, reads the
// credential from its stdout pipe (package helperwire) and keeps it until
// shortly before it expires; it signs with aws-sdk-go-v2's aws/signer/v4
// in process (its init costs nothing measurable). golang.org/x/oauth2/
// google's FindDefaultCredentials stays in process (its init is about
// 0.03 ms) and renews its own tokens. A stored token (`shim login`,
// --token) wins over the ambient credential.
//
// Files:
//   - platform.go: Name, Parse, Detect, Resolve, Agent, Ambient, Info,
//     the Credential that puts the headers and the credential on.
//   - registry.go: the registry, one row per platform: its name, its
//     vendor's title, its hosts, the names of its own form (an ARN, a
//     resource name) and the function that reads its places. A new
//     platform is a row and a file.
//   - hosts.go: where each platform's credential may go (SPEC §15): its
//     hosts' patterns matched, the documented form of every part placed into
//     one (a region, a location, an account), and the rule that holds an
//     agent's places to them (or to this machine, or to a host named
//     with --platform-host); a refusal is an a2a.RefusedError.
//   - helper.go: the credential helper: found beside shim's executable,
//     else on the PATH (Find; installed with shim, never written by it:
//     SPEC §15), run with a bounded answer.
//   - agentcore.go: Amazon Bedrock AgentCore: the runtime ARN, the
//     invocations URL, the runtime session header derived from the
//     editor's session (a2a.SessionOf), SigV4 with aws-sdk-go-v2's
//     signer, the keys from the helper (shim-platform aws).
//   - google.go: Vertex AI Agent Engine and Gemini Enterprise: the
//     resource names, Application Default Credentials with
//     golang.org/x/oauth2/google, the quota project header.
//   - foundry.go: Microsoft Foundry: the agent's cards (1.0, then 0.3),
//     an Entra token from azidentity's default chain (shim-platform
//     azure), the device-code sign-in `shim login` runs (shim's own OAuth
//     client, in process).
//   - servicenow.go: ServiceNow AI Agents: the agent's paths and cards,
//     the API key header.
//
// Goroutines: none of its own (os/exec's for the helper's pipes). Locks:
// each credential's mu (a leaf, held across the helper's run or its
// library's load and token calls, which may reach the network).
package platform
