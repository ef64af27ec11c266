// Command shim-platform is shim's credential helper for the managed agent
// platforms (SPEC §12.7): it loads a credential with the platform's own
// library and prints it as one JSON object (helperwire.Answer) on
// stdout, for shim alone to read on the pipe between them; shim runs it
// when a request needs the credential. It lives apart from shim because
// the libraries cost every start of a program that links them (their
// package initialisation) and several megabytes. It is installed beside
// shim (`make build` builds both into bin/; every release archive and npm
// package carries both), where shim finds it, else on the PATH.
//
//	shim-platform aws [--region R] [--profile P]
//	    aws-sdk-go-v2's default credential chain (config.LoadDefaultConfig):
//	    the keys, the region, where they came from and when they expire.
//	shim-platform azure --scope S
//	    azidentity's DefaultAzureCredential: an Entra token for scope S.
//
// It exits 1 with {"v":1,"error":"…"} when it has no credential. It
// writes no credential anywhere else, and logs nothing.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azlog "github.com/Azure/azure-sdk-for-go/sdk/azcore/log"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/shimdev/shim/a2a/auth/platform/helperwire"
	"github.com/shimdev/shim/internal/redact"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run answers one request on stdout; usage errors go to stderr (status 2).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: shim-platform aws [--region R] [--profile P] | azure --scope S")
		return 2
	}
	fs := flag.NewFlagSet("shim-platform "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ans *helperwire.Answer
	var err error
	switch args[0] {
	case "aws":
		region := fs.String("region", "", "the region (default: the SDK's)")
		profile := fs.String("profile", "", "the shared config profile (default: AWS_PROFILE's)")
		if fs.Parse(args[1:]) != nil {
			return 2
		}
		ans, err = awsCredentials(ctx, *region, *profile)
	case "azure":
		scope := fs.String("scope", "", "the token's scope")
		if fs.Parse(args[1:]) != nil {
			return 2
		}
		if *scope == "" {
			fmt.Fprintln(stderr, "shim-platform azure: --scope is required")
			return 2
		}
		ans, err = azureToken(ctx, *scope)
	default:
		fmt.Fprintf(stderr, "shim-platform: unknown platform %q: use aws or azure\n", args[0])
		return 2
	}
	status := 0
	if err != nil {
		ans, status = &helperwire.Answer{Error: err.Error()}, 1
	}
	ans.V = helperwire.Version
	if err := json.NewEncoder(stdout).Encode(ans); err != nil {
		return 1
	}
	return status
}

// libError is a library's error, with the secrets this process knows
// redacted (the library's words may quote a file).
func libError(msg string, err error) error {
	if err != nil {
		msg += " (" + redact.Default.String(strings.TrimSpace(err.Error())) + ")"
	}
	return errors.New(msg)
}

// awsCredentials loads aws-sdk-go-v2's default chain.
func awsCredentials(ctx context.Context, region, profile string) (*helperwire.Answer, error) {
	var opts []func(*config.LoadOptions) error
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, libError("the AWS configuration could not be read; check AWS_PROFILE and ~/.aws/config", err)
	}
	if cfg.Region == "" {
		return nil, libError("no AWS region for the AgentCore runtime: give its ARN or its regional URL, or set AWS_REGION", nil)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, libError("no AWS credentials for the AgentCore runtime: run `aws sso login` "+
			"(or `aws configure`), or set AWS_PROFILE to a profile that has them", err)
	}
	ans := &helperwire.Answer{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey,
		SessionToken: creds.SessionToken, Region: cfg.Region, From: awsFrom(&cfg)}
	if creds.CanExpire {
		ans.Expires = creds.Expires
	}
	return ans, nil
}

