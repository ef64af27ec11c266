package credentials

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shimdev/shim/internal/redact"
)

// Sources are the places a token may be given before the stored ones: the
// values of the --token and --token-file flags as given on the command line,
// and of the SHIM_TOKEN and SHIM_TOKEN_FILE environment variables. "" means
// not given. Callers must keep the flag and environment values apart (a flag
// given on the command line beats any environment variable). Home is the
// directory "~" stands for in token file paths; "" means os.UserHomeDir.
type Sources struct {
	FlagToken, FlagTokenFile, EnvToken, EnvTokenFile string
	Home                                             string
}

// Lookup returns the token for url in the order of SPEC §9, first found
// wins: --token, --token-file, SHIM_TOKEN, SHIM_TOKEN_FILE, then the token
// stored for url (keyring, then file; see Token). url must be normalized, or
// "" when there is none (then no stored token is looked up). Token file
// contents are trimmed of surrounding white space; a leading "~" of the path
// is the home directory. A source that is given but yields no usable token
// (a missing or empty file, white space only) is an error, not a reason to
// fall through to the next. source is one of the Source constants, "" with
// token "" when nothing was found.
func (s *Store) Lookup(url string, src Sources) (token, source string, err error) {
	given := []struct {
		value, source string
		file          bool
	}{
		{src.FlagToken, SourceFlagToken, false},
		{src.FlagTokenFile, SourceFlagTokenFile, true},
		{src.EnvToken, SourceEnvToken, false},
		{src.EnvTokenFile, SourceEnvTokenFile, true},
	}
	for _, g := range given {
		if g.value == "" {
			continue
		}
		t := g.value
		if g.file {
			if t, err = readTokenFile(g.value, src.Home); err != nil {
				return "", "", &SourceError{Source: g.source, err: fmt.Errorf("credentials: %s: %w", g.source, err)}
			}
		}
		t = strings.TrimSpace(t)
		redact.Add(t)
		if err := CheckToken(t); err != nil {
			return "", "", &SourceError{Source: g.source, err: fmt.Errorf("%w (from %s)", err, g.source)}
		}
		return t, g.source, nil
	}
	if url == "" {
		return "", "", nil
	}
	return s.Token(url)
}

// maxTokenFile bounds what is read of a token file (a mistaken
// --token-file /dev/zero must not eat the memory).
const maxTokenFile = 64 << 10

func readTokenFile(path, home string) (string, error) {
	p, err := ExpandHome(path, home)
	if err != nil {
		return "", err
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err // *fs.PathError: the path and the reason, no content
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxTokenFile {
		return "", fmt.Errorf("%s is larger than %d bytes; is it a token file?", p, maxTokenFile)
	}
	t := strings.TrimSpace(string(data))
	if t == "" {
		return "", fmt.Errorf("%s is empty", p)
	}
	return t, nil
}

// ExpandHome replaces a leading "~" of path ("~" alone, "~/…", or "~\…" on
// Windows) with home, or with os.UserHomeDir() when home is "". Other paths,
// "~user/…" among them, are returned unchanged.
func ExpandHome(path, home string) (string, error) {
	if path != "~" && !strings.HasPrefix(path, "~/") &&
		!(filepath.Separator == '\\' && strings.HasPrefix(path, `~\`)) {
		return path, nil
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~ in %s: %w", path, err)
		}
		home = h
	}
	if home == "" {
		return "", errors.New("cannot expand ~: no home directory")
	}
	return filepath.Join(home, path[1:]), nil
}
