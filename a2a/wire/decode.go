package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire/rpcerror"
	"github.com/shimdev/shim/internal/jsontext"
)

// The wire types below accept both dialects at once: camelCase and
// snake_case keys, enum names and numbers, the 1.0 wrapper objects
// ({"statusUpdate": …}) and the 0.3 flat, kind-tagged objects. Decoding is
// lenient: an unknown field is ignored and a value of the wrong JSON type
// for a flag, an enum or metadata is read as its zero value rather than
// failing the whole frame.
//
// Every frame and result is decoded by one decoder, segmentio/encoding's
// json (encoding/json, which checks a whole value in a pass of its own
// before decoding it, was 64% of shim's CPU on a fast stream;
// BENCHMARKS.md). It gives what encoding/json gives (it runs the standard
// library's own tests; FuzzDecodeFrameLikeEncodingJSON holds the two side
// by side on these types).

// zeroCopyMax is the largest body decoded in place: the strings and raw
// values of a body up to it share its bytes (the body is read into a
// buffer of its own), so that a streamed chunk costs no copy of its text
// or ids; a larger body's are copied, so that no id or text kept from it
// holds the whole body.
const zeroCopyMax = 64 << 10

// unmarshal decodes b into v: the one decoder of a body. Past zeroCopyMax
// the strings are copies, but the raw values (a part's text and data) are
// still read in place: the conversion to the model (shareOf) copies the
// small ones and shares those that are most of the body (a full replace's
// text is read with one copy, not two).
func unmarshal(b []byte, v any) error {
	flags := fastjson.DontCopyRawMessage
	if len(b) <= zeroCopyMax {
		flags = fastjson.ZeroCopy
	}
	return parse(b, v, flags)
}

// Unmarshal decodes b into v with the decoder of every body, the wire
// types' Model and AsMessage reading it after: a body up to 64 KiB is read
// in place (its strings and raw values share it), a larger one is copied.
func Unmarshal(b []byte, v any) error {
	var flags fastjson.ParseFlags
	if len(b) <= zeroCopyMax {
		flags = fastjson.ZeroCopy
	}
	return parse(b, v, flags)
}

// shareOf is how a body's wire values read by unmarshal relate to it: its
// length when their raw values share it and it is big (the model then
// copies a raw value small next to it, so that no part kept from it keeps
// the whole body), 0 when whatever shares it may keep it.
func shareOf(b []byte) int {
	if len(b) <= zeroCopyMax {
		return 0
	}
	return len(b)
}

// own is a raw value of a body of length big (shareOf) as the model keeps
// it: shared when it is most of the body (or the body is small), a copy
// otherwise.
func own(b []byte, big int) []byte {
	if big == 0 || 2*len(b) >= big {
		return b
	}
	return bytes.Clone(b)
}

func parse(b []byte, v any, flags fastjson.ParseFlags) error {
	rest, err := fastjson.Parse(b, v, flags)
	if err == nil && len(rest) > 0 {
		// As encoding/json: a value is the whole body.
		return fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	return err
}

// Enum holds an enum as its name or, for a number, "#<n>".
type Enum string

func (e *Enum) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		*e = ""
		return nil
	}
	if b[0] == '"' {
		// A string without escapes is its text (no decoder run per enum).
		s, ok := jsontext.String(b)
		if !ok {
			if err := fastjson.Unmarshal(b, &s); err != nil {
				return err
			}
		}
		*e = Enum(s)
		return nil
	}
	*e = Enum("#" + string(b))
	return nil
}

func (e Enum) number() (int, bool) {
	if !strings.HasPrefix(string(e), "#") {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(e[1:]), 64)
	if err != nil {
		return 0, false
	}
	return int(f), true
}

// stateByNumber maps the proto enum numbers of TaskState.
var stateByNumber = [...]a2a.State{a2a.StateUnknown, a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted,
	a2a.StateFailed, a2a.StateCanceled, a2a.StateInputRequired, a2a.StateRejected, a2a.StateAuthRequired}

// State reads the enum as a task state.
func (e Enum) State() a2a.State {
	if n, ok := e.number(); ok {
		if n >= 0 && n < len(stateByNumber) {
			return stateByNumber[n]
		}
		return a2a.StateUnknown
	}
	return a2a.ParseState(string(e))
}

