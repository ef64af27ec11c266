package rpcerror

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Typed error details (A2A 1.0.1, SPEC §12.8): a JSON-RPC error's data
// may be a list of google.rpc detail objects, each typed by "@type"
// (type.googleapis.com/google.rpc.ErrorInfo and friends); an HTTP+JSON
// google.rpc.Status carries the same list as its details. What they say
// to a person joins the error's text.

// Most notes kept from one error's details, and characters of each.
const (
	detailNotesMax = 8
	detailNoteMax  = 200
)

// wireDetail is one typed detail, every kind's fields side by side.
type wireDetail struct {
	Type string `json:"@type"`
	// ErrorInfo.
	Reason string `json:"reason"`
	// LocalizedMessage.
	Message string `json:"message"`
	// BadRequest, QuotaFailure, PreconditionFailure.
	FieldViolations []struct {
		Field       string `json:"field"`
		Description string `json:"description"`
	} `json:"fieldViolations"`
	Violations []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"violations"`
	// RetryInfo: a protobuf Duration as JSON ("30s").
	RetryDelay json.RawMessage `json:"retryDelay"`
}

// readDetails reads typed details: the ErrorInfo reason, and notes for a
// person (a localized message, the fields a request got wrong, a retry
// delay, quota and precondition violations). Anything else is skipped.
func readDetails(list []json.RawMessage) (reason string, notes []string) {
	note := func(s string) {
		if s = strings.TrimSpace(s); s != "" && len(notes) < detailNotesMax {
			notes = append(notes, cutText(s, detailNoteMax))
		}
	}
	for _, raw := range list {
		var d wireDetail
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		switch kind := d.Type[strings.LastIndexByte(d.Type, '.')+1:]; kind {
		case "ErrorInfo":
			if reason == "" {
				reason = cutText(strings.TrimSpace(d.Reason), detailNoteMax)
			}
		case "LocalizedMessage":
			note(d.Message)
		case "BadRequest":
			for _, v := range d.FieldViolations {
				note(strings.TrimPrefix(v.Field+": "+v.Description, ": "))
			}
		case "QuotaFailure", "PreconditionFailure":
			for _, v := range d.Violations {
				note(strings.TrimPrefix(v.Subject+": "+v.Description, ": "))
			}
		case "RetryInfo":
			var delay string
			if json.Unmarshal(d.RetryDelay, &delay) == nil && delay != "" {
				note("retry after " + delay)
			} else {
				var pb struct {
					Seconds json.Number `json:"seconds"`
				}
				if json.Unmarshal(d.RetryDelay, &pb) == nil && pb.Seconds != "" {
					note("retry after " + pb.Seconds.String() + "s")
				}
			}
		}
	}
	return reason, notes
}

// Details reads a JSON-RPC error's data as typed details when it is a
// list of them (or one of them): the ErrorInfo reason, and notes for a
// person.
func Details(data []byte) (reason string, notes []string) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "", nil
	}
	var list []json.RawMessage
	switch data[0] {
	case '[':
		if json.Unmarshal(data, &list) != nil {
			return "", nil
		}
	case '{':
		list = []json.RawMessage{data}
	}
	return readDetails(list)
}
