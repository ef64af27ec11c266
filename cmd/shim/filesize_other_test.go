//go:build !unix

package main

// limitedCommand: no file size limit outside Unix; the tests that need
// one skip there.
func limitedCommand(size int64, env, argv []string) (string, []string, []string) {
	panic("no file size limit on this system")
}
