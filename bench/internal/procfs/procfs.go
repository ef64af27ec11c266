// Package procfs reads the fields of Linux's /proc status files the bench
// measures memory with (VmHWM, VmRSS, RssAnon, …, MemTotal). No goroutine,
// no lock.
package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Status reads a field of /proc/<pid>/status, in KiB.
func Status(pid int, field string) (int64, error) {
	return Field("/proc/"+strconv.Itoa(pid)+"/status", field)
}

// Field reads the number a "Field: N kB" line of the file at path holds.
func Field(path, field string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s not in %s", field, path)
}
