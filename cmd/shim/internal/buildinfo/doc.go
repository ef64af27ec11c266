// Package buildinfo is shim's version line (buildinfo.go): the version,
// commit and date the release build stamps into package main, else what Go
// recorded of the build. No goroutine, no lock.
package buildinfo
