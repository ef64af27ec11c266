package acp

import "github.com/sourcegraph/jsonrpc2"

// JSON-RPC and ACP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeAuthRequired   = -32000
	CodeNotFound       = -32002
	// CodeRequestCancelled answers a request the client cancelled
	// ($/cancel_request).
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error answer.
type Error = jsonrpc2.Error

// NewError builds an error answer with optional data (encoded as JSON).
func NewError(code int64, msg string, data any) *Error {
	e := &Error{Code: code, Message: msg}
	if data != nil {
		e.SetError(data)
	}
	return e
}

// InvalidParams is -32602 "Invalid params: <detail>".
func InvalidParams(detail string) *Error {
	return NewError(CodeInvalidParams, "Invalid params: "+detail, nil)
}

// MethodNotFound is -32601 for method.
func MethodNotFound(method string) *Error {
	return NewError(CodeMethodNotFound, "Method not found: "+method, nil)
}

// Internal is -32603 with optional data.
func Internal(msg string, data any) *Error { return NewError(CodeInternal, msg, data) }

// AuthRequired is -32000 "Authentication required: <reason>", the reason
// also as data.
func AuthRequired(reason string) *Error {
	return NewError(CodeAuthRequired, "Authentication required: "+reason, map[string]any{"reason": reason})
}

// NotFound is -32002 with optional data.
func NotFound(msg string, data any) *Error { return NewError(CodeNotFound, msg, data) }

// Cancelled is -32800 "request cancelled": the answer to a request the
// client cancelled before it was done.
func Cancelled() *Error { return NewError(CodeRequestCancelled, "request cancelled", nil) }
