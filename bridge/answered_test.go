package bridge

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/shimdev/shim/a2a/a2aclient"
	"github.com/shimdev/shim/examples/agent"
)

// TestAnsweredOnceAfterInitialize: the process's reading ahead
// (Options.Answered) starts once the first initialize is answered, not
// before, and once however many initialize calls come (SPEC §19: it costs
// the editor's first answer nothing).
func TestAnsweredOnceAfterInitialize(t *testing.T) {
	url := startAgent(t, agent.Options{})
	var calls, early atomic.Int32
	var inits atomic.Int32
	ran := make(chan struct{}, 4)
	s := startShim(t, url, func(o *Options, _ *a2aclient.Config) {
		o.Answered = func() {
			if inits.Load() == 0 && calls.Load() == 0 {
				// No initialize was sent yet: this would be at start.
				early.Add(1)
			}
			calls.Add(1)
			ran <- struct{}{}
		}
	}, nil)
	inits.Add(1)
	s.init(t)
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Answered did not run after initialize was answered")
	}
	s.init(t)
	s.newSession(t, t.TempDir()) // a later call, answered after any second run would start
	if n := calls.Load(); n != 1 || early.Load() != 0 {
		t.Errorf("Answered ran %d times (%d before initialize), want once after it", n, early.Load())
	}
}
