//go:build unix

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// fileSizeEnv, set in this test binary's environment, makes it a
// launcher: it limits the size of the files it and its children write
// (RLIMIT_FSIZE, which needs no privilege: a write past it fails with
// EFBIG, a real "disk full" for the writer) and runs its arguments.
const fileSizeEnv = "SHIM_TEST_FILE_SIZE_LIMIT"

func init() {
	limit := os.Getenv(fileSizeEnv)
	if limit == "" {
		return
	}
	n, err := strconv.ParseUint(limit, 10, 64)
	var rl syscall.Rlimit
	if err == nil {
		err = syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl)
	}
	if err == nil {
		rl.Cur = n
		err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &rl)
	}
	if err == nil {
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, fileSizeEnv+"=") {
				env = append(env, kv)
			}
		}
		err = syscall.Exec(os.Args[1], os.Args[1:], env)
	}
	fmt.Fprintln(os.Stderr, "launcher:", err)
	os.Exit(127)
}

// limitedCommand runs argv with env, its files limited to size bytes.
func limitedCommand(size int64, env, argv []string) (string, []string, []string) {
	return os.Args[0], argv, append(env, fileSizeEnv+"="+strconv.FormatInt(size, 10))
}
