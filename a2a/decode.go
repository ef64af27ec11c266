package a2a

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
)

// The wire types below accept both dialects at once: camelCase and
// snake_case keys, enum names and numbers, the 1.0 wrapper objects
// ({"statusUpdate": …}) and the 0.3 flat, kind-tagged objects. Decoding is
// lenient: an unknown field is ignored and a value of the wrong JSON type
// for a flag or an enum is read as its zero value rather than failing the
// whole frame.

// wireEnum holds an enum as its name or, for a number, "#<n>".
type wireEnum string

func (e *wireEnum) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		*e = ""
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*e = wireEnum(s)
		return nil
	}
	*e = wireEnum("#" + string(b))
	return nil
}

func (e wireEnum) number() (int, bool) {
	if !strings.HasPrefix(string(e), "#") {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(e[1:]), 64)
	if err != nil {
		return 0, false
	}
	return int(f), true
}

func (e wireEnum) state() State {
	if n, ok := e.number(); ok {
		if n >= 0 && n < len(stateByNumber) {
			return stateByNumber[n]
		}
		return StateUnknown
	}
	return ParseState(string(e))
}

func (e wireEnum) role() string {
	if n, ok := e.number(); ok {
		switch n {
		case 1:
			return "user"
		case 2:
			return "agent"
		}
		return ""
	}
	s := strings.ToLower(string(e))
	s = strings.TrimPrefix(s, "role_")
	return s
}

// wireBool is a flag that tolerates "true", 1 and null.
type wireBool bool

func (f *wireBool) UnmarshalJSON(b []byte) error {
	switch s := strings.Trim(string(bytes.TrimSpace(b)), `"`); strings.ToLower(s) {
	case "true", "1":
		*f = true
	default:
		*f = false
	}
	return nil
}

// wireMeta is a metadata object; anything but an object reads as nil.
type wireMeta map[string]any

func (m *wireMeta) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		*m = nil
		return nil
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = v
	return nil
}

type wirePart struct {
	Kind       string          `json:"kind"`
	Text       *wireText       `json:"text"`
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
}

type wireStatus struct {
	State     wireEnum    `json:"state"`
	Message   *wireObject `json:"message"`
	Timestamp string      `json:"timestamp"`
}

type wireArtifact struct {
	ArtifactID  string     `json:"artifactId"`
	ArtifactID2 string     `json:"artifact_id"`
	Name        string     `json:"name"`
	Parts       []wirePart `json:"parts"`
	Metadata    wireMeta   `json:"metadata"`
}

