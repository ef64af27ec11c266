package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// String is shim's version line: the version, the commit and the Go
// version (and the build date) stamped by the release build (-ldflags -X
// in package main), else what Go recorded of the build.
func String(version, stamped, date string) string {
	v, c := version, stamped
	if v == "" {
		v = "dev"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	if c == "" {
		c = commit(v)
	}
	s := "shim " + v + " (commit " + c + ", " + runtime.Version()
	if date != "" {
		s += ", built " + date
	}
	return s + ")"
}

// commit finds the commit of a binary not stamped by the release
// build: the VCS revision Go records for a build in a checkout, or the
// hash a pseudo-version (go install …@<commit>) ends with.
func commit(version string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				return kv.Value[:12]
			}
		}
	}
	if i := strings.LastIndexByte(version, '-'); i >= 0 && len(version)-i-1 == 12 {
		if h := version[i+1:]; strings.Trim(h, "0123456789abcdef") == "" {
			return h
		}
	}
	return "unknown"
}
