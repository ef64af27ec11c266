// Package wire is A2A's JSON in both dialects: the lenient decoding of
// frames, results, tasks, cards and errors into package a2a's one model, and
// the encoding of outgoing messages and requests.
package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/shimdev/shim/a2a"
)

// The wire types below accept both dialects at once: camelCase and
// snake_case keys, enum names and numbers, the 1.0 wrapper objects
// ({"statusUpdate": …}) and the 0.3 flat, kind-tagged objects. Decoding is
// lenient: an unknown field is ignored and a value of the wrong JSON type
// for a flag or an enum is read as its zero value rather than failing the
// whole frame.

// Enum holds an enum as its name or, for a number, "#<n>".
type Enum string

func (e *Enum) UnmarshalJSON(b []byte) error {
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

type Status struct {
	State     Enum    `json:"state"`
	Message   *Object `json:"message"`
	Timestamp string  `json:"timestamp"`
}

type Artifact struct {
	ArtifactID  string     `json:"artifactId"`
	ArtifactID2 string     `json:"artifact_id"`
	Name        string     `json:"name"`
	Parts       []wirePart `json:"parts"`
	Metadata    wireMeta   `json:"metadata"`
}

// Object is the union of every object a result can be: a wrapper
// ({"task": …}), a task, a status or artifact update, or a message.
type Object struct {
	Kind string `json:"kind"`

	Task            *Object `json:"task"`
	Message         *Object `json:"message"`
	StatusUpdate    *Object `json:"statusUpdate"`
	StatusUpdate2   *Object `json:"status_update"`
	ArtifactUpdate  *Object `json:"artifactUpdate"`
	ArtifactUpdate2 *Object `json:"artifact_update"`

	ID         string     `json:"id"`
	ContextID  string     `json:"contextId"`
	ContextID2 string     `json:"context_id"`
	TaskID     string     `json:"taskId"`
	TaskID2    string     `json:"task_id"`
	MessageID  string     `json:"messageId"`
	MessageID2 string     `json:"message_id"`
	Status     *Status    `json:"status"`
	Artifacts  []Artifact `json:"artifacts"`
	History    []Object   `json:"history"`
	Artifact   *Artifact  `json:"artifact"`
	Append     wireBool   `json:"append"`
	LastChunk  wireBool   `json:"lastChunk"`
	LastChunk2 wireBool   `json:"last_chunk"`
	Final      wireBool   `json:"final"`
	Role       Enum       `json:"role"`
	Parts      []wirePart `json:"parts"`
	Metadata   wireMeta   `json:"metadata"`

	// ListTasks.
	Tasks []Object `json:"tasks"`
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (w *Object) contextID() string { return first(w.ContextID, w.ContextID2) }
func (w *Object) taskID() string    { return first(w.TaskID, w.TaskID2) }

func (p *wirePart) part() a2a.Part {
	out := a2a.Part{MediaType: first(p.MediaType, p.MediaType2), Filename: p.Filename}
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
			out.Kind = a2a.PartText
			_ = json.Unmarshal(c.Value, &out.Text)
		case "data":
			out.Kind = a2a.PartData
			out.Data = c.Value
		case "url":
			out.Kind = a2a.PartFile
			_ = json.Unmarshal(c.Value, &out.URL)
		case "raw":
			var s string
			_ = json.Unmarshal(c.Value, &s)
			out.Kind = a2a.PartFile
			out.Raw = decodeBase64(s)
		}
		return out
	}
	switch {
	case p.Kind == "data" || (p.Kind == "" && len(p.Data) > 0 && p.Text == nil):
		out.Kind = a2a.PartData
		out.Data = p.Data
	case p.Kind == "file" || (p.Kind == "" && p.Text == nil && (p.Raw != "" || p.URL != "" || p.File != nil)):
		out.Kind = a2a.PartFile
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
		out.Kind = a2a.PartText
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

func parts(ws []wirePart) []a2a.Part {
	if len(ws) == 0 {
		return nil
	}
	out := make([]a2a.Part, len(ws))
	for i := range ws {
		out[i] = ws[i].part()
	}
	return out
}

// AsMessage reads the object as a message; nil for nil.
func (w *Object) AsMessage() *a2a.Message {
	if w == nil {
		return nil
	}
	return &a2a.Message{
		ID:        first(w.MessageID, w.MessageID2),
		Role:      w.Role.role(),
		TaskID:    w.taskID(),
		ContextID: w.contextID(),
		Parts:     parts(w.Parts),
		Metadata:  w.Metadata,
	}
}

// Model reads the status; nil is an unknown state.
func (s *Status) Model() a2a.Status {
	if s == nil {
		return a2a.Status{State: a2a.StateUnknown}
	}
	st := a2a.Status{State: s.State.State(), Message: s.Message.AsMessage()}
	if s.Timestamp != "" {
		// RFC 3339 (1.0: a google.protobuf.Timestamp in JSON; 0.3: ISO
		// 8601); one that does not parse is no timestamp.
		st.Timestamp, _ = time.Parse(time.RFC3339Nano, s.Timestamp)
	}
	return st
}

// Model reads the artifact; nil for nil.
func (a *Artifact) Model() *a2a.Artifact {
	if a == nil {
		return nil
	}
	return &a2a.Artifact{
		ID:       first(a.ArtifactID, a.ArtifactID2),
		Name:     a.Name,
		Parts:    parts(a.Parts),
		Metadata: a.Metadata,
	}
}

func (w *Object) task() *a2a.Task {
	t := &a2a.Task{ID: w.ID, ContextID: w.contextID(), Status: w.Status.Model()}
	if t.ID == "" {
		t.ID = w.taskID()
	}
	for i := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, *w.Artifacts[i].Model())
	}
	for i := range w.History {
		t.History = append(t.History, *w.History[i].AsMessage())
	}
	return t
}

