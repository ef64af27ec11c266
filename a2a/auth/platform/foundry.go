package platform

// Microsoft Foundry Agent Service (SPEC §12.7): the card at
// <endpoint>/agentCard/v1.0, else agentCard/v0.3; a Microsoft Entra token
// for https://ai.azure.com from azidentity's default chain, or the one
// `shim login` got with the device code.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth/platform/helperwire"
	"github.com/shimdev/shim/internal/redact"
)

// FoundryScope is the scope of the Entra token Foundry takes.
const FoundryScope = "https://ai.azure.com/.default"

// foundryPath is the tail of a Foundry agent's A2A endpoint.
const foundryPath = "/endpoint/protocols/a2a"

// azureCLIClientID is the public client azidentity's device-code and
// interactive credentials sign in with when given none (the Azure CLI's).
const azureCLIClientID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"

// foundry reads a Foundry agent's A2A URL (…/api/projects/<project>/
// agents/<agent>/endpoint/protocols/a2a, or the agent's URL without the
// tail, or one of its card URLs).
func foundry(raw string, opts Options) (*Agent, error) {
	const want = "give the agent's A2A URL (https://<account>.services.ai.azure.com/api/projects/<project>/agents/<agent>/endpoint/protocols/a2a)"
	u, err := parseHTTPS(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, want)
	}
	p := u.EscapedPath()
	if i := strings.Index(p, foundryPath); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimRight(p, "/")
	if segs := strings.Split(p, "/"); len(segs) < 6 || segs[1] != "api" || segs[2] != "projects" || segs[4] != "agents" {
		return nil, fmt.Errorf("%s names no agent: %s", raw, want)
	}
	base := origin(u) + p + foundryPath
	q := ""
	if u.RawQuery != "" {
		q = "?" + u.RawQuery
	}
	v10 := Card{URL: base + "/agentCard/v1.0" + q, Dialect: a2a.V10}
	v03 := Card{URL: base + "/agentCard/v0.3" + q, Dialect: a2a.V03}
	a := &Agent{URL: base, Cards: []Card{v10, v03}, LoginClientID: azureCLIClientID}
	switch opts.Version {
	case "1.0":
		a.Cards = []Card{v10}
	case "0.3":
		a.Cards = []Card{v03}
	}
	a.Login = entraDeviceCode()
	a.ambient, a.signs = &azureCredential{locate: opts.Helper}, "bearer: a Microsoft Entra token for https://ai.azure.com"
	return a, nil
}

// entraDeviceCode is the device-code sign-in against Entra for Foundry:
// the tenant of AZURE_TENANT_ID, else organizations (any work account).
func entraDeviceCode() *a2a.Scheme {
	tenant := os.Getenv("AZURE_TENANT_ID")
	if tenant == "" {
		tenant = "organizations"
	}
	base := helperwire.AuthorityHost() + "/" + url.PathEscape(tenant) + "/oauth2/v2.0/"
	return &a2a.Scheme{Name: "entra", Kind: a2a.SchemeOAuth2, Scopes: []string{FoundryScope, "offline_access"},
		DeviceCode: &a2a.OAuthFlow{DeviceAuthorizationURL: base + "devicecode", TokenURL: base + "token",
			Scopes: []string{FoundryScope, "offline_access"}}}
}

// azureCredential is an Entra token from azidentity's default chain
// (environment, workload identity, managed identity, Azure CLI, Azure
// Developer CLI, Azure PowerShell), as the credential helper
// (shim-platform azure) gets it at the first request; the token is kept
// until shortly before it expires.
type azureCredential struct {
	locate Locate

	mu   sync.Mutex
	tok  string
	exp  time.Time
	from string
}

var _ Ambient = (*azureCredential)(nil)

func (a *azureCredential) Check() error { return nil }
func (a *azureCredential) Empty() bool  { return false }

// refreshMargin renews a kept credential this long before it expires.
const refreshMargin = 5 * time.Minute

// token returns a valid token for Foundry.
func (a *azureCredential) token(ctx context.Context) (string, time.Time, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok != "" && time.Until(a.exp) > refreshMargin {
		return a.tok, a.exp, nil
	}
	ans, err := runHelper(ctx, a.locate, "azure", "--scope", FoundryScope)
	if err != nil {
		return "", time.Time{}, err
	}
	redact.Add(ans.Token)
	if ans.Token == "" {
		return "", time.Time{}, &a2a.SignInError{Msg: "the platform credential helper gave no Microsoft Entra token: " + reinstall}
	}
	a.tok, a.exp, a.from = ans.Token, ans.Expires, helperText(ans.From)
	return a.tok, a.exp, nil
}

func (a *azureCredential) Apply(req *http.Request) error {
	tok, _, err := a.token(req.Context())
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

func (a *azureCredential) Describe(ctx context.Context) (Info, error) {
	_, exp, err := a.token(ctx)
	if err != nil {
		return Info{}, err
	}
	return Info{From: a.Loaded(), Expiry: exp}, nil
}

func (a *azureCredential) Loaded() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.tok == "":
		return "the Azure default credential chain (environment, managed identity, az login)"
	case a.from != "":
		return a.from
	}
	return "the Azure default credential chain"
}
