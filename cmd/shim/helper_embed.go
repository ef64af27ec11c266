//go:build shim_platform_embed

package main

import _ "embed" // the platform credential helper, built by `make build`

// helperGz is shim-platform, gzip-compressed, and helperSum the hex
// SHA-256 of the executable: the Makefile writes both into embed/ before
// it builds shim with -tags shim_platform_embed.
var (
	//go:embed embed/shim-platform.gz
	helperGz []byte
	//go:embed embed/shim-platform.sha256
	helperSum string
)
