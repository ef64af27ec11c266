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
// shim keeps it until shortly before it expires.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/shimdev/shim/internal/privfile"
	"github.com/shimdev/shim/internal/redact"
	"github.com/shimdev/shim/internal/termsafe"
	"github.com/shimdev/shim/internal/textcut"
)

// HelperName is the credential helper's executable name.
const HelperName = "shim-platform"

// Locate finds the helper's executable (and checks it) before each run.
type Locate func() (string, error)

// helperMaxOut bounds what shim reads of the helper's stdout, and
// helperMaxErr what it keeps of its stderr.
const (
	helperMaxOut = 64 << 10
	helperMaxErr = 4 << 10
)

// helperTimeout bounds one run (the Azure CLI credential runs `az`).
const helperTimeout = 2 * time.Minute

// Beside finds the helper beside shim's own executable: a shim built
// without the helper inside it (`go build ./cmd/shim`).
func Beside() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", &a2a.SignInError{Msg: "the platform credential helper " + HelperName + " was not found (" + err.Error() + "): build shim with `make build`"}
	}
	dir := filepath.Dir(self)
	p := filepath.Join(dir, HelperName+exeSuffix())
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", &a2a.SignInError{Msg: fmt.Sprintf("this shim was built without its platform credential helper, and there is no %s beside it in %s: "+
			"build shim with `make build` (which puts the helper inside it), or `go build -o %s ./cmd/shim-platform` in shim's source",
			HelperName, dir, filepath.Join(dir, HelperName+exeSuffix()))}
	}
	return p, nil
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// Extract returns the helper shim carries inside it (gz, gzip-compressed,
// whose uncompressed SHA-256 is sum in hex), written to dir under a name
// keyed by its hash; the file there is hashed first, and written again
// (0700, atomically) when it is missing or is not what shim carries.
// Writing it removes the helpers other versions of shim wrote there.
func Extract(dir string, gz []byte, sum string) (string, error) {
	sum = strings.TrimSpace(sum)
	if len(sum) != sha256.Size*2 {
		return "", errors.New("the platform credential helper inside shim has no hash: rebuild shim with `make build`")
	}
	path := filepath.Join(dir, HelperName+"-"+sum[:32]+exeSuffix())
	if fileSum(path) == sum {
		return path, nil
	}
	bin, err := gunzip(gz)
	if err != nil {
		return "", fmt.Errorf("the platform credential helper inside shim is damaged (%v): rebuild shim with `make build`", err)
	}
	if h := sha256.Sum256(bin); hex.EncodeToString(h[:]) != sum {
		return "", errors.New("the platform credential helper inside shim does not match its hash: rebuild shim with `make build`")
	}
	if err := privfile.EnsureDir(dir); err != nil {
		return "", fmt.Errorf("the platform credential helper could not be written to %s: %w", dir, err)
	}
	tmp, err := privfile.WriteTemp(path, bin)
	if err == nil {
		if err = os.Chmod(tmp, 0o700); err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			_ = os.Remove(tmp)
		}
	}
	if err != nil {
		return "", fmt.Errorf("the platform credential helper could not be written to %s: %w", dir, err)
	}
	if fileSum(path) != sum {
		return "", fmt.Errorf("the platform credential helper written to %s does not match its hash", path)
	}
	removeOthers(dir, path)
	return path, nil
}

// removeOthers deletes the helpers of other versions of shim in dir (a
// shim of another version still running writes its own again when it
// needs it), so the cache holds one.
func removeOthers(dir, keep string) {
	others, _ := filepath.Glob(filepath.Join(dir, HelperName+"-*"))
	for _, o := range others {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(o), HelperName+"-"), exeSuffix())
		if o != keep && len(name) == 32 && strings.Trim(name, "0123456789abcdef") == "" {
			_ = os.Remove(o)
		}
	}
}

// gunzip decompresses gz, at most 512 MiB.
func gunzip(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	const max = 512 << 20
	b, err := io.ReadAll(io.LimitReader(zr, max+1))
	if err == nil && len(b) > max {
		err = errors.New("too large")
	}
	return b, err
}

// fileSum is the hex SHA-256 of the regular file at path ("" when it
// cannot be read).
func fileSum(path string) string {
	f, err := privfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
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
		locate = Beside
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
			msg += " (is its directory on a file system mounted noexec? shim writes it under XDG_CACHE_HOME: point that at another)"
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
		return nil, &a2a.SignInError{Msg: fmt.Sprintf("the platform credential helper %s wrote more than %d KiB: it is not shim's helper, rebuild shim with `make build`",
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
		return nil, &a2a.SignInError{Msg: msg + "; rebuild shim with `make build`"}
	}
	switch {
	case ans.Error != "":
		return nil, &a2a.SignInError{Msg: helperText(ans.Error)}
	case ans.V != helperwire.Version:
		return nil, &a2a.SignInError{Msg: fmt.Sprintf("the platform credential helper %s answers in version %d, this shim reads version %d: rebuild shim with `make build`",
			helperText(path), ans.V, helperwire.Version)}
	case werr != nil:
		return nil, &a2a.SignInError{Msg: "the platform credential helper failed: " + helperText(werr.Error())}
	}
	return &ans, nil
}
