//go:build !shim_platform_embed

package main

// Built without the platform credential helper inside (`go build
// ./cmd/shim`): shim runs the shim-platform beside its executable.
var (
	helperGz  []byte
	helperSum string
)
