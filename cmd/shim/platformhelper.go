package main

// The platform credential helper (cmd/shim-platform): the AWS and Azure
// credential libraries live in it, so a start of shim pays nothing for
// them. `make build` puts it inside shim; shim writes it to the user's
// cache directory the first time a platform needs a credential, and
// checks its hash before every run.

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/shimdev/shim/a2a/auth/platform"
)

// locateHelper is the helper shim carries (written to the cache
// directory), else the one beside shim's executable.
func locateHelper() (string, error) {
	if len(helperGz) == 0 {
		return platform.Beside()
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New("the platform credential helper needs a cache directory to be written to (" + err.Error() + "): set XDG_CACHE_HOME or HOME")
	}
	return platform.Extract(filepath.Join(dir, "shim"), helperGz, helperSum)
}
