package wire

import (
	"errors"
	"testing"

	"github.com/shimdev/shim/a2a"
)

// The seed corpora are in testdata/fuzz/<Name>/, made from the recorded
// SDK captures (testdata/captures) and hand-written edge cases.

// FuzzDecodeFrame decodes arbitrary bytes as a stream frame: no panic; an
// event returned without error has one of the four kinds, with the member
// that kind needs; and every accessor shim calls on it works.
func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}}`))
	f.Add([]byte(`{"result":{"statusUpdate":{"status":{"state":1e999}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		ev, err := DecodeFrame(in)
		checkDecoded(t, ev, err)
	})
}

// checkDecoded checks a decoded frame: an error is a DecodeError or an
// RPCError; an event has one of the four kinds, with the member that kind
// needs; and every accessor shim calls on it works.
func checkDecoded(t *testing.T, ev a2a.Event, err error) {
	t.Helper()
	if err != nil {
		var de *a2a.DecodeError
		var re *a2a.RPCError
		if !errors.As(err, &de) && !errors.As(err, &re) {
			t.Fatalf("error of type %T: %v", err, err)
		}
		_ = err.Error()
		return
	}
	switch ev.Kind {
	case a2a.EventTask:
		if ev.Task == nil {
			t.Fatal("task event without a task")
		}
		for i := range ev.Task.History {
			exerciseMessage(&ev.Task.History[i])
		}
		for i := range ev.Task.Artifacts {
			exerciseArtifact(&ev.Task.Artifacts[i])
		}
		_ = a2a.TaskEvents(ev.Task)
	case a2a.EventStatus:
	case a2a.EventArtifact:
		if ev.Artifact == nil {
			t.Fatal("artifact event without an artifact")
		}
		exerciseArtifact(ev.Artifact)
	case a2a.EventMessage:
		if ev.Message == nil {
			t.Fatal("message event without a message")
		}
		exerciseMessage(ev.Message)
	default:
		t.Fatalf("event of kind %d", ev.Kind)
	}
	exerciseMessage(ev.Status.Message)
	_ = ev.Status.State.Terminal()
}

func exerciseMessage(m *a2a.Message) {
	_ = m.Text()
	_ = m.Thoughts()
	_ = m.ToolCalls()
	_ = m.Hitl()
	_ = m.SteersConsumed()
	_ = m.HitlResume()
	_ = m.FromUser()
	if m != nil {
		for i := range m.Parts {
			_ = m.Parts[i].Known()
		}
	}
}

func exerciseArtifact(a *a2a.Artifact) {
	_, _ = a.Usage()
	_, _ = a.Context()
	for i := range a.Parts {
		_ = a.Parts[i].Known()
		_ = a.Parts[i].Thought()
	}
}