func (e Enum) role() string {
	if n, ok := e.number(); ok {
		switch n {
		case 1:
			return "user"
		case 2:
			return "agent"
		}
		return ""
	}
	switch e { // the names as servers write them: no lowered copy
	case "ROLE_USER", "user":
		return "user"
	case "ROLE_AGENT", "agent":
		return "agent"
	}
	s := strings.ToLower(string(e))
	s = strings.TrimPrefix(s, "role_")
	return s
}

// Flag is a lenient JSON flag: true, "true" (any case) and 1 are on;
// anything else, absent or null, is off.
type Flag bool

// UnmarshalJSON reads the flag; it never fails.
func (f *Flag) UnmarshalJSON(b []byte) error {
	*f = Flag(on(b))
	return nil
}

// on reads a flag kept as JSON as Flag does: true, "true" (any case)
// and 1 are on; anything else, absent or null, is off.
func on(b json.RawMessage) bool {
	switch string(b) { // the flags as they come, without a trim
	case "true":
		return true
	case "", "false", "null":
		return false
	}
	s := bytes.Trim(bytes.TrimSpace(b), `"`)
	return bytes.EqualFold(s, []byte("true")) || string(s) == "1"
}

// wireMeta is a metadata object kept as its raw JSON: no unmarshaler
// runs for it and nothing in it is decoded with the frame; what shim reads
// of it (a few keys) is read after, each value kept raw (members). Only
// an object counts (meta): anything else reads as none.
type wireMeta = json.RawMessage

// meta is m when it is an object, else nil.
func meta(m wireMeta) json.RawMessage {
	for i, c := range m {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return m[i:]
		}
		return nil
	}
	return nil
}

type wirePart struct {
	Kind string `json:"kind"`
	// Text is kept as JSON and read by text: no unmarshaler runs per part,
	// and a text without escapes is not copied (partText).
	Text       json.RawMessage `json:"text"`
	Raw        string          `json:"raw"`
	URL        string          `json:"url"`
	Data       json.RawMessage `json:"data"`
	File       *wireFile       `json:"file"`
	MediaType  string          `json:"mediaType"`
	MediaType2 string          `json:"media_type"`
	Filename   string          `json:"filename"`
	Metadata   wireMeta        `json:"metadata"`
	Content    *struct {
		Case  string          `json:"$case"`
		Value json.RawMessage `json:"value"`
	} `json:"content"`
}

type wireFile struct {
	Bytes     string `json:"bytes"`
	URI       string `json:"uri"`
	MimeType  string `json:"mimeType"`
	MimeType2 string `json:"mime_type"`
	Name      string `json:"name"`
	// The 0.3 proto's FilePart (ProtoJSON).
	WithURI    string `json:"fileWithUri"`
	WithURI2   string `json:"file_with_uri"`
	WithBytes  string `json:"fileWithBytes"`
	WithBytes2 string `json:"file_with_bytes"`
}

// Status is a task's status of either dialect.
type Status struct {
	State     Enum     `json:"state"`
	Message   *Message `json:"message"`
	Timestamp string   `json:"timestamp"`
	// Update is the 0.3 proto's field name of message.
	Update *Message `json:"update"`
}

// Artifact is an artifact of either dialect.
type Artifact struct {
	ArtifactID  string      `json:"artifactId"`
	ArtifactID2 string      `json:"artifact_id"`
	Name        string      `json:"name"`
	Parts       []*wirePart `json:"parts"`
	Metadata    wireMeta    `json:"metadata"`
}

// set reports whether the artifact was given: one of its members was read.
func (a *Artifact) set() bool {
	return a.ArtifactID != "" || a.ArtifactID2 != "" || a.Name != "" || len(a.Parts) > 0 || meta(a.Metadata) != nil
}

// resetParts empties ps, keeping its array and the parts it points to,
// which the next frame's parts are decoded into: those decoded into are
// zeroed, so that nothing of theirs shows through (after a failed decode,
// whole, every part is dropped instead). The parts are pointers, not
// values: segmentio/encoding gives a new slice room for ten elements,
// and a task's history of messages of one part each held ten parts'
// room per message (a 10 MiB thread of 10,000 turns decoded into
// ~100 MB).
func resetParts(ps []*wirePart, whole bool) []*wirePart {
	if whole {
		clear(ps[:cap(ps)])
		return ps[:0]
	}
	for _, p := range ps {
		if p != nil {
			*p = wirePart{}
		}
	}
	return ps[:0]
}