// unwrap returns the object a 1.0 wrapper holds, and its kind.
func (w *Object) unwrap() (*Object, a2a.EventKind) {
	switch {
	case w.Task != nil:
		return w.Task, a2a.EventTask
	case w.StatusUpdate != nil:
		return w.StatusUpdate, a2a.EventStatus
	case w.StatusUpdate2 != nil:
		return w.StatusUpdate2, a2a.EventStatus
	case w.ArtifactUpdate != nil:
		return w.ArtifactUpdate, a2a.EventArtifact
	case w.ArtifactUpdate2 != nil:
		return w.ArtifactUpdate2, a2a.EventArtifact
	case w.Message != nil && w.Kind == "":
		return w.Message, a2a.EventMessage
	}
	switch w.Kind {
	case "task":
		return w, a2a.EventTask
	case "status-update", "status_update", "statusUpdate":
		return w, a2a.EventStatus
	case "artifact-update", "artifact_update", "artifactUpdate":
		return w, a2a.EventArtifact
	case "message":
		return w, a2a.EventMessage
	}
	// No wrapper, no kind: tell by shape.
	switch {
	case w.Artifact != nil:
		return w, a2a.EventArtifact
	case w.Status != nil && w.ID == "" && w.taskID() != "":
		return w, a2a.EventStatus
	case w.Status != nil:
		return w, a2a.EventTask
	case len(w.Parts) > 0 || w.Role != "":
		return w, a2a.EventMessage
	}
	return w, 0
}

// errUnrecognized is returned for a result that is none of the known objects.
var errUnrecognized = errors.New("a2a: result is not a task, status update, artifact update or message")

