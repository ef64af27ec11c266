package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkedVariant: the variant run.sh builds, bench/testdata/linked.go
// laid into cmd/shim, type-checks with shim and links the credential
// libraries shim-platform links (shim itself links none of them:
// cmd/shim's TestShimLinksNoCredentialLibrary).
func TestLinkedVariant(t *testing.T) {
	cmdShim, _ := filepath.Abs(filepath.Join("..", "cmd", "shim"))
	linked, _ := filepath.Abs(filepath.Join("testdata", "linked.go"))
	ov := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(ov, fmt.Appendf(nil, `{"Replace":{%q:%q}}`, filepath.Join(cmdShim, "zz_bench_linked.go"), linked), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-deps", "-tags", "urfave_cli_no_docs", "-overlay", ov, cmdShim).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"github.com/aws/aws-sdk-go-v2/config", "github.com/aws/aws-sdk-go-v2/service/sts",
		"github.com/Azure/azure-sdk-for-go/sdk/azidentity"} {
		if !strings.Contains("\n"+string(out), "\n"+pkg+"\n") {
			t.Errorf("the linked variant does not link %s", pkg)
		}
	}
	if out, err := exec.Command("go", "vet", "-tags", "urfave_cli_no_docs", "-overlay", ov, cmdShim).CombinedOutput(); err != nil {
		t.Errorf("the linked variant does not build: %v\n%s", err, out)
	}
}