// ids are the ids an object carries, in both spellings.
type ids struct {
	ID         string `json:"id"`
	ContextID  string `json:"contextId"`
	ContextID2 string `json:"context_id"`
	TaskID     string `json:"taskId"`
	TaskID2    string `json:"task_id"`
}

// set reports whether one of the ids was read (field by field: the
// struct's == is a call per frame).
func (w *ids) set() bool {
	return w.ID != "" || w.ContextID != "" || w.ContextID2 != "" || w.TaskID != "" || w.TaskID2 != ""
}

func (w *ids) contextID() string { return first(w.ContextID, w.ContextID2) }
func (w *ids) taskID() string    { return first(w.TaskID, w.TaskID2) }

// Message is a message of either dialect.
type Message struct {
	ids
	MessageID  string      `json:"messageId"`
	MessageID2 string      `json:"message_id"`
	Role       Enum        `json:"role"`
	Parts      []*wirePart `json:"parts"`
	Metadata   wireMeta    `json:"metadata"`
	// Content is the 0.3.0 proto's name of parts.
	Content []*wirePart `json:"content"`
}

// task is a task snapshot.
type task struct {
	ids
	Status    *Status     `json:"status"`
	Artifacts []*Artifact `json:"artifacts"`
	History   []*Message  `json:"history"`
}

// statusUpdate is a 1.0 status update.
type statusUpdate struct {
	ids
	Status   Status          `json:"status"`
	Final    json.RawMessage `json:"final"` // a flag (on)
	Metadata wireMeta        `json:"metadata"`
}

// set reports whether the update was given: one of its members was read.
func (u *statusUpdate) set() bool {
	return u.ids.set() || u.Status.State != "" || u.Status.Message != nil || u.Status.Update != nil || u.Status.Timestamp != "" || u.Final != nil || meta(u.Metadata) != nil
}

// artifactUpdate is a 1.0 artifact update.
type artifactUpdate struct {
	ids
	Artifact Artifact `json:"artifact"`
	// The flags are kept as JSON and read by on: no unmarshaler runs for
	// them per frame.
	Append     json.RawMessage `json:"append"`
	LastChunk  json.RawMessage `json:"lastChunk"`
	LastChunk2 json.RawMessage `json:"last_chunk"`
	Metadata   wireMeta        `json:"metadata"`
}

// set reports whether the update was given: one of its members was read.
func (u *artifactUpdate) set() bool {
	return u.ids.set() || u.Artifact.set() || u.Append != nil || u.LastChunk != nil || u.LastChunk2 != nil || meta(u.Metadata) != nil
}

// reset empties u for the next frame, keeping its parts' array (whole:
// after a failed decode).
func (u *artifactUpdate) reset(whole bool) {
	parts := resetParts(u.Artifact.Parts, whole)
	*u = artifactUpdate{}
	u.Artifact.Parts = parts
}

// Object is a 0.3 result, flat and tagged by its kind (or told by its
// shape): a task, a status or artifact update, or a message.
type Object struct {
	Kind string `json:"kind"`
	ids
	MessageID  string          `json:"messageId"`
	MessageID2 string          `json:"message_id"`
	Status     *Status         `json:"status"`
	Artifacts  []*Artifact     `json:"artifacts"`
	History    []*Message      `json:"history"`
	Artifact   Artifact        `json:"artifact"`
	Append     json.RawMessage `json:"append"`     // a flag (on)
	LastChunk  json.RawMessage `json:"lastChunk"`  // a flag
	LastChunk2 json.RawMessage `json:"last_chunk"` // a flag
	Final      json.RawMessage `json:"final"`      // a flag
	Role       Enum            `json:"role"`
	Parts      []*wirePart     `json:"parts"`
	Metadata   wireMeta        `json:"metadata"`
}

// set reports whether the object was given: one of its members was read.
func (w *Object) set() bool {
	return w.Kind != "" || w.ids.set() || w.MessageID != "" || w.MessageID2 != "" || w.Status != nil ||
		len(w.Artifacts) > 0 || len(w.History) > 0 || w.Artifact.set() || w.Append != nil || w.LastChunk != nil ||
		w.LastChunk2 != nil || w.Final != nil || w.Role != "" || len(w.Parts) > 0 || meta(w.Metadata) != nil
}

// reset empties w for the next frame, keeping its parts' arrays (whole:
// after a failed decode).
func (w *Object) reset(whole bool) {
	parts, aparts := resetParts(w.Parts, whole), resetParts(w.Artifact.Parts, whole)
	*w = Object{Parts: parts}
	w.Artifact.Parts = aparts
}

