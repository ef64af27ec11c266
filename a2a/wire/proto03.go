package wire

// The ProtoJSON of the A2A 0.3.0 proto (a2a.proto of the 0.3.0
// specification): the bodies of 0.3's HTTP+JSON binding, as its SDKs'
// REST servers (a2a-python, @a2a-js/sdk) and Google's Vertex AI Agent
// Engine and Gemini Enterprise speak it. A message's parts are its
// "content"; a part is {"text"}, {"file": {"fileWithUri" | "fileWithBytes",
// "mimeType"}} or {"data": {"data": {…}}}; roles and states are enum names
// (ROLE_USER, TASK_STATE_CANCELLED); results are wrapped ({"task": …},
// {"message": …} or, in proto field names, {"msg": …}).
//
// Reading it is the lenient decoder's (which takes the proto field names
// and content, update and msg as well) but for one member: a part's data
// is a DataPart whose own data is the part's, where in 1.0 it is the
// value itself. So only this codec reads a kind-less part's data so.

import (
	"bytes"
	"encoding/json"

	"github.com/shimdev/shim/a2a"
)

// DecodeTaskProto03 decodes a GetTask or CancelTask answer (a Task) of the
// 0.3 HTTP+JSON binding.
func DecodeTaskProto03(raw []byte) (*a2a.Task, error) {
	var w result
	if err := unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	w.dataParts03()
	return w.task(raw)
}

// DecodeSendResultProto03 decodes a blocking send's answer (a
// SendMessageResponse) of the 0.3 HTTP+JSON binding as the events a
// stream would have carried.
func DecodeSendResultProto03(raw []byte) ([]a2a.Event, error) {
	var w result
	if err := unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	w.dataParts03()
	return w.sendResult(raw)
}

// RESTFrameProto03 decodes a frame of the 0.3 HTTP+JSON binding's stream
// (a StreamResponse, or an {"error": …} object) as RESTFrame does a 1.0
// one.
func (d *Decoder) RESTFrameProto03(data []byte) (a2a.Event, error) {
	f := d.restFrame()
	f.Error = nil
	if err := unmarshal(data, f); err != nil {
		f.result.clear()
		return a2a.Event{}, a2a.NewDecodeError(err, data)
	}
	f.result.dataParts03()
	return f.event(data)
}

// dataParts03 reads every kind-less data part of the result as the 0.3
// proto's DataPart.
func (w *result) dataParts03() {
	w.Task.dataParts03()
	w.Message.dataParts03()
	w.Msg.dataParts03()
	for _, u := range [...]*statusUpdate{&w.StatusUpdate, &w.StatusUpdate2} {
		u.Status.dataParts03()
	}
	for _, u := range [...]*artifactUpdate{&w.ArtifactUpdate, &w.ArtifactUpdate2} {
		u.Artifact.dataParts03()
	}
	o := &w.Object
	o.Status.dataParts03()
	o.Artifact.dataParts03()
	artifactsData03(o.Artifacts)
	historyData03(o.History)
	partsData03(o.Parts)
}

func (w *task) dataParts03() {
	if w == nil {
		return
	}
	w.Status.dataParts03()
	artifactsData03(w.Artifacts)
	historyData03(w.History)
}

func (s *Status) dataParts03() {
	if s != nil {
		s.Message.dataParts03()
		s.Update.dataParts03()
	}
}

func (m *Message) dataParts03() {
	if m != nil {
		partsData03(m.Parts)
		partsData03(m.Content)
	}
}

func (a *Artifact) dataParts03() {
	if a != nil {
		partsData03(a.Parts)
	}
}

func artifactsData03(as []*Artifact) {
	for _, a := range as {
		a.dataParts03()
	}
}

func historyData03(ms []*Message) {
	for _, m := range ms {
		m.dataParts03()
	}
}

// partsData03 reads a kind-less part's data object as a DataPart: its
// data member is the part's data ({} when it has none: an empty Struct).
// A kind-tagged part (0.3's JSON-RPC shape) keeps its data as it is.
func partsData03(ps []*wirePart) {
	for _, p := range ps {
		if p == nil || p.Kind != "" || p.Content != nil {
			continue
		}
		d := bytes.TrimSpace(p.Data)
		if len(d) == 0 || d[0] != '{' {
			continue
		}
		var dp struct {
			Data json.RawMessage `json:"data"`
		}
		if unmarshal(d, &dp) != nil {
			continue
		}
		p.Data = dp.Data
		if len(p.Data) == 0 || string(p.Data) == "null" {
			p.Data = json.RawMessage(`{}`)
		}
	}
}
