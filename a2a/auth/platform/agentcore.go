package platform

// Amazon Bedrock AgentCore Runtime (SPEC §12.7): JSON-RPC POSTed to the
// runtime's invocations URL, every request signed with AWS Signature
// Version 4 by aws-sdk-go-v2 (credentials from its default chain), and
// the runtime session header on every request.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/randid"
	"github.com/shimdev/shim/internal/redact"
)

// AgentCoreService is the SigV4 service name of AgentCore's data plane.
const AgentCoreService = "bedrock-agentcore"

// SessionHeader carries the runtime session on every request to an
// AgentCore runtime: 33 to 256 characters, the same for every request of
// one editor session, so the runtime keeps the session's microVM.
const SessionHeader = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id"

// arn is an AgentCore runtime ARN:
// arn:<partition>:bedrock-agentcore:<region>:<account>:runtime/<id>.
type arn struct {
	partition, region, account, id string
}

func (a arn) String() string {
	return "arn:" + a.partition + ":bedrock-agentcore:" + a.region + ":" + a.account + ":runtime/" + a.id
}

func parseARN(s string) (arn, bool) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || !strings.HasPrefix(f[1], "aws") || f[2] != AgentCoreService || f[3] == "" {
		return arn{}, false
	}
	id, ok := strings.CutPrefix(f[5], "runtime/")
	if !ok || id == "" || strings.ContainsAny(id, "/?#") {
		return arn{}, false
	}
	return arn{partition: f[1], region: f[3], account: f[4], id: id}, true
}

// agentCoreHostRegion is the region of a data-plane host
// (bedrock-agentcore[-fips].<region>.amazonaws.com[.cn]), else "".
func agentCoreHostRegion(host string) string {
	parts, _ := onPlatform(AgentCore, host, true)
	return parts["region"]
}

// check refuses an ARN whose region or account is not of its documented
// form (the region goes into the host name the credential is sent to).
func (a arn) check() error {
	if err := checkPart("region", "the region of the runtime ARN", a.region); err != nil {
		return err
	}
	return checkPart("aws-account", "the account of the runtime ARN", a.account)
}

// agentCore reads a runtime ARN, or a URL whose path is
// /runtimes/<ARN, escaped or not>/invocations[/…], into the runtime.
func agentCore(raw string, opts Options) (*Agent, error) {
	const want = "give the runtime ARN (arn:aws:bedrock-agentcore:<region>:<account>:runtime/<id>) " +
		"or its invocations URL (https://bedrock-agentcore.<region>.amazonaws.com/runtimes/<ARN>/invocations)"
	var base, query, runtime, region string
	if r, ok := parseARN(raw); ok {
		if err := r.check(); err != nil {
			return nil, err
		}
		domain := "amazonaws.com"
		if strings.HasPrefix(r.partition, "aws-cn") {
			domain += ".cn"
		}
		base, runtime, region = "https://bedrock-agentcore."+r.region+"."+domain, r.String(), r.region
	} else {
		u, err := parseHTTPS(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", err, want)
		}
		rest, ok := strings.CutPrefix(u.Path, "/runtimes/")
		i := strings.LastIndex(rest, "/invocations")
		if !ok || i <= 0 {
			return nil, fmt.Errorf("%s has no /runtimes/<ARN>/invocations path: %s", raw, want)
		}
		runtime, base = rest[:i], origin(u)
		if q := u.Query().Get("qualifier"); q != "" {
			query = "?" + url.Values{"qualifier": {q}}.Encode()
		}
		region = agentCoreHostRegion(strings.ToLower(u.Hostname()))
		if r, ok := parseARN(runtime); ok && region == "" {
			if err := r.check(); err != nil {
				return nil, err
			}
			region = r.region
		}
	}
	// The ARN percent-encoded whole, ':' and '/' included, signed as sent.
	inv := base + "/runtimes/" + escapeAll(runtime) + "/invocations"
	a := &Agent{URL: inv, Endpoint: inv + "/" + query,
		Cards: []Card{{URL: inv + "/.well-known/agent-card.json" + query}}}
	a.ambient, a.signs = &awsCredential{region: region, locate: opts.Helper}, "AWS Signature Version 4 (service bedrock-agentcore)"
	a.decorate = newSessionIDs().set
	return a, nil
}