// result is what a result can be: a 1.0 StreamResponse wrapper
// ({"task": …}), or a 0.3 object. The updates and the object are values,
// so that a Decoder reuses them frame after frame; each counts as given
// when one of its members was read (set).
type result struct {
	Task            *task          `json:"task"`
	Message         *Message       `json:"message"`
	Msg             *Message       `json:"msg"` // the 0.3 proto's field name of message
	StatusUpdate    statusUpdate   `json:"statusUpdate"`
	StatusUpdate2   statusUpdate   `json:"status_update"`
	ArtifactUpdate  artifactUpdate `json:"artifactUpdate"`
	ArtifactUpdate2 artifactUpdate `json:"artifact_update"`
	// Object is a 0.3 result, given when a member of its own was read.
	Object
	// art, when set (a Decoder's), is where an artifact event of one part
	// is read: the streamed chunk's event allocates nothing.
	art *artifactOfOne
}

// reset empties w for the next frame, keeping its parts' arrays. Only
// the members the last frame gave are cleared: a member it did not give
// is empty already (a frame that failed to decode is followed by clear).
func (w *result) reset() {
	w.Task, w.Message, w.Msg = nil, nil, nil
	if w.StatusUpdate.set() {
		w.StatusUpdate = statusUpdate{}
	}
	if w.StatusUpdate2.set() {
		w.StatusUpdate2 = statusUpdate{}
	}
	if w.ArtifactUpdate.set() {
		w.ArtifactUpdate.reset(false)
	}
	if w.ArtifactUpdate2.set() {
		w.ArtifactUpdate2.reset(false)
	}
	if w.Object.set() {
		w.Object.reset(false)
	}
	// A metadata that is no object leaves its member unset; dropped all
	// the same, so that no raw value holds on to the frame.
	w.StatusUpdate.Metadata, w.StatusUpdate2.Metadata, w.Object.Metadata = nil, nil, nil
	w.ArtifactUpdate.Metadata, w.ArtifactUpdate2.Metadata = nil, nil
	w.ArtifactUpdate.Artifact.Metadata, w.ArtifactUpdate2.Artifact.Metadata, w.Object.Artifact.Metadata = nil, nil, nil
}

// clear empties w whatever the last frame left in it (a decode that
// failed half-way leaves members that need not read as given).
func (w *result) clear() {
	w.Task, w.Message, w.Msg = nil, nil, nil
	w.StatusUpdate, w.StatusUpdate2 = statusUpdate{}, statusUpdate{}
	w.ArtifactUpdate.reset(true)
	w.ArtifactUpdate2.reset(true)
	w.Object.reset(true)
}

