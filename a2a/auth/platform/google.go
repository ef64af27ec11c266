package platform

// Google Vertex AI Agent Engine and Gemini Enterprise (SPEC §12.7): the
// HTTP+JSON binding of A2A 0.3 under the agent's resource, an access token
// from Application Default Credentials (golang.org/x/oauth2/google,
// renewed by the library), and for Gemini Enterprise the quota project in
// X-Goog-User-Project.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/redact"
)

// CloudPlatformScope is the scope of the access token Google's agent
// platforms take.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// QuotaProjectHeader names the project Gemini Enterprise bills a call to.
const QuotaProjectHeader = "X-Goog-User-Project"

// vertexName finds projects/P/locations/L/reasoningEngines/ID in path: the
// resource name (path up to its end) and its location L.
func vertexName(path string) (name, location string, ok bool) {
	return resourceName(path, []string{"projects", "locations", "reasoningEngines"})
}

// geminiName finds projects/P/locations/L/collections/C/engines/E/
// assistants/A/agents/ID in path.
func geminiName(path string) (name, location string, ok bool) {
	return resourceName(path, []string{"projects", "locations", "collections", "engines", "assistants", "agents"})
}

// resourceName finds in path the resource whose collections are kinds
// (projects, then locations, …), each followed by its id. It returns path
// up to the resource's end (what comes before included) and the
// resource's location.
func resourceName(path string, kinds []string) (name, location string, ok bool) {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if s != kinds[0] || i+2*len(kinds) > len(segs) {
			continue
		}
		ok := true
		for k, kind := range kinds {
			if segs[i+2*k] != kind || segs[i+2*k+1] == "" {
				ok = false
				break
			}
		}
		if ok {
			return strings.Join(segs[:i+2*len(kinds)], "/"), segs[i+3], true
		}
	}
	return "", "", false
}

// googleAgent reads a resource URL (or a bare resource name, put under
// host(location)/version) into the agent at <resource>/a2a.
func googleAgent(raw, want string, find func(string) (string, string, bool), host func(location string) string, version string) (*Agent, error) {
	var base string
	if strings.HasPrefix(raw, "projects/") {
		name, loc, ok := find(raw)
		if !ok {
			return nil, fmt.Errorf("%q is not a resource name: %s", raw, want)
		}
		if err := checkPart("location", "the location of the resource name", loc); err != nil {
			return nil, err
		}
		base = "https://" + host(loc) + "/" + version + "/" + name
	} else {
		u, err := parseHTTPS(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", err, want)
		}
		p, _, ok := find(u.EscapedPath())
		if !ok {
			return nil, fmt.Errorf("%s names no agent resource: %s", raw, want)
		}
		base = origin(u) + p
	}
	base += "/a2a"
	return &Agent{URL: base, Endpoint: base, Version: "0.3", Binding: "http+json", Codec: "protojson-0.3",
		Cards: []Card{{URL: base + "/v1/card", Dialect: a2a.V03}}}, nil
}

func vertex(raw string, opts Options) (*Agent, error) {
	a, err := googleAgent(raw, "give the reasoning engine's resource URL "+
		"(https://<location>-aiplatform.googleapis.com/v1beta1/projects/<project>/locations/<location>/reasoningEngines/<id>) or its resource name",
		vertexName, func(loc string) string {
			if loc == "global" {
				return "aiplatform.googleapis.com"
			}
			return loc + "-aiplatform.googleapis.com"
		}, "v1beta1")
	if err != nil {
		return nil, err
	}
	a.ambient, a.signs = &googleCredential{}, "bearer: a Google OAuth access token (scope cloud-platform)"
	return a, nil
}

func geminiEnterprise(raw string, opts Options) (*Agent, error) {
	a, err := googleAgent(raw, "give the agent's URL "+
		"(https://discoveryengine.googleapis.com/v1/projects/<project>/locations/<location>/collections/<c>/engines/<e>/assistants/<a>/agents/<id>) or its resource name",
		geminiName, func(loc string) string {
			if loc == "global" {
				return "discoveryengine.googleapis.com"
			}
			return loc + "-discoveryengine.googleapis.com"
		}, "v1")
	if err != nil {
		return nil, err
	}
	a.ambient, a.signs = &googleCredential{quota: true}, "bearer: a Google OAuth access token (scope cloud-platform), with X-Goog-User-Project"
	// A stored token carries the quota project of the environment.
	a.decorate = func(req *http.Request) {
		if p := os.Getenv("GOOGLE_CLOUD_PROJECT"); p != "" && req.Header.Get(QuotaProjectHeader) == "" {
			req.Header.Set(QuotaProjectHeader, p)
		}
	}
	return a, nil
}

