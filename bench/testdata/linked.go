// This file is not part of shim. bench/run.sh lays it into cmd/shim with
// `go build -overlay` to build the variant "credential libraries linked
// in": shim with the AWS and Azure credential libraries in its own binary
// (the other way to keep shim-platform's work, which README "Security"
// weighs), measured next to shim at cold start. It links what
// cmd/shim-platform links, the same entry points, so their package
// initialisation runs at every start and their code is in the binary;
// benchLinkedLoad itself never runs (nothing sets benchLinkedRun).

package main

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/aws/aws-sdk-go-v2/config"
)

// benchLinkedRun is never set: a value the compiler cannot see through.
var benchLinkedRun bool

func init() {
	if benchLinkedRun {
		benchLinkedLoad(context.Background())
	}
}

// benchLinkedLoad is what shim-platform does for AgentCore and Foundry.
func benchLinkedLoad(ctx context.Context) {
	if cfg, err := config.LoadDefaultConfig(ctx); err == nil {
		_, _ = cfg.Credentials.Retrieve(ctx)
	}
	if cred, err := azidentity.NewDefaultAzureCredential(nil); err == nil {
		_, _ = cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://ai.azure.com/.default"}})
	}
}