func (w *Object) event() (a2a.Event, error) {
	o, kind := w.unwrap()
	ev := a2a.Event{Kind: kind}
	switch kind {
	case a2a.EventTask:
		ev.Task = o.task()
		ev.TaskID, ev.ContextID, ev.Status = ev.Task.ID, ev.Task.ContextID, ev.Task.Status
	case a2a.EventStatus:
		ev.TaskID, ev.ContextID = first(o.taskID(), o.ID), o.contextID()
		ev.Status = o.Status.Model()
		ev.Final = bool(o.Final)
	case a2a.EventArtifact:
		ev.TaskID, ev.ContextID = first(o.taskID(), o.ID), o.contextID()
		ev.Artifact = o.Artifact.Model()
		if ev.Artifact == nil {
			ev.Artifact = &a2a.Artifact{}
		}
		ev.Append = bool(o.Append)
		ev.LastChunk = bool(o.LastChunk || o.LastChunk2)
	case a2a.EventMessage:
		ev.Message = o.AsMessage()
		ev.TaskID, ev.ContextID = ev.Message.TaskID, ev.Message.ContextID
	default:
		return a2a.Event{}, errUnrecognized
	}
	return ev, nil
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
	r := &a2a.RPCError{Code: int(code), Message: e.Message, Data: e.Data}
	r.Reason, r.Notes = dataDetails(e.Data)
	return r
}

// wireResponse is a JSON-RPC response envelope.
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Error   *wireError      `json:"error"`
	Result  json.RawMessage `json:"result"`
}

// DecodeResponse decodes a JSON-RPC response and returns its result, or
// the error it carries (checked before the result).
func DecodeResponse(b []byte) (json.RawMessage, error) {
	var r wireResponse
	if err := json.Unmarshal(b, &r); err != nil {
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

// frameResponse is a stream frame decoded in one pass.
type frameResponse struct {
	Error  *wireError `json:"error"`
	Result *Object    `json:"result"`
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
func DecodeFrame(b []byte) (a2a.Event, error) {
	return decodeFrameWith(frameUnmarshal(b), b)
}

func decodeFrameWith(unmarshal func([]byte, any) error, b []byte) (a2a.Event, error) {
	var r frameResponse
	if err := unmarshal(b, &r); err != nil {
		return a2a.Event{}, a2a.NewDecodeError(err, b)
	}
	if r.Error != nil {
		return a2a.Event{}, r.Error.rpcError()
	}
	if r.Result == nil {
		return a2a.Event{}, a2a.NewDecodeError(errors.New("neither result nor error"), b)
	}
	ev, err := r.Result.event()
	if err != nil {
		return a2a.Event{}, a2a.NewDecodeError(err, b)
	}
	return ev, nil
}

// DecodeTask decodes a GetTask result: the task itself, or {"task": …}.
func DecodeTask(raw json.RawMessage) (*a2a.Task, error) {
	var w Object
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	if w.Task != nil {
		return w.Task.task(), nil
	}
	if w.ID == "" && w.Status == nil {
		return nil, a2a.NewDecodeError(errors.New("result is not a task"), raw)
	}
	return w.task(), nil
}

// DecodeSendResult decodes a blocking send's result, a task or a message,
// as the events a stream would have carried.
func DecodeSendResult(raw json.RawMessage) ([]a2a.Event, error) {
	var w Object
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	ev, err := w.event()
	if err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	if ev.Kind != a2a.EventTask {
		return []a2a.Event{ev}, nil
	}
	return a2a.TaskEvents(ev.Task), nil
}

// decodeTaskList decodes a ListTasks result.
func decodeTaskList(raw json.RawMessage) ([]a2a.Task, error) {
	var w Object
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, a2a.NewDecodeError(err, raw)
	}
	out := make([]a2a.Task, 0, len(w.Tasks))
	for i := range w.Tasks {
		out = append(out, *w.Tasks[i].task())
	}
	return out, nil
}

// DecodeTaskPage decodes a ListTasks answer: its tasks and the next
// page's token.
func DecodeTaskPage(raw []byte) (tasks []a2a.Task, next string, err error) {
	tasks, err = decodeTaskList(raw)
	if err != nil {
		return nil, "", err
	}
	var page struct {
		Token  string `json:"nextPageToken"`
		Token2 string `json:"next_page_token"`
	}
	_ = json.Unmarshal(raw, &page)
	return tasks, first(page.Token, page.Token2), nil
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
	if json.Unmarshal(data, &we) == nil && we.Message != "" {
		return we.rpcError()
	}
	return &a2a.RPCError{Code: -32603, Message: strings.TrimSpace(strings.ToValidUTF8(string(data), "?"))}
}
