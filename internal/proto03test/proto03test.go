// Package proto03test is test support for the A2A 0.3.0 ProtoJSON codec's
// tests (a2a/wire reads it, a2a/wire/request writes it) and the scripted
// platforms that speak it (internal/platformtest): the 0.3.0 proto, and a
// real ProtoJSON reader of it (google.golang.org/protobuf's protojson) to
// check the codec against. Only tests import it. The proto is built once,
// on first use (sync.OnceValues); no goroutine, no lock of its own.
package proto03test

import (
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/a2apb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// File is the A2A 0.3.0 proto as published (a2a.proto of the 0.3.0
// specification): a2a-go's a2apb follows a later 0.3 revision whose only
// incompatible change is Message field 5, "parts" there and "content" in
// 0.3.0 (the rest are added fields); renaming that field in a2apb's
// descriptor gives the 0.3.0 JSON names over the same wire format.
var File = sync.OnceValues(func() (protoreflect.FileDescriptor, error) {
	fdp := protodesc.ToFileDescriptorProto(a2apb.File_a2a_proto)
	for _, m := range fdp.GetMessageType() {
		for _, f := range m.GetField() {
			if m.GetName() == "Message" && f.GetNumber() == 5 {
				f.Name, f.JsonName = proto.String("content"), proto.String("content")
			}
		}
	}
	return protodesc.NewFile(fdp, protoregistry.GlobalFiles)
})

// Strict reads b as the ProtoJSON of the 0.3.0 proto's message name,
// refusing unknown fields (as Google's front ends and a2a-python do).
func Strict(t testing.TB, name protoreflect.Name, b []byte) (*dynamicpb.Message, error) {
	t.Helper()
	fd, err := File()
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(fd.Messages().ByName(name))
	return m, protojson.Unmarshal(b, m)
}
