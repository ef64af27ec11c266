package platform

// The credential helper: aws-sdk-go-v2's config (the default chain, with
// its sts, sso, ssooidc and signin clients) and azidentity (with MSAL)
// cost about a millisecond of package initialisation at every start and
// several megabytes, whether a platform is used or not: Go runs every
// linked package's init. So they live in another executable,
// shim-platform (cmd/shim-platform), which shim runs when a request needs
// the credential, as AWS's credential_process and kubectl's exec
// credential plugins work: it prints the credential as one JSON object on
// its stdout pipe (never in an argument, the environment or a log), and
// shim keeps it until shortly before it expires. The helper is installed
// beside shim (every release archive and npm package carries both) and
// found there, else on the PATH; shim never writes a file it then runs
// (SPEC §15).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/auth/platform/helperwire"
	"github.com/shimdev/shim/internal/redact"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/internal/textcut"
)

// HelperName is the credential helper's executable name.
const HelperName = "shim-platform"

// Locate finds the helper's executable, before each run.
type Locate func() (string, error)

// helperMaxOut bounds what shim reads of the helper's stdout, and
// helperMaxErr what it keeps of its stderr.
const (
	helperMaxOut = 64 << 10
	helperMaxErr = 4 << 10
)

// helperTimeout bounds one run (the Azure CLI credential runs `az`).
const helperTimeout = 2 * time.Minute

// Find finds the helper shim runs: the shim-platform beside shim's own
// executable (its links resolved, so a link to shim on the PATH finds the
// helper beside the file it points to), else the first on the PATH. shim
// never writes a helper: it is installed with shim (every release archive
// and npm package carries it beside shim; `make build` builds it into
// bin/ beside shim) or not at all.
func Find() (string, error) {
	name := HelperName + exeSuffix()
	dir := ""
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err == nil {
		dir = filepath.Dir(self)
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	where := "beside shim"
	build := "`go build -o shim-platform ./cmd/shim-platform` beside it"
	if dir != "" {
		where = "beside shim in " + dir
		build = "`go build -o " + filepath.Join(dir, name) + " ./cmd/shim-platform`"
	}
	return "", &a2a.SignInError{Msg: fmt.Sprintf("the platform credential helper %s was not found %s or on the PATH: "+
		"it comes beside shim in every release archive and npm package (install shim again from one); "+
		"with Go, `go install %s@<shim's version>`; from shim's source, `make build` (bin/shim and bin/%s), or %s",
		HelperName, where, helperPackage, HelperName, build)}
}

// reinstall is what to do about a helper that is not this shim's.
const reinstall = "install shim again (its release archive and npm package carry the shim-platform of the same version beside it), or build both with `make build`"

// helperPackage is the helper's main package, for `go install`.
const helperPackage = "github.com/shimdev/shim/cmd/shim-platform"

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.over = true
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

// helperText is text from the helper fit for an error: secrets shim
// knows redacted, control characters escaped, cut short.
func helperText(s string) string {
	return textcut.Cut(termsafe.String(redact.Default.String(strings.TrimSpace(s))), 1000)
}

// runHelper runs the helper with args and reads its answer. Every error
// is an *a2a.SignInError saying what to do; none quotes the helper's
// stdout (it may hold a credential).
func runHelper(ctx context.Context, locate Locate, args ...string) (*helperwire.Answer, error) {
	if locate == nil {
		locate = Find
	}
	path, err := locate()
	if err != nil {
		var se *a2a.SignInError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, &a2a.SignInError{Msg: helperText(err.Error())}
	}
	ctx, cancel := context.WithTimeout(ctx, helperTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second
	stderr := &capped{max: helperMaxErr}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &a2a.SignInError{Msg: "the platform credential helper could not be run: " + helperText(err.Error())}
	}
	if err := cmd.Start(); err != nil {
		msg := "the platform credential helper " + helperText(path) + " could not be run: " + helperText(err.Error())
		if errors.Is(err, fs.ErrPermission) {
			msg += " (is it executable, on a file system not mounted noexec? install shim again, or `chmod +x` it)"
		}
		return nil, &a2a.SignInError{Msg: msg}
	}
	data, rerr := io.ReadAll(io.LimitReader(out, helperMaxOut+1))
	if len(data) > helperMaxOut {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case len(data) > helperMaxOut:
		return nil, &a2a.SignInError{Msg: fmt.Sprintf("the platform credential helper %s wrote more than %d KiB: it is not shim's helper, "+reinstall,
			helperText(path), helperMaxOut>>10)}
	case ctx.Err() != nil:
		return nil, &a2a.SignInError{Msg: "the platform credential helper gave no answer: " + helperText(context.Cause(ctx).Error())}
	case rerr != nil:
		return nil, &a2a.SignInError{Msg: "the platform credential helper's answer could not be read: " + helperText(rerr.Error())}
	}
	var ans helperwire.Answer
	if jerr := json.Unmarshal(data, &ans); jerr != nil || ans.V == 0 {
		msg := "the platform credential helper " + helperText(path)
		if werr != nil {
			msg += " failed (" + helperText(werr.Error()) + ")"
		} else {
			msg += " gave an answer shim cannot read"
		}
		if s := stderr.buf.String(); strings.TrimSpace(s) != "" {
			msg += ": " + helperText(s)
		}
		return nil, &a2a.SignInError{Msg: msg + "; " + reinstall}
	}
	switch {
	case ans.Error != "":
		return nil, &a2a.SignInError{Msg: helperText(ans.Error)}
	case ans.V != helperwire.Version:
		return nil, &a2a.SignInError{Msg: fmt.Sprintf("the platform credential helper %s answers in version %d, this shim reads version %d: "+reinstall,
			helperText(path), ans.V, helperwire.Version)}
	case werr != nil:
		return nil, &a2a.SignInError{Msg: "the platform credential helper failed: " + helperText(werr.Error())}
	}
	return &ans, nil
}