// awsFrom says where the SDK found the credentials: the source the chain
// took and the profile it read.
func awsFrom(cfg *aws.Config) string {
	var sources []aws.CredentialSource
	if ps, ok := cfg.Credentials.(aws.CredentialProviderSource); ok {
		sources = ps.ProviderSources()
	}
	profile := awsProfile(cfg.ConfigSources)
	in := func(what string) string {
		if profile == "" {
			return "AWS " + what
		}
		return "AWS profile " + profile + " (" + what + ")"
	}
	for _, s := range sources {
		switch s {
		case aws.CredentialSourceEnvVars:
			return "AWS environment variables (AWS_ACCESS_KEY_ID)"
		case aws.CredentialSourceProfile:
			return in("keys in the shared credentials file")
		case aws.CredentialSourceProfileSSO, aws.CredentialSourceSSO, aws.CredentialSourceProfileSSOLegacy, aws.CredentialSourceSSOLegacy:
			return in("IAM Identity Center: aws sso login")
		case aws.CredentialSourceProfileLogin, aws.CredentialSourceLogin:
			return in("aws login")
		case aws.CredentialSourceProfileProcess, aws.CredentialSourceProcess:
			return in("credential_process")
		case aws.CredentialSourceEnvVarsSTSWebIDToken, aws.CredentialSourceProfileSTSWebIDToken, aws.CredentialSourceSTSAssumeRoleWebID:
			return "AWS web identity (assumed role)"
		case aws.CredentialSourceHTTP:
			return "AWS container credentials"
		case aws.CredentialSourceIMDS:
			return "AWS instance role (EC2 instance metadata)"
		case aws.CredentialSourceProfileSourceProfile, aws.CredentialSourceSTSAssumeRole:
			return in("assumed role")
		}
	}
	return in("default credential chain")
}

// awsProfile is the shared-config profile the SDK read.
func awsProfile(sources []any) string {
	for _, s := range sources {
		var p string
		switch c := s.(type) {
		case config.SharedConfig:
			p = c.Profile
		case *config.SharedConfig:
			p = c.Profile
		}
		if p != "" {
			return p
		}
	}
	return ""
}

// azureChosen is the credential of the default chain that gave a token,
// as azidentity's log says it ("DefaultAzureCredential authenticated with
// AzureCLICredential"): the library says it nowhere else.
var (
	azureChosenMu sync.Mutex
	azureChosen   string
)

func listenAzure() {
	azlog.SetEvents(azidentity.EventAuthentication)
	azlog.SetListener(func(_ azlog.Event, msg string) {
		if _, name, ok := strings.Cut(msg, "DefaultAzureCredential authenticated with "); ok {
			azureChosenMu.Lock()
			azureChosen = strings.TrimSpace(name)
			azureChosenMu.Unlock()
		}
	})
}

// azureNames are the credentials of the default chain as people know them.
var azureNames = map[string]string{
	"EnvironmentCredential":       "Azure environment variables (AZURE_CLIENT_ID)",
	"WorkloadIdentityCredential":  "Azure workload identity",
	"ManagedIdentityCredential":   "Azure managed identity",
	"AzureCLICredential":          "Azure CLI (az login)",
	"AzureDeveloperCLICredential": "Azure Developer CLI (azd auth login)",
	"AzurePowerShellCredential":   "Azure PowerShell (Connect-AzAccount)",
}

// azureToken gets a token for scope from azidentity's default chain, with
// instance discovery off for an authority host that is not Microsoft's.
func azureToken(ctx context.Context, scope string) (*helperwire.Answer, error) {
	listenAzure()
	opts := &azidentity.DefaultAzureCredentialOptions{DisableInstanceDiscovery: !helperwire.MicrosoftAuthority(helperwire.AuthorityHost())}
	cred, err := azidentity.NewDefaultAzureCredential(opts)
	if err != nil {
		return nil, libError("the Azure credential chain could not be set up", err)
	}
	var tok azcore.AccessToken
	tok, err = cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{scope}})
	if err != nil {
		return nil, libError("no Microsoft Entra token for Foundry: run `az login`, "+
			"or `shim login` to sign in with a device code", err)
	}
	redact.Add(tok.Token)
	azureChosenMu.Lock()
	name := azureChosen
	azureChosenMu.Unlock()
	from := "the Azure default credential chain"
	switch {
	case azureNames[name] != "":
		from = azureNames[name]
	case name != "":
		from = "Azure " + name
	}
	return &helperwire.Answer{Token: tok.Token, Expires: tok.ExpiresOn, From: from}, nil
}
