// Package platform is how shim reaches an A2A agent on a managed platform
// (SPEC §12.7), beside the card's security schemes of package auth: each
// platform says where the agent's endpoint and card are (from what its
// console shows: an AgentCore runtime ARN, a Vertex reasoning engine's
// resource URL, a Gemini Enterprise agent's URL, a Foundry agent's A2A
// URL, a ServiceNow agent's URL), the binding and dialect it speaks, how
// a stored secret is put on, the platform's own credential (an
// auth.Source from the platform's own library), and its extra headers.
// Nothing above the A2A client knows which platform ran: the client is
// configured with the Agent's URLs and its Source.
//
// The credential libraries load lazily: Resolve and Source construct
// nothing of theirs and read no file; the first request that needs the
// credential loads it (aws-sdk-go-v2's config.LoadDefaultConfig,
// golang.org/x/oauth2/google's FindDefaultCredentials, azidentity's
// NewDefaultAzureCredential), and a failure is tried again by the next
// request. A stored token (`shim login`, --token) wins over the ambient
// credential.
//
// Files:
//   - platform.go: Name, Parse, Detect, Resolve, Agent, Credential, Info,
//     the Source that puts the headers and the credential on.
//   - agentcore.go: Amazon Bedrock AgentCore: the runtime ARN, the
//     invocations URL, the runtime session header derived from the
//     editor's session (a2a.SessionOf), SigV4 with aws-sdk-go-v2.
//   - google.go: Vertex AI Agent Engine and Gemini Enterprise: the
//     resource names, Application Default Credentials with
//     golang.org/x/oauth2/google, the quota project header.
//   - foundry.go: Microsoft Foundry: the agent's cards (1.0, then 0.3),
//     an Entra token from azidentity's default chain, the device-code
//     sign-in `shim login` runs.
//   - servicenow.go: ServiceNow AI Agents: the agent's paths and cards,
//     the API key header.
//
// Goroutines: none. Locks: each credential's mu (a leaf, held across its
// library's load and token calls, which may reach the network); the
// Azure log listener's azureChosenMu, a leaf.
package platform
