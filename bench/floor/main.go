// Command floor is the cold-start floor of a Go program on this machine:
// a static binary that reads one line and answers it, nothing else. The
// bench spawns it next to shim so that shim's figure can be read against
// what the Go runtime and the kernel cost before any of shim's code runs.
package main

import (
	"bufio"
	"os"
)

func main() {
	r := bufio.NewReader(os.Stdin)
	if _, err := r.ReadBytes('\n'); err != nil {
		return
	}
	os.Stdout.Write([]byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}` + "\n"))
}