// wireObject is the union of every object a result can be: a wrapper
// ({"task": …}), a task, a status or artifact update, or a message.
type wireObject struct {
	Kind string `json:"kind"`

	Task            *wireObject `json:"task"`
	Message         *wireObject `json:"message"`
	StatusUpdate    *wireObject `json:"statusUpdate"`
	StatusUpdate2   *wireObject `json:"status_update"`
	ArtifactUpdate  *wireObject `json:"artifactUpdate"`
	ArtifactUpdate2 *wireObject `json:"artifact_update"`

	ID         string         `json:"id"`
	ContextID  string         `json:"contextId"`
	ContextID2 string         `json:"context_id"`
	TaskID     string         `json:"taskId"`
	TaskID2    string         `json:"task_id"`
	MessageID  string         `json:"messageId"`
	MessageID2 string         `json:"message_id"`
	Status     *wireStatus    `json:"status"`
	Artifacts  []wireArtifact `json:"artifacts"`
	History    []wireObject   `json:"history"`
	Artifact   *wireArtifact  `json:"artifact"`
	Append     wireBool       `json:"append"`
	LastChunk  wireBool       `json:"lastChunk"`
	LastChunk2 wireBool       `json:"last_chunk"`
	Final      wireBool       `json:"final"`
	Role       wireEnum       `json:"role"`
	Parts      []wirePart     `json:"parts"`
	Metadata   wireMeta       `json:"metadata"`

	// ListTasks.
	Tasks []wireObject `json:"tasks"`
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (w *wireObject) contextID() string { return first(w.ContextID, w.ContextID2) }
func (w *wireObject) taskID() string    { return first(w.TaskID, w.TaskID2) }

func (p *wirePart) part() Part {
	out := Part{MediaType: first(p.MediaType, p.MediaType2), Filename: p.Filename}
	if p.Metadata != nil {
		out.Metadata = p.Metadata
		if s, ok := p.Metadata["mimeType"].(string); ok {
			out.MimeType = s
		} else if s, ok := p.Metadata["mime_type"].(string); ok {
			out.MimeType = s
		}
	}
	if c := p.Content; c != nil && c.Case != "" {
		switch c.Case {
		case "text":
			out.Kind = PartText
			_ = json.Unmarshal(c.Value, &out.Text)
		case "data":
			out.Kind = PartData
			out.Data = c.Value
		case "url":
			out.Kind = PartFile
			_ = json.Unmarshal(c.Value, &out.URL)
		case "raw":
			var s string
			_ = json.Unmarshal(c.Value, &s)
			out.Kind = PartFile
			out.Raw = decodeBase64(s)
		}
		return out
	}
	switch {
	case p.Kind == "data" || (p.Kind == "" && len(p.Data) > 0 && p.Text == nil):
		out.Kind = PartData
		out.Data = p.Data
	case p.Kind == "file" || (p.Kind == "" && p.Text == nil && (p.Raw != "" || p.URL != "" || p.File != nil)):
		out.Kind = PartFile
		if f := p.File; f != nil {
			out.URL = f.URI
			out.Raw = decodeBase64(f.Bytes)
			out.MediaType = first(out.MediaType, first(f.MimeType, f.MimeType2))
			out.Filename = first(out.Filename, f.Name)
		} else {
			out.URL = p.URL
			out.Raw = decodeBase64(p.Raw)
		}
	default:
		out.Kind = PartText
		if p.Text != nil {
			out.Text = string(*p.Text)
		}
	}
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

func parts(ws []wirePart) []Part {
	if len(ws) == 0 {
		return nil
	}
	out := make([]Part, len(ws))
	for i := range ws {
		out[i] = ws[i].part()
	}
	return out
}

func (w *wireObject) message() *Message {
	if w == nil {
		return nil
	}
	return &Message{
		ID:        first(w.MessageID, w.MessageID2),
		Role:      w.Role.role(),
		TaskID:    w.taskID(),
		ContextID: w.contextID(),
		Parts:     parts(w.Parts),
		Metadata:  w.Metadata,
	}
}

func (s *wireStatus) status() Status {
	if s == nil {
		return Status{State: StateUnknown}
	}
	st := Status{State: s.State.state(), Message: s.Message.message()}
	if s.Timestamp != "" {
		// RFC 3339 (1.0: a google.protobuf.Timestamp in JSON; 0.3: ISO
		// 8601); one that does not parse is no timestamp.
		st.Timestamp, _ = time.Parse(time.RFC3339Nano, s.Timestamp)
	}
	return st
}

func (a *wireArtifact) artifact() *Artifact {
	if a == nil {
		return nil
	}
	return &Artifact{
		ID:       first(a.ArtifactID, a.ArtifactID2),
		Name:     a.Name,
		Parts:    parts(a.Parts),
		Metadata: a.Metadata,
	}
}

func (w *wireObject) task() *Task {
	t := &Task{ID: w.ID, ContextID: w.contextID(), Status: w.Status.status()}
	if t.ID == "" {
		t.ID = w.taskID()
	}
	for i := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, *w.Artifacts[i].artifact())
	}
	for i := range w.History {
		t.History = append(t.History, *w.History[i].message())
	}
	return t
}

// unwrap returns the object a 1.0 wrapper holds, and its kind.
func (w *wireObject) unwrap() (*wireObject, EventKind) {
	switch {
	case w.Task != nil:
		return w.Task, EventTask
	case w.StatusUpdate != nil:
		return w.StatusUpdate, EventStatus
	case w.StatusUpdate2 != nil:
		return w.StatusUpdate2, EventStatus
	case w.ArtifactUpdate != nil:
		return w.ArtifactUpdate, EventArtifact
	case w.ArtifactUpdate2 != nil:
		return w.ArtifactUpdate2, EventArtifact
	case w.Message != nil && w.Kind == "":
		return w.Message, EventMessage
	}
	switch w.Kind {
	case "task":
		return w, EventTask
	case "status-update", "status_update", "statusUpdate":
		return w, EventStatus
	case "artifact-update", "artifact_update", "artifactUpdate":
		return w, EventArtifact
	case "message":
		return w, EventMessage
	}
	// No wrapper, no kind: tell by shape.
	switch {
	case w.Artifact != nil:
		return w, EventArtifact
	case w.Status != nil && w.ID == "" && w.taskID() != "":
		return w, EventStatus
	case w.Status != nil:
		return w, EventTask
	case len(w.Parts) > 0 || w.Role != "":
		return w, EventMessage
	}
	return w, 0
}

