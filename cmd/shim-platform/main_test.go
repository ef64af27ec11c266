package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a/auth/platform/helperwire"
)

func awsEnv(t *testing.T, keys bool) {
	dir := t.TempDir()
	vars := map[string]string{"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "",
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_WEB_IDENTITY_TOKEN_FILE": ""}
	if keys {
		vars["AWS_ACCESS_KEY_ID"], vars["AWS_SECRET_ACCESS_KEY"], vars["AWS_SESSION_TOKEN"] = "AKIAHELPERTEST000001", "helper/secret/0123456789", "helper-session-0123456789"
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
}

// TestAWS: the helper prints the default chain's keys, the region it was
// given (else the SDK's) and where they came from on stdout, nothing on
// stderr; with no credentials, exit status 1 and an error saying what to
// run, no keys.
func TestAWS(t *testing.T) {
	awsEnv(t, true)
	for _, c := range []struct {
		args   []string
		region string
	}{{[]string{"aws", "--region", "us-west-2"}, "us-west-2"}, {[]string{"aws"}, "eu-central-1"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), c.args, &out, &errb); code != 0 || errb.Len() > 0 {
			t.Fatalf("%v: status %d, stderr %q", c.args, code, errb.String())
		}
		var ans helperwire.Answer
		if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
			t.Fatal(err)
		}
		want := helperwire.Answer{V: 1, AccessKeyID: "AKIAHELPERTEST000001", SecretAccessKey: "helper/secret/0123456789",
			SessionToken: "helper-session-0123456789", Region: c.region, From: "AWS environment variables (AWS_ACCESS_KEY_ID)"}
		if ans != want {
			t.Errorf("%v: %+v", c.args, ans)
		}
	}

	awsEnv(t, false)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"aws"}, &out, &errb)
	var ans helperwire.Answer
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil || code != 1 || ans.V != 1 || ans.AccessKeyID != "" ||
		!strings.Contains(ans.Error, "no AWS credentials for the AgentCore runtime: run `aws sso login`") {
		t.Errorf("no credentials: status %d, %+v %v", code, ans, err)
	}
}

// TestUsage: a request shim never sends is a usage error (status 2) on
// stderr, nothing on stdout.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"gcp"}, {"azure"}, {"aws", "--nope"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 || out.Len() > 0 || errb.Len() == 0 {
			t.Errorf("%v: status %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
}
