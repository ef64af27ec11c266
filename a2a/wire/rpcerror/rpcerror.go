package rpcerror

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
)

// Body is an HTTP+JSON error body: a google.rpc.Status (AIP-193:
// {"error": {code, status, message, details}}, or bare) or an RFC 9457
// problem (application/problem+json: {type, title, status, detail}).
type Body struct {
	Code    json.Number       `json:"code"`
	Status  json.RawMessage   `json:"status"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
	// RFC 9457.
	Type   string `json:"type"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

// reasonCodes maps A2A error reasons (google.rpc.ErrorInfo reason, or a
// problem type's last segment) to the JSON-RPC codes of the same errors.
var reasonCodes = map[string]int{
	"PARSE_ERROR":                                -32700,
	"INVALID_REQUEST":                            -32600,
	"METHOD_NOT_FOUND":                           -32601,
	"INVALID_PARAMS":                             -32602,
	"INTERNAL_ERROR":                             -32603,
	"SERVER_ERROR":                               -32000,
	"TASK_NOT_FOUND":                             a2a.CodeTaskNotFound,
	"TASK_NOT_CANCELABLE":                        a2a.CodeTaskNotCancelable,
	"PUSH_NOTIFICATION_NOT_SUPPORTED":            -32003,
	"UNSUPPORTED_OPERATION":                      a2a.CodeUnsupported,
	"CONTENT_TYPE_NOT_SUPPORTED":                 -32005,
	"INVALID_AGENT_RESPONSE":                     -32006,
	"EXTENDED_AGENT_CARD_NOT_CONFIGURED":         -32007,
	"AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED": -32007,
	"EXTENSION_SUPPORT_REQUIRED":                 -32008,
	"VERSION_NOT_SUPPORTED":                      -32009,
}

// statusCodes maps google.rpc.Code names, when no reason says more.
var statusCodes = map[string]int{
	"NOT_FOUND":           a2a.CodeTaskNotFound,
	"INVALID_ARGUMENT":    -32602,
	"UNIMPLEMENTED":       a2a.CodeMethodNotFound,
	"FAILED_PRECONDITION": a2a.CodeUnsupported,
	"INTERNAL":            -32603,
}

// httpCodes maps HTTP statuses, when the body says nothing more.
var httpCodes = map[int]int{
	http.StatusNotFound:       a2a.CodeTaskNotFound,
	http.StatusBadRequest:     -32602,
	http.StatusNotImplemented: a2a.CodeMethodNotFound,
	http.StatusConflict:       a2a.CodeUnsupported,
}

// reasonName turns "task-not-found", "TaskNotFoundError" or
// "https://a2a-protocol.org/errors/task-not-found" into TASK_NOT_FOUND.
func reasonName(s string) string {
	if i := strings.LastIndexAny(s, "/#:"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSuffix(s, "Error")
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '-' || r == ' ' || r == '.':
			b.WriteByte('_')
		case unicode.IsUpper(r) && i > 0 && !unicode.IsUpper(rune(s[i-1])) && s[i-1] != '_' && s[i-1] != '-':
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// RPCError reads the error as a JSON-RPC error; status is the HTTP
// status it came with (0 in a stream), raw the body kept as its data.
func (w *Body) RPCError(status int, raw []byte) *a2a.RPCError {
	code, status := w.code(status)
	msg := w.text()
	if msg == "" {
		msg = http.StatusText(status)
	}
	e := &a2a.RPCError{Code: code, Message: msg}
	e.Reason, e.Notes = readDetails(w.Details)
	if len(raw) <= errorTextMax {
		e.Data = bytes.Clone(raw)
	}
	return e
}

// text is the error's message, else its title and detail (RFC 9457),
// cut to errorTextMax.
func (w *Body) text() string {
	if msg := cutText(w.Message, errorTextMax); msg != "" {
		return msg
	}
	msg := cutText(w.Title, errorTextMax)
	detail := cutText(w.Detail, errorTextMax-len(msg)-len(": "))
	switch {
	case detail != "" && msg != "":
		return msg + ": " + detail
	case detail != "":
		return detail
	}
	return msg
}

// code is the JSON-RPC code the error stands for, from the first of its
// ErrorInfo reason, its problem type, its status name, a negative code,
// and its HTTP status (in a stream, the status the body gives); and that
// HTTP status.
func (w *Body) code(status int) (int, int) {
	if code, ok := w.reasonCode(); ok {
		return code, status
	}
	var name string
	if json.Unmarshal(w.Status, &name) == nil {
		if code, ok := statusCodes[strings.ToUpper(name)]; ok {
			return code, status
		}
	}
	if n, err := w.Code.Int64(); err == nil && n < 0 {
		return int(n), status
	}
	if status == 0 {
		status = w.bodyStatus()
	}
	if code, ok := httpCodes[status]; ok {
		return code, status
	}
	return -32603, status
}

// reasonCode is the code of the error's google.rpc.ErrorInfo reason, else
// of its problem type.
func (w *Body) reasonCode() (int, bool) {
	for _, d := range w.Details {
		var info struct {
			Type   string `json:"@type"`
			Reason string `json:"reason"`
		}
		if json.Unmarshal(d, &info) == nil && info.Reason != "" && strings.HasSuffix(info.Type, "google.rpc.ErrorInfo") {
			if code, ok := reasonCodes[strings.ToUpper(info.Reason)]; ok {
				return code, true
			}
		}
	}
	if w.Type != "" && w.Type != "about:blank" {
		code, ok := reasonCodes[reasonName(w.Type)]
		return code, ok
	}
	return 0, false
}

// bodyStatus is the HTTP status the body gives: a numeric status, else
// its code.
func (w *Body) bodyStatus() int {
	var n json.Number
	if json.Unmarshal(w.Status, &n) == nil {
		i, _ := n.Int64()
		return int(i)
	}
	if i, err := w.Code.Int64(); err == nil {
		return int(i)
	}
	return 0
}

// errorTextMax bounds what an error body's text (its message, its
// detail) and the body itself are kept for: an error is shown cut far
// shorter, and a 48 MiB detail must not be held three times over.
const errorTextMax = 64 << 10

// cutText is s cut to at most n bytes, at a character's start.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// Decode reads an HTTP+JSON error body of either shape as the JSON-RPC
// error it stands for; status is the HTTP status it came with (0 in a
// stream). It returns nil for a body of neither shape.
func Decode(status int, data []byte) *a2a.RPCError {
	var env struct {
		Error *Body `json:"error"`
	}
	if json.Unmarshal(data, &env) == nil && env.Error != nil && (env.Error.Message != "" || env.Error.Code != "") {
		return env.Error.RPCError(status, data)
	}
	var w Body
	if json.Unmarshal(data, &w) != nil {
		return nil
	}
	if w.Message == "" && w.Detail == "" && w.Title == "" && w.Type == "" {
		return nil
	}
	return w.RPCError(status, data)
}