// errUnrecognized is returned for a result that is none of the known objects.
var errUnrecognized = errors.New("a2a: result is not a task, status update, artifact update or message")

func (w *wireObject) event() (Event, error) {
	o, kind := w.unwrap()
	ev := Event{Kind: kind}
	switch kind {
	case EventTask:
		ev.Task = o.task()
		ev.TaskID, ev.ContextID, ev.Status = ev.Task.ID, ev.Task.ContextID, ev.Task.Status
	case EventStatus:
		ev.TaskID, ev.ContextID = first(o.taskID(), o.ID), o.contextID()
		ev.Status = o.Status.status()
		ev.Final = bool(o.Final)
	case EventArtifact:
		ev.TaskID, ev.ContextID = first(o.taskID(), o.ID), o.contextID()
		ev.Artifact = o.Artifact.artifact()
		if ev.Artifact == nil {
			ev.Artifact = &Artifact{}
		}
		ev.Append = bool(o.Append)
		ev.LastChunk = bool(o.LastChunk || o.LastChunk2)
	case EventMessage:
		ev.Message = o.message()
		ev.TaskID, ev.ContextID = ev.Message.TaskID, ev.Message.ContextID
	default:
		return Event{}, errUnrecognized
	}
	return ev, nil
}

// wireError is a JSON-RPC error object; code may arrive as a float.
type wireError struct {
	Code    json.Number     `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *wireError) rpcError() *RPCError {
	code, err := e.Code.Int64()
	if err != nil {
		f, _ := e.Code.Float64()
		code = int64(f)
	}
	r := &RPCError{Code: int(code), Message: e.Message, Data: e.Data}
	r.Reason, r.Notes = dataDetails(e.Data)
	return r
}

// wireResponse is a JSON-RPC response envelope.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Error   *wireError      `json:"error"`
	Result  json.RawMessage `json:"result"`
}

// decodeResponse decodes a JSON-RPC response and returns its result, or
// the error it carries (checked before the result).
func decodeResponse(b []byte) (json.RawMessage, error) {
	var r wireResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &DecodeError{Err: err, Snippet: snippet(b)}
	}
	if r.Error != nil {
		return nil, r.Error.rpcError()
	}
	if r.Result == nil {
		return nil, &DecodeError{Err: errors.New("neither result nor error"), Snippet: snippet(b)}
	}
	return r.Result, nil
}

// frameResponse is a stream frame decoded in one pass.
type frameResponse struct {
	Error  *wireError  `json:"error"`
	Result *wireObject `json:"result"`
}

// fastFrameMax is the largest frame decoded with segmentio/encoding's
// json. Stream frames are decoded with it because encoding/json, which
// checks a whole value in a pass of its own before decoding it, was 64% of
// shim's CPU on a fast stream (BENCHMARKS.md); segmentio/encoding checks
// and decodes in one pass and gives what encoding/json gives (it runs the
// standard library's own tests). A larger frame (a full replace of a long
// answer, a big tool result) is rare, costs mostly its text, and goes to
// encoding/json, whose memory use for it is measured (the slow-editor and
// full-replace bounds).
const fastFrameMax = 64 << 10

// frameUnmarshal is the decoder of a frame: segmentio/encoding up to
// fastFrameMax bytes, encoding/json above. FuzzDecodeFrameLikeEncodingJSON
// holds the two side by side.
func frameUnmarshal(b []byte) func([]byte, any) error {
	if len(b) <= fastFrameMax {
		return fastjson.Unmarshal
	}
	return json.Unmarshal
}

// DecodeFrame decodes one stream frame (a JSON-RPC response whose result
// is a task, a status or artifact update, or a message) in either dialect.
// A JSON-RPC error in the frame is returned as *RPCError.
func DecodeFrame(b []byte) (Event, error) {
	return decodeFrameWith(frameUnmarshal(b), b)
}

func decodeFrameWith(unmarshal func([]byte, any) error, b []byte) (Event, error) {
	var r frameResponse
	if err := unmarshal(b, &r); err != nil {
		return Event{}, &DecodeError{Err: plainSyntaxError(err, b), Snippet: snippet(b)}
	}
	if r.Error != nil {
		return Event{}, r.Error.rpcError()
	}
	if r.Result == nil {
		return Event{}, &DecodeError{Err: errors.New("neither result nor error"), Snippet: snippet(b)}
	}
	ev, err := r.Result.event()
	if err != nil {
		return Event{}, &DecodeError{Err: err, Snippet: snippet(b)}
	}
	return ev, nil
}

// decodeTask decodes a GetTask result: the task itself, or {"task": …}.
func decodeTask(raw json.RawMessage) (*Task, error) {
	var w wireObject
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, &DecodeError{Err: err, Snippet: snippet(raw)}
	}
	if w.Task != nil {
		return w.Task.task(), nil
	}
	if w.ID == "" && w.Status == nil {
		return nil, &DecodeError{Err: errors.New("result is not a task"), Snippet: snippet(raw)}
	}
	return w.task(), nil
}

// decodeSendResult decodes a blocking send's result, a task or a message,
// as the events a stream would have carried.
func decodeSendResult(raw json.RawMessage) ([]Event, error) {
	var w wireObject
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, &DecodeError{Err: err, Snippet: snippet(raw)}
	}
	ev, err := w.event()
	if err != nil {
		return nil, &DecodeError{Err: err, Snippet: snippet(raw)}
	}
	if ev.Kind != EventTask {
		return []Event{ev}, nil
	}
	return TaskEvents(ev.Task), nil
}

// TaskEvents expresses a task snapshot as the frames a stream would have
// carried: its agent messages after the last user message, each artifact
// as a full replace, and its final status.
func TaskEvents(t *Task) []Event {
	var out []Event
	lastUser := -1
	for i := range t.History {
		if t.History[i].FromUser() {
			lastUser = i
		}
	}
	for i := lastUser + 1; i < len(t.History); i++ {
		m := t.History[i]
		if m.Role != "agent" || (t.Status.Message != nil && m.ID != "" && m.ID == t.Status.Message.ID) {
			continue
		}
		out = append(out, Event{Kind: EventStatus, TaskID: t.ID, ContextID: t.ContextID,
			Status: Status{State: StateWorking, Message: &m}})
	}
	for i := range t.Artifacts {
		a := t.Artifacts[i]
		out = append(out, Event{Kind: EventArtifact, TaskID: t.ID, ContextID: t.ContextID, Artifact: &a, LastChunk: true})
	}
	out = append(out, Event{Kind: EventStatus, TaskID: t.ID, ContextID: t.ContextID, Status: t.Status, Final: t.Status.State.Terminal()})
	return out
}

// decodeTaskList decodes a ListTasks result.
func decodeTaskList(raw json.RawMessage) ([]Task, error) {
	var w wireObject
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, &DecodeError{Err: err, Snippet: snippet(raw)}
	}
	out := make([]Task, 0, len(w.Tasks))
	for i := range w.Tasks {
		out = append(out, *w.Tasks[i].task())
	}
	return out, nil
}

// snippet returns the start of b for an error message.
func snippet(b []byte) string {
	const max = 120
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// plainSyntaxError gives a JSON syntax error in encoding/json's words,
// which name the offending character escaped ('\x1e') and never quote the
// input; segmentio/encoding's message holds the character and the start of
// the input as they are, control characters included.
func plainSyntaxError(err error, b []byte) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	var raw json.RawMessage
	if std := json.Unmarshal(b, &raw); std != nil {
		return std
	}
	return err
}

// DecodeError is a body or frame that is not the JSON expected.
type DecodeError struct {
	Err     error
	Snippet string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("a2a: undecodable JSON-RPC response (%v): %q", e.Err, e.Snippet)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// NotJSONError is a stream that ended without one event that decoded: what
// the agent sends is not the JSON-RPC responses A2A streams carry.
type NotJSONError struct {
	// Events is how many events were skipped; First is the first of them.
	Events int
	First  *DecodeError
}

func (e *NotJSONError) Error() string {
	which := fmt.Sprintf("none of its %d events is", e.Events)
	if e.Events == 1 {
		which = "its one event is not"
	}
	return fmt.Sprintf("the agent's stream is not JSON: %s a JSON-RPC response (%v); the first begins %q",
		which, e.First.Err, e.First.Snippet)
}

func (e *NotJSONError) Unwrap() error { return e.First }