// escapeAll percent-encodes every byte of s but the unreserved ones of
// RFC 3986 (AWS's URI encoding).
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sessionIDs derives the runtime session of a request from its editor
// session: the same in every process for one session; requests of no
// session (the card, the sign-in probe) share one of this process.
type sessionIDs struct{ none string }

func newSessionIDs() *sessionIDs { return &sessionIDs{none: "shim-" + randid.Hex(16)} }

// RuntimeSession is the runtime session id of an editor session: 69
// characters, derived from the session id alone.
func RuntimeSession(sessionID string) string {
	sum := sha256.Sum256([]byte("shim agentcore runtime session\x00" + sessionID))
	return "shim-" + hex.EncodeToString(sum[:])
}

func (s *sessionIDs) set(req *http.Request) {
	id := s.none
	if sess := a2a.SessionOf(req.Context()); sess != "" {
		id = RuntimeSession(sess)
	}
	req.Header.Set(SessionHeader, id)
}

// awsCredential signs requests with SigV4, its credentials from
// aws-sdk-go-v2's default chain (environment, shared config and profile,
// SSO, assume-role, process, container and instance roles) as the
// credential helper (shim-platform aws) loads it at the first request;
// they are kept until shortly before they expire.
type awsCredential struct {
	region string // the host's or the ARN's; "" for the SDK's
	locate Locate

	mu          sync.Mutex
	creds       aws.Credentials
	credsRegion string // the region they sign for
	from        string
	signer      *v4.Signer
}

var _ Ambient = (*awsCredential)(nil)

func (a *awsCredential) Check() error { return nil }
func (a *awsCredential) Empty() bool  { return false }

// retrieve returns the credentials and the region, kept until shortly
// before they expire; the helper runs again then (a failure is tried
// again by the next request: the user may have run `aws sso login`).
func (a *awsCredential) retrieve(ctx context.Context) (aws.Credentials, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.creds.HasKeys() && (!a.creds.CanExpire || time.Until(a.creds.Expires) > refreshMargin) {
		return a.creds, a.credsRegion, nil
	}
	args := []string{"aws"}
	if a.region != "" {
		args = append(args, "--region", a.region)
	}
	ans, err := runHelper(ctx, a.locate, args...)
	if err != nil {
		return aws.Credentials{}, "", err
	}
	creds := aws.Credentials{AccessKeyID: ans.AccessKeyID, SecretAccessKey: ans.SecretAccessKey, SessionToken: ans.SessionToken,
		Source: "shim-platform", CanExpire: !ans.Expires.IsZero(), Expires: ans.Expires}
	redact.Add(creds.SecretAccessKey)
	redact.Add(creds.SessionToken)
	if !creds.HasKeys() || ans.Region == "" {
		return aws.Credentials{}, "", &a2a.SignInError{Msg: "the platform credential helper gave no AWS keys or no region: " + reinstall}
	}
	if a.signer == nil {
		a.signer = v4.NewSigner()
	}
	a.creds, a.credsRegion = creds, ans.Region
	a.from = helperText(ans.From) + ", region " + helperText(ans.Region)
	return creds, ans.Region, nil
}

// Apply implements auth.Credential: it signs req as sent (its escaped path,
// its headers, the hash of its body).
func (a *awsCredential) Apply(req *http.Request) error {
	creds, region, err := a.retrieve(req.Context())
	if err != nil {
		return err
	}
	hash, err := payloadHash(req)
	if err != nil {
		return err
	}
	return a.signer.SignHTTP(req.Context(), creds, req, hash, AgentCoreService, region, time.Now())
}

// payloadHash is the hex SHA-256 of req's body (read again through
// GetBody; no body hashes as empty).
func payloadHash(req *http.Request) (string, error) {
	h := sha256.New()
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, body)
		body.Close()
		if err != nil {
			return "", err
		}
	} else if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return "", err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (a *awsCredential) Describe(ctx context.Context) (Info, error) {
	creds, _, err := a.retrieve(ctx)
	if err != nil {
		return Info{}, err
	}
	info := Info{From: a.Loaded()}
	if creds.CanExpire {
		info.Expiry = creds.Expires
	}
	return info, nil
}

func (a *awsCredential) Loaded() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.from != "" {
		return a.from
	}
	return "the AWS default credential chain (AWS_PROFILE, ~/.aws, SSO, instance roles)"
}
