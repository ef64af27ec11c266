package a2a

import "testing"

// BenchmarkDecodeFrame decodes the two frames a turn is made of most: an
// appended answer chunk and a working status carrying a tool call.
func BenchmarkDecodeFrame(b *testing.B) {
	for _, c := range []struct{ name, frame string }{
		{"artifactUpdate", benchArtifactFrame},
		{"statusUpdateToolCall", benchToolFrame},
	} {
		data := []byte(c.frame)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ev, err := DecodeFrame(data)
				if err != nil || ev.Kind == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeToolCalls adds what the turn driver then reads of the
// status frame: its tool calls.
func BenchmarkDecodeToolCalls(b *testing.B) {
	data := []byte(benchToolFrame)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ev, err := DecodeFrame(data)
		if err != nil {
			b.Fatal(err)
		}
		if len(ev.Status.Message.ToolCalls()) != 1 {
			b.Fatal("no tool call")
		}
	}
}
