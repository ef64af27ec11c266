package binding

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shimdev/shim/internal/streamtest"

	"github.com/shimdev/shim/a2a"
)

// inPlaceFrames are frames of each kind a stream carries: a status with
// a message, plain chunks of two artifacts, a chunk with metadata, a
// frame that is not JSON (skipped), a task, and the final status.
var inPlaceFrames = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING","message":{"role":"ROLE_AGENT","messageId":"m-1","parts":[{"text":"thinking"}]}}}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"one "}]},"contextId":"ctx-1","taskId":"task-1"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"answer","name":"answer","parts":[{"text":"two "}]},"contextId":"ctx-1","taskId":"task-1"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"artifact":{"artifactId":"notes","name":"notes","parts":[{"text":"a note","metadata":{"k":"v"}}],"metadata":{"by":"agent"}},"contextId":"ctx-1","taskId":"task-1"}}}`,
	`not json`,
	`{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"append":true,"artifact":{"artifactId":"other","parts":[{"text":"three "}]},"contextId":"ctx-1","taskId":"task-1"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING"},"artifacts":[{"artifactId":"answer","parts":[{"text":"one two "}]}]}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","messageId":"m-2","parts":[{"text":"done"}]}},"final":true}}}`,
}

// readKept reads a stream of frames arriving n bytes per read (so that
// the SSE reader's buffer is written over as it goes), as a turn does
// (sharing when share is set), and keeps every event; an artifact and its
// first part's text are copied as they are read (they are valid until the
// next frame), everything else kept as given.
func readKept(t *testing.T, frames []string, n int, share bool) (events []a2a.Event, texts []string, err error) {
	t.Helper()
	var b bytes.Buffer
	for _, f := range frames {
		b.WriteString("data: " + f + "\n\n")
	}
	s := New(Options{}).newStream(context.Background(), "SendStreamingMessage", &jsonFrames{})
	s.attach(io.NopCloser(&streamtest.SocketReader{Data: b.Bytes(), Max: n}))
	if share {
		s.Share()
	}
	for {
		ev, err := s.Next()
		if err != nil {
			return events, texts, err
		}
		var text string
		if ev.Artifact != nil {
			text = strings.Clone(ev.Artifact.Parts[0].Text)
			a := *ev.Artifact // the decoder's own, when shared: written over by the next frame
			a.Parts = slices.Clone(a.Parts)
			a.Parts[0].Text = text
			ev.Artifact = &a
		}
		events, texts = append(events, ev), append(texts, text)
	}
}

// TestStreamInPlace: a stream that shares reads its frames in the SSE
// reader's buffer; whatever a reader keeps of each event (a status's
// message, a task, metadata, the ids of a plain chunk) is intact once the
// whole stream was read, and the events are those of a stream that does
// not share, whatever the size of the reads.
func TestStreamInPlace(t *testing.T) {
	want, wantTexts, err := readKept(t, inPlaceFrames, 64<<10, false)
	if !errors.Is(err, io.EOF) || len(want) != len(inPlaceFrames)-1 {
		t.Fatalf("not shared: %d events, %v", len(want), err)
	}
	for _, n := range []int{64 << 10, 1000, 333, 64, 7} {
		got, texts, err := readKept(t, inPlaceFrames, n, true)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("reads of %d: %v", n, err)
		}
		if !reflect.DeepEqual(got, want) || !slices.Equal(texts, wantTexts) {
			t.Errorf("reads of %d bytes: the kept events differ\n got %+v %q\nwant %+v %q", n, got, texts, want, wantTexts)
		}
	}
}

// TestStreamInPlaceNotJSON: a stream that shares and sends nothing
// readable says so with its first frame intact.
func TestStreamInPlaceNotJSON(t *testing.T) {
	frames := []string{"first, not json", "second, not json either", "third"}
	_, _, err := readKept(t, frames, 16, true)
	var nj *a2a.NotJSONError
	if !errors.As(err, &nj) || nj.Events != 3 || !strings.Contains(nj.First.Snippet, "first, not json") {
		t.Fatalf("got %v", err)
	}
}

// TestPlainChunkFields: plainChunk looks at every field of an event, an
// artifact and a part; a field added to one of them must be weighed
// there (does a plain chunk of text carry it? may a reader keep it?), in
// repeat.same when a plain chunk may carry it, and listed here.
func TestPlainChunkFields(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[a2a.Event]():    {"Kind", "TaskID", "ContextID", "Task", "Status", "Final", "Artifact", "Append", "LastChunk", "Message", "Metadata"},
		reflect.TypeFor[a2a.Artifact](): {"ID", "Name", "Parts", "Metadata", "Cost", "Window"},
		reflect.TypeFor[a2a.Part]():     {"Kind", "Text", "URL", "Raw", "MediaType", "Filename", "Data", "MimeType", "ToolEvent", "ToolEventType", "Thinking", "Metadata"},
	}
	for typ, names := range known {
		var fields []string
		for i := range typ.NumField() {
			fields = append(fields, typ.Field(i).Name)
		}
		if !slices.Equal(fields, names) {
			t.Errorf("%s has fields %v; plainChunk knows %v", typ, fields, names)
		}
	}
}
