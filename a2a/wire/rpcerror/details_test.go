package rpcerror

import (
	"testing"

	"github.com/shimdev/shim/a2a"
)

// FuzzErrorDetails: whatever an error's data holds, reading its typed
// details never panics and adds a bounded text.
func FuzzErrorDetails(f *testing.F) {
	f.Add(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]`)
	f.Add(`[{"@type":"x.BadRequest","fieldViolations":[{"field":"a","description":"b"}]},{"@type":".RetryInfo","retryDelay":{"seconds":"1"}}]`)
	f.Add(`{"@type":"RetryInfo","retryDelay":"1s"}`)
	f.Fuzz(func(t *testing.T, data string) {
		e := &a2a.RPCError{Message: "m"}
		e.Reason, e.Notes = Details([]byte(data))
		if n := len(e.Text()); n > len("m")+(detailNotesMax+1)*(detailNoteMax+8)+8 {
			t.Fatalf("a text of %d bytes", n)
		}
	})
}