// orEmpty is *p, or a zero value for a null element of a list.
func orEmpty[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (p *wirePart) part(big int) a2a.Part {
	var out a2a.Part
	p.partTo(&out, big)
	return out
}

// partTo reads the part into *out, which is zero (a chunk's part is
// written where its artifact holds it, not copied there).
func (p *wirePart) partTo(out *a2a.Part, big int) {
	if p == nil { // a null part: what a zero one reads as
		p = &wirePart{}
	}
	if p.Kind == "" && p.Content == nil && meta(p.Metadata) == nil && hasText(p.Text) && p.MediaType == "" && p.MediaType2 == "" && p.Filename == "" {
		// The usual part: text and nothing else.
		out.Kind, out.Text = a2a.PartText, partText(p.Text, big)
		return
	}
	*out = p.anyPart(big)
}

// anyPart reads a part of any kind.
func (p *wirePart) anyPart(big int) a2a.Part {
	out := a2a.Part{MediaType: first(p.MediaType, p.MediaType2), Filename: p.Filename}
	if m := meta(p.Metadata); m != nil {
		out.Metadata = ownMeta(m, big)
		readPartMeta(&out, m)
	}
	if c := p.Content; c != nil && c.Case != "" {
		return contentPart(out, c.Case, c.Value, big)
	}
	switch {
	case p.Kind == "data" || (p.Kind == "" && len(p.Data) > 0 && !hasText(p.Text)):
		out.Kind = a2a.PartData
		out.Data = own(p.Data, big)
	case p.Kind == "file" || (p.Kind == "" && !hasText(p.Text) && (p.Raw != "" || p.URL != "" || p.File != nil)):
		out = p.file(out)
	default:
		out.Kind = a2a.PartText
		out.Text = partText(p.Text, big)
	}
	return out
}

// contentPart reads the part of the {"content": {"$case": …, "value": …}}
// form into out.
func contentPart(out a2a.Part, kind string, value json.RawMessage, big int) a2a.Part {
	switch kind {
	case "text":
		out.Kind = a2a.PartText
		_ = fastjson.Unmarshal(value, &out.Text)
	case "data":
		out.Kind = a2a.PartData
		out.Data = own(value, big)
	case "url":
		out.Kind = a2a.PartFile
		_ = fastjson.Unmarshal(value, &out.URL)
	case "raw":
		var s string
		_ = fastjson.Unmarshal(value, &s)
		out.Kind = a2a.PartFile
		out.Raw = decodeBase64(s)
	}
	return out
}

// file reads a file part into out: 0.3's {"file": {uri | bytes}} or 1.0's
// url | raw.
func (p *wirePart) file(out a2a.Part) a2a.Part {
	out.Kind = a2a.PartFile
	if f := p.File; f != nil {
		out.URL = first(f.URI, first(f.WithURI, f.WithURI2))
		out.Raw = decodeBase64(first(f.Bytes, first(f.WithBytes, f.WithBytes2)))
		out.MediaType = first(out.MediaType, first(f.MimeType, f.MimeType2))
		out.Filename = first(out.Filename, f.Name)
		return out
	}
	out.URL = p.URL
	out.Raw = decodeBase64(p.Raw)
	return out
}

func decodeBase64(s string) []byte {
	if s == "" {
		return nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	return nil
}

func parts(ws []*wirePart, big int) []a2a.Part {
	if len(ws) == 0 {
		return nil
	}
	out := make([]a2a.Part, len(ws))
	for i := range ws {
		out[i] = ws[i].part(big)
	}
	return out
}

// AsMessage reads the message, its extensions' payloads included; nil for
// nil.
func (w *Message) AsMessage() *a2a.Message { return w.message(0) }

// message is AsMessage of a body of length big (shareOf).
func (w *Message) message(big int) *a2a.Message {
	if w == nil {
		return nil
	}
	m := new(a2a.Message)
	w.messageTo(m, big)
	return m
}

// MessageTo reads the message as AsMessage does into *m, which is zero
// (an element of a list sized for the messages it will hold: no message
// is allocated to be copied there).
func (w *Message) MessageTo(m *a2a.Message) { orEmpty(w).messageTo(m, 0) }

// messageTo is MessageTo of a body of length big (shareOf); w is not nil.
func (w *Message) messageTo(m *a2a.Message, big int) {
	ps := w.Parts
	if len(ps) == 0 {
		ps = w.Content
	}
	m.ID, m.Role, m.TaskID, m.ContextID = first(w.MessageID, w.MessageID2), w.Role.role(), w.taskID(), w.contextID()
	m.Parts = parts(ps, big)
	readMessageExt(m, meta(w.Metadata))
	m.Metadata = ownMeta(w.Metadata, big)
}

// Model reads the status; nil is an unknown state.
func (s *Status) Model() a2a.Status { return s.model(0) }

// model is Model of a body of length big (shareOf).
func (s *Status) model(big int) a2a.Status {
	if s == nil {
		return a2a.Status{State: a2a.StateUnknown}
	}
	msg := s.Message
	if msg == nil {
		msg = s.Update
	}
	st := a2a.Status{State: s.State.State(), Message: msg.message(big)}
	if s.Timestamp != "" {
		// RFC 3339 (1.0: a google.protobuf.Timestamp in JSON; 0.3: ISO
		// 8601); one that does not parse is no timestamp.
		st.Timestamp, _ = time.Parse(time.RFC3339Nano, s.Timestamp)
	}
	return st
}

// Model reads the artifact, its extensions' payloads included; nil for
// nil.
func (a *Artifact) Model() *a2a.Artifact { return a.model(0) }

// model is Model of a body of length big (shareOf).
func (a *Artifact) model(big int) *a2a.Artifact { return a.modelInto(big, nil) }

// ModelTo reads the artifact as Model does into *out, which is zero (an
// element of a list sized for the artifacts it will hold).
func (a *Artifact) ModelTo(out *a2a.Artifact) { orEmpty(a).modelTo(out, 0) }

// modelTo is ModelTo of a body of length big (shareOf); a is not nil.
func (a *Artifact) modelTo(out *a2a.Artifact, big int) {
	out.Parts = parts(a.Parts, big)
	out.ID, out.Name, out.Metadata = first(a.ArtifactID, a.ArtifactID2), a.Name, ownMeta(a.Metadata, big)
	readArtifactExt(out, meta(a.Metadata))
}

// modelInto is model, an artifact of one part read into x when x is set.
func (a *Artifact) modelInto(big int, x *artifactOfOne) *a2a.Artifact {
	if a == nil {
		return nil
	}
	var out *a2a.Artifact
	if len(a.Parts) == 1 {
		// The usual chunk: the artifact and its part in one allocation, or
		// none.
		if x == nil {
			x = &artifactOfOne{}
		} else {
			*x = artifactOfOne{}
		}
		a.Parts[0].partTo(&x.p[0], big)
		x.a.Parts = x.p[:]
		out = &x.a
	} else {
		out = &a2a.Artifact{Parts: parts(a.Parts, big)}
	}
	out.ID, out.Name, out.Metadata = first(a.ArtifactID, a.ArtifactID2), a.Name, ownMeta(a.Metadata, big)
	readArtifactExt(out, meta(a.Metadata))
	return out
}

type artifactOfOne struct {
	a a2a.Artifact
	p [1]a2a.Part
}

func (w *task) model(big int) *a2a.Task {
	t := &a2a.Task{ID: first(w.ID, w.taskID()), ContextID: w.contextID(), Status: w.Status.model(big)}
	if len(w.Artifacts) > 0 {
		t.Artifacts = make([]a2a.Artifact, len(w.Artifacts))
		for i := range w.Artifacts {
			orEmpty(w.Artifacts[i]).modelTo(&t.Artifacts[i], big)
		}
	}
	if len(w.History) > 0 {
		t.History = make([]a2a.Message, len(w.History))
		for i := range w.History {
			orEmpty(w.History[i]).messageTo(&t.History[i], big)
		}
	}
	return t
}

// event reads the update; no status is an unknown state.
func (w *statusUpdate) event(big int) a2a.Event {
	return a2a.Event{Kind: a2a.EventStatus, TaskID: first(w.taskID(), w.ID), ContextID: w.contextID(),
		Status: w.Status.model(big), Final: on(w.Final), Metadata: ownMeta(w.Metadata, big)}
}

// event reads the update; no artifact is an empty one.
func (w *artifactUpdate) event(big int, into *artifactOfOne) a2a.Event {
	return a2a.Event{Kind: a2a.EventArtifact, TaskID: first(w.taskID(), w.ID), ContextID: w.contextID(),
		Artifact: w.Artifact.modelInto(big, into), Append: on(w.Append), LastChunk: on(w.LastChunk) || on(w.LastChunk2), Metadata: ownMeta(w.Metadata, big)}
}

func taskEvent(t *a2a.Task) a2a.Event {
	return a2a.Event{Kind: a2a.EventTask, Task: t, TaskID: t.ID, ContextID: t.ContextID, Status: t.Status}
}

func messageEvent(m *a2a.Message) a2a.Event {
	return a2a.Event{Kind: a2a.EventMessage, Message: m, TaskID: m.TaskID, ContextID: m.ContextID}
}

// errUnrecognized is returned for a result that is none of the known objects.
var errUnrecognized = errors.New("a2a: result is not a task, status update, artifact update or message")

// event reads the result as the event it is: a 1.0 wrapper's member, else
// the 0.3 object by its kind, else by its shape.
func (w *result) event(big int) (a2a.Event, error) {
	if w.Message == nil {
		w.Message = w.Msg
	}
	switch {
	case w.Task != nil:
		return taskEvent(w.Task.model(big)), nil
	case w.StatusUpdate.set():
		return w.StatusUpdate.event(big), nil
	case w.StatusUpdate2.set():
		return w.StatusUpdate2.event(big), nil
	case w.ArtifactUpdate.set():
		return w.ArtifactUpdate.event(big, w.art), nil
	case w.ArtifactUpdate2.set():
		return w.ArtifactUpdate2.event(big, w.art), nil
	}
	object := w.Object.set()
	switch {
	case w.Message != nil && (!object || w.Kind == ""):
		return messageEvent(w.Message.message(big)), nil
	case !object:
		return a2a.Event{}, errUnrecognized
	}
	return w.Object.event(big, w.art)
}

// kindNames are the 0.3 kinds, in both spellings.
var kindNames = map[string]a2a.EventKind{
	"task": a2a.EventTask, "message": a2a.EventMessage,
	"status-update": a2a.EventStatus, "status_update": a2a.EventStatus, "statusUpdate": a2a.EventStatus,
	"artifact-update": a2a.EventArtifact, "artifact_update": a2a.EventArtifact, "artifactUpdate": a2a.EventArtifact,
}

// kind is the object's kind: its tag, else its shape (kindFromShape).
func (w *Object) kind() a2a.EventKind {
	if k, ok := kindNames[w.Kind]; ok {
		return k
	}
	return w.kindFromShape()
}

func (w *Object) event(big int, into *artifactOfOne) (a2a.Event, error) {
	switch w.kind() {
	case a2a.EventTask:
		return taskEvent(w.task(big)), nil
	case a2a.EventStatus:
		u := statusUpdate{ids: w.ids, Final: w.Final, Metadata: w.Metadata}
		if w.Status != nil {
			u.Status = *w.Status
		}
		return u.event(big), nil
	case a2a.EventArtifact:
		u := artifactUpdate{ids: w.ids, Artifact: w.Artifact, Append: w.Append, LastChunk: w.LastChunk, LastChunk2: w.LastChunk2, Metadata: w.Metadata}
		return u.event(big, into), nil
	case a2a.EventMessage:
		m := Message{ids: w.ids, MessageID: w.MessageID, MessageID2: w.MessageID2, Role: w.Role, Parts: w.Parts, Metadata: w.Metadata}
		return messageEvent(m.message(big)), nil
	}
	return a2a.Event{}, errUnrecognized
}

func (w *Object) task(big int) *a2a.Task {
	t := task{ids: w.ids, Status: w.Status, Artifacts: w.Artifacts, History: w.History}
	return t.model(big)
}

// wireError is a JSON-RPC error object; code may arrive as a float.
type wireError struct {
	Code    json.Number     `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *wireError) rpcError() *a2a.RPCError {
	code, err := e.Code.Int64()
	if err != nil {
		f, _ := e.Code.Float64()
		code = int64(f)
	}
	r := &a2a.RPCError{Code: int(code), Message: strings.Clone(e.Message), Data: bytes.Clone(e.Data)}
	r.Reason, r.Notes = rpcerror.Details(e.Data)
	return r
}

// rpcResponse is a JSON-RPC response: a stream frame, or a unary
// answer's body, decoded in one pass. Result is a value, reused by a
// Decoder; a result that is null or absent reads as nothing given.
type rpcResponse struct {
	Error  *wireError `json:"error"`
	Result result     `json:"result"`
	// The envelope's other members, read and ignored: a key the decoder
	// knows costs less than one it has to look up again folded to lower
	// case.
	Version json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
}

// Decoder decodes the frames of one stream. It keeps its wire values from
// one frame to the next (the updates, the parts and what they point to);
// its events share nothing with it, unless it is told to share (Share). A
// Decoder is one goroutine's.
type Decoder struct {
	r rpcResponse
	// art is where an artifact event of one part is read once shared.
	art    artifactOfOne
	shared bool
	// rest is an HTTP+JSON stream's frame (RESTFrame).
	rest *restFrame
}

// Share makes the decoder read an artifact event of one part (a streamed
// chunk) into an artifact of its own, so that decoding a chunk allocates
// nothing: such an event's Artifact is then valid until the next frame is
// decoded (its strings stay valid: they are the frame's or copies). For a
// reader that is done with each event before it reads the next.
func (d *Decoder) Share() {
	d.shared = true
	d.r.Result.art = &d.art
	if d.rest != nil {
		d.rest.art = &d.art
	}
}

// Frame decodes one stream frame (a JSON-RPC response whose result is a
// task, a status or artifact update, or a message) in either dialect. A
// JSON-RPC error in the frame is returned as *a2a.RPCError.
func (d *Decoder) Frame(b []byte) (a2a.Event, error) {
	return decodeFrameInto(unmarshal, b, &d.r)
}

func decodeFrameInto(unmarshal func([]byte, any) error, b []byte, r *rpcResponse) (a2a.Event, error) {
	r.Error = nil
	err := unmarshal(b, r)
	// Read and ignored; dropped at once: a raw value shares the frame, and
	// a Decoder keeps nothing of a frame once it is decoded (a 50 MiB
	// frame stayed live while its event was shown).
	r.Version, r.ID = nil, nil
	if err != nil {
		r.Result.clear()
		return a2a.Event{}, a2a.NewDecodeError(plainSyntaxError(err, b), b)
	}
	if r.Error != nil {
		r.Result.reset()
		return a2a.Event{}, r.Error.rpcError()
	}
	ev, err := r.Result.event(shareOf(b))
	r.Result.reset()
	if err != nil {
		return a2a.Event{}, a2a.NewDecodeError(err, b)
	}
	return ev, nil
}

// plainSyntaxError gives a JSON syntax error in encoding/json's words,
// which name the offending character escaped ('\x1e') and never quote the
// input; segmentio/encoding's message holds the character and the start of
// the input as they are, control characters included.
func plainSyntaxError(err error, b []byte) error {
	var se *fastjson.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	var raw json.RawMessage
	if std := json.Unmarshal(b, &raw); std != nil {
		return std
	}
	return err
}

// rawResponse is a JSON-RPC response whose result is kept as JSON.
type rawResponse struct {
	Error  *wireError      `json:"error"`
	Result json.RawMessage `json:"result"`
}

// DecodeResponse decodes a JSON-RPC response and returns its result, or
// the error it carries (checked before the result).
func DecodeResponse(b []byte) (json.RawMessage, error) {
	var r rawResponse
	if err := unmarshal(b, &r); err != nil {
		return nil, a2a.NewDecodeError(err, b)
	}
	if r.Error != nil {
		return nil, r.Error.rpcError()
	}
	if r.Result == nil {
		return nil, a2a.NewDecodeError(errors.New("neither result nor error"), b)
	}
	return r.Result, nil
}

// DecodeTask decodes a GetTask result: the task itself, or {"task": …}.
func DecodeTask(raw json.RawMessage) (*a2a.Task, error) {
	var w result
	if err := unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	return w.task(raw)
}

// task reads the result of raw as a task: {"task": …}, or the task itself.
func (w *result) task(raw []byte) (*a2a.Task, error) {
	if w.Task != nil {
		return w.Task.model(shareOf(raw)), nil
	}
	if !w.Object.set() || (w.ID == "" && w.Status == nil) {
		return nil, a2a.NewDecodeError(errors.New("result is not a task"), raw)
	}
	return w.Object.task(shareOf(raw)), nil
}

// DecodeSendResult decodes a blocking send's result, a task or a message,
// as the events a stream would have carried.
func DecodeSendResult(raw json.RawMessage) ([]a2a.Event, error) {
	var w result
	if err := unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	return w.sendResult(raw)
}

// sendResult reads the result of raw, a task or a message, as the events
// a stream would have carried.
func (w *result) sendResult(raw []byte) ([]a2a.Event, error) {
	ev, err := w.event(shareOf(raw))
	if err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	if ev.Kind != a2a.EventTask {
		return []a2a.Event{ev}, nil
	}
	return a2a.TaskEvents(ev.Task), nil
}

// DecodeTaskPage decodes a ListTasks answer: its tasks and the next
// page's token.
func DecodeTaskPage(raw []byte) (tasks []a2a.Task, next string, err error) {
	var page struct {
		Tasks  []*Object `json:"tasks"`
		Token  string    `json:"nextPageToken"`
		Token2 string    `json:"next_page_token"`
	}
	if err := unmarshal(raw, &page); err != nil {
		return nil, "", a2a.NewDecodeError(err, raw)
	}
	tasks = make([]a2a.Task, 0, len(page.Tasks))
	for i := range page.Tasks {
		tasks = append(tasks, *orEmpty(page.Tasks[i]).task(shareOf(raw)))
	}
	return tasks, strings.Clone(first(page.Token, page.Token2)), nil
}

// ErrorFrame reads an `event: error` frame: a JSON-RPC response, a bare
// error object, or text.
func ErrorFrame(data []byte) error {
	if _, err := DecodeResponse(data); err != nil {
		var rpc *a2a.RPCError
		if errors.As(err, &rpc) {
			return rpc
		}
	}
	var we wireError
	if unmarshal(data, &we) == nil && we.Message != "" {
		return we.rpcError()
	}
	return &a2a.RPCError{Code: -32603, Message: strings.TrimSpace(strings.ToValidUTF8(string(data), "?"))}
}
