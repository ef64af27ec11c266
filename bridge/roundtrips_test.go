package bridge

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
)

// Round trips (SPEC §19): the order and the count of the requests each
// phase sends, as the server read them.

// TestFirstPromptOfMintedSessionSendsFirst: the first prompt of a session
// this process minted asks no busy signal (nor the sessions list that
// tells a 404 apart): its message is the first and only request it sends,
// even when the operator API would call the chat busy. The next prompt
// asks the busy signal before its message (§3.4).
func TestFirstPromptOfMintedSessionSendsFirst(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary func(string) (int, any)
	}{
		{"busy signal says active", busyFor(-1, "TASK_STATE_WORKING")},
		{"busy route answers 404", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newOpAPI()
			api.summary = tc.summary
			f := withOperator(t, api)
			answering(f, "fine")
			s := startShim(t, f.url, func(o *Options, _ *a2aclient.Config) {
				o.NoPreamble = true
				o.BusyTimeout = 300 * time.Millisecond
				setBusyPoll(o, fastPoll)
			}, nil)
			s.init(t)
			id := s.newSession(t, "/w")
			n := len(f.requestsFrom(0))
			if got := stopReason(t, s.prompt(t, id, "first")); got != "end_turn" {
				t.Fatalf("stop %q", got)
			}
			if got, want := f.requestsFrom(n), []string{"POST /a2a SendStreamingMessage"}; !slices.Equal(got, want) {
				t.Errorf("the first prompt sent %q, want %q", got, want)
			}
			if tc.summary != nil {
				return
			}
			// The next prompt of the session asks the busy signal first.
			n = len(f.requestsFrom(0))
			stopReason(t, s.prompt(t, id, "second"))
			got := f.requestsFrom(n)
			if len(got) == 0 || got[0] != "GET /api/chat/sessions/"+id || got[len(got)-1] != "POST /a2a SendStreamingMessage" ||
				strings.Count(strings.Join(got, "\n"), "POST /a2a") != 1 {
				t.Errorf("the second prompt sent %q", got)
			}
		})
	}
}
