package a2a

import (
	"errors"
	"fmt"
	"strings"
)

// RPCError is a JSON-RPC error the server answered with.
type RPCError struct {
	Code    int
	Message string
	Data    []byte
	// Reason is the google.rpc.ErrorInfo reason of its typed details, and
	// Notes what the others say for a person (package wire/rpcerror).
	Reason string
	Notes  []string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("%s (JSON-RPC error %d)", e.Text(), e.Code)
}

// JSON-RPC error codes A2A servers use.
const (
	CodeTaskNotFound      = -32001
	CodeTaskNotCancelable = -32002
	CodeUnsupported       = -32004
	CodeMethodNotFound    = -32601
)

// HTTPError is an HTTP answer that is not a JSON-RPC response.
type HTTPError struct {
	StatusCode int
	// URL is the request URL (it never holds a credential).
	URL string
	// HTML is set when the body was an HTML page, typically from a proxy.
	HTML bool
	// Detail is the page title or the start of the body.
	Detail string
	// Want names what the request asked for ("an agent card"); empty:
	// A2A JSON.
	Want string
}

// Error says what the server answered; the advice belongs to the caller.
func (e *HTTPError) Error() string {
	switch {
	case e.Unauthorized():
		return fmt.Sprintf("%s answered HTTP %d: the credentials were refused", e.URL, e.StatusCode)
	case e.HTML:
		want := e.Want
		if want == "" {
			want = "A2A JSON"
		}
		msg := fmt.Sprintf("%s answered an HTML page, not %s (HTTP %d; a proxy or web server answered)", e.URL, want, e.StatusCode)
		if e.Detail != "" {
			msg += ": " + e.Detail
		}
		return msg
	case e.Detail != "":
		return fmt.Sprintf("%s answered HTTP %d: %s", e.URL, e.StatusCode, e.Detail)
	}
	return fmt.Sprintf("%s answered HTTP %d", e.URL, e.StatusCode)
}

// ErrNoCard wraps the answer of a server that gave no agent card at
// --url: the URL (or slug) is wrong, or the agent is elsewhere.
var ErrNoCard = errors.New("no agent card")

// Unauthorized reports a 401 or 403.
func (e *HTTPError) Unauthorized() bool { return e.StatusCode == 401 || e.StatusCode == 403 }

// IsUnauthorized reports whether err is the server refusing the credentials.
func IsUnauthorized(err error) bool {
	var h *HTTPError
	return errors.As(err, &h) && h.Unauthorized()
}

// UnreachableError is a server that could not be reached at all.
type UnreachableError struct {
	URL      string
	Attempts int
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach %s after %d attempt(s): %v", e.URL, e.Attempts, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ErrTooLarge is what a response over the limits of SPEC §13 is (errors.Is):
// an SSE event over 64 MiB, a response body over 64 MiB, or a read past a
// ReadBudget.
var ErrTooLarge = errors.New("a2a: the server's answer is too large")

// ErrInsecure is returned, before any connection, for a token that would go
// over plain http to a host that is not loopback.
var ErrInsecure = errors.New("refusing to send the token over plain http to a non-loopback host; use https or pass --allow-insecure-http")

// ErrStalled is returned by a stream that was silent for the stall timeout.
var ErrStalled = errors.New("a2a: the stream was silent too long (stalled)")

// ErrUnsupported is returned for a call the server's dialect lacks.
var ErrUnsupported = errors.New("a2a: not supported by this server's protocol version")

// SignInError is a sign-in shim cannot do or that failed: a card
// requirement shim cannot meet, or an OAuth token that could not be
// renewed. Its message says what to do.
type SignInError struct {
	Msg string
	// Err is the refused answer behind it, if any (an *HTTPError).
	Err error
}

func (e *SignInError) Error() string { return e.Msg }
func (e *SignInError) Unwrap() error { return e.Err }

// RefusedError is an agent address shim will not send a credential to
// (SPEC §15): a part of a host name not of its documented form, or a host
// outside a managed platform's domains. It is refused before any
// connection; its message names the part or the host and what to do.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// CardError is an agent card shim refuses (SPEC §17): a signature that
// does not verify, a key other than the one trusted for the card, or a
// card that comes unsigned where it was signed. No request is sent after
// the card's. Its message says why, names the keys and what to do.
type CardError struct {
	// Reason is the refusal's reason for the editor ("card_signature").
	Reason string
	// Pinned and Offered are the thumbprints of the key trusted for the
	// card and of the key it is signed with ("" when not known).
	Pinned, Offered string
	// Err is the refusal (its message is the error's).
	Err error
}

func (e *CardError) Error() string { return e.Err.Error() }
func (e *CardError) Unwrap() error { return e.Err }

// snippet returns the start of b for an error message.
func snippet(b []byte) string {
	const max = 120
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
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

// NewDecodeError is the error of body, which is not the JSON expected
// (err says why), with the start of body for the message.
func NewDecodeError(err error, body []byte) *DecodeError {
	return &DecodeError{Err: err, Snippet: snippet(body)}
}

// Text is the error as a person reads it: its message, then what its
// typed details add ("task not found (TASK_NOT_FOUND)").
func (e *RPCError) Text() string {
	var add []string
	if e.Reason != "" && !strings.Contains(e.Message, e.Reason) {
		add = append(add, e.Reason)
	}
	for _, n := range e.Notes {
		if !strings.Contains(e.Message, n) {
			add = append(add, n)
		}
	}
	if len(add) == 0 {
		return e.Message
	}
	if e.Message == "" {
		return strings.Join(add, "; ")
	}
	return fmt.Sprintf("%s (%s)", e.Message, strings.Join(add, "; "))
}

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