// googleCredential is an access token from Application Default
// Credentials, found and renewed by golang.org/x/oauth2/google.
type googleCredential struct {
	// quota: the requests carry X-Goog-User-Project (Gemini Enterprise).
	quota bool

	mu      sync.Mutex
	ts      oauth2.TokenSource
	project string // the quota project
	from    string
}

var _ Ambient = (*googleCredential)(nil)

func (g *googleCredential) Check() error { return nil }
func (g *googleCredential) Empty() bool  { return false }

// adcFile is what a credentials file says of itself.
type adcFile struct {
	Type           string `json:"type"`
	ClientEmail    string `json:"client_email"`
	Account        string `json:"account"`
	QuotaProjectID string `json:"quota_project_id"`
	Impersonation  string `json:"service_account_impersonation_url"`
}

// load finds the credentials once it succeeds.
func (g *googleCredential) load() (oauth2.TokenSource, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ts != nil {
		return g.ts, nil
	}
	// The token source keeps this context for its renewals: not a
	// request's, which ends with the request.
	ctx := context.Background()
	creds, err := google.FindDefaultCredentials(ctx, CloudPlatformScope)
	if err != nil {
		return nil, signInError("no Google Application Default Credentials: run `gcloud auth application-default login`, "+
			"or set GOOGLE_APPLICATION_CREDENTIALS to a service account's key file", err)
	}
	var f adcFile
	if creds.JSON != nil {
		_ = json.Unmarshal(creds.JSON, &f)
	}
	g.project = f.QuotaProjectID
	if g.project == "" {
		g.project = os.Getenv("GOOGLE_CLOUD_PROJECT")
	}
	g.from = adcFrom(creds.JSON != nil, f)
	g.ts = creds.TokenSource
	return g.ts, nil
}

// adcFrom says which Application Default Credentials were found.
func adcFrom(file bool, f adcFile) string {
	where := " (gcloud auth application-default login)"
	if os.Getenv("GOOGLE_APPLICATION_CREDENTIALS") != "" {
		where = " (GOOGLE_APPLICATION_CREDENTIALS)"
	}
	switch {
	case !file:
		return "ADC from the metadata server (the machine's service account)"
	case f.Type == "service_account":
		return "ADC service account " + f.ClientEmail + where
	case f.Type == "authorized_user" && f.Account != "":
		return "ADC user " + f.Account + where
	case f.Type == "authorized_user":
		return "ADC user credentials" + where
	case f.Type == "impersonated_service_account" || f.Impersonation != "":
		return "ADC impersonating a service account" + where
	case f.Type == "external_account" || f.Type == "external_account_authorized_user":
		return "ADC workload identity federation" + where
	}
	return "ADC " + f.Type + where
}

// token returns a valid access token, renewed by the library as needed.
func (g *googleCredential) token() (*oauth2.Token, string, error) {
	ts, err := g.load()
	if err != nil {
		return nil, "", err
	}
	tok, err := ts.Token()
	if err != nil {
		return nil, "", signInError("Google Application Default Credentials gave no access token: "+
			"run `gcloud auth application-default login` again", err)
	}
	redact.Add(tok.AccessToken)
	g.mu.Lock()
	project := g.project
	g.mu.Unlock()
	if g.quota && project == "" {
		return nil, "", signInError("Gemini Enterprise bills every call to a quota project, and the credentials name none: "+
			"run `gcloud auth application-default set-quota-project <project>`, or set GOOGLE_CLOUD_PROJECT", nil)
	}
	return tok, project, nil
}

// Apply implements auth.Credential: the access token as a bearer token, and
// the quota project for Gemini Enterprise.
func (g *googleCredential) Apply(req *http.Request) error {
	tok, project, err := g.token()
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	if g.quota {
		req.Header.Set(QuotaProjectHeader, project)
	}
	return nil
}

func (g *googleCredential) Describe(ctx context.Context) (Info, error) {
	tok, project, err := g.token()
	if err != nil {
		return Info{}, err
	}
	g.mu.Lock()
	from := g.from
	g.mu.Unlock()
	if g.quota {
		from += ", quota project " + project
	}
	return Info{From: from, Expiry: tok.Expiry}, nil
}

func (g *googleCredential) Loaded() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.from != "" {
		return g.from
	}
	return "Google Application Default Credentials"
}
