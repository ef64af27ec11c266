package toolview

import (
	"regexp"
	"strconv"
	"sync"
)

// exitRe finds the exit code a command's result states: "exit N",
// "exit code N", "exit status N" (any case, an optional ':' or '=').
// It is compiled on first use, not at every start.
var exitRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bexit(?:ed)?(?:[ \t]+(?:code|status))?[ \t]*[:=]?[ \t]*(-?\d{1,9})\b`)
})

// ExitCode returns the exit code a command's result text states (the
// first one it names); false when it names none.
func ExitCode(result string) (int, bool) {
	m := exitRe().FindStringSubmatch(result)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}
