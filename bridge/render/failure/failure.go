package failure

// The ACP errors a request fails with when the agent fails it: the
// message names the agent and says what happened (cut, SPEC §13); data
// carries the state ("failed", "unreachable", "busy", …), the task id,
// the detail and the reason a JSON-RPC error's typed details give.

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/textcut"
)

// Error is a -32603 error whose data says state, taskID and detail (the
// last two only when set).
func Error(message, state, taskID, detail string) *acp.Error {
	return acp.NewError(acp.CodeInternal, message, stateData(state, taskID, detail))
}

func stateData(state, taskID, detail string) map[string]any {
	d := map[string]any{"state": state}
	if taskID != "" {
		d["taskId"] = taskID
	}
	if detail != "" {
		d["detail"] = errDetail(detail)
	}
	return d
}

// reasonData adds the reason of a JSON-RPC error's typed details to an
// error's data.
func reasonData(d map[string]any, rpc *a2a.RPCError) map[string]any {
	if rpc.Reason != "" {
		d["reason"] = rpc.Reason
	}
	return d
}

// What an error says of the agent's words (SPEC §13 amended): its message
// keeps "<agent name>: " and at most errTextMax characters of the rest;
// its data.detail at most errDetailMax bytes.
const (
	errTextMax   = 500
	errDetailMax = 64 << 10
)

// errText is an error's text cut for its message.
func errText(s string) string {
	return textcut.Cut(s, errTextMax)
}

// errDetail is an error's raw text cut for its data.detail, at a
// character's start.
func errDetail(s string) string {
	if len(s) <= errDetailMax {
		return s
	}
	i := errDetailMax - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.Clone(s[:i]) + "…"
}

// Failed is the error of a turn whose task failed: friendly is the text
// the failure line shows, detail the status text.
func Failed(agent, friendly, taskID, detail string) *acp.Error {
	return Error(agent+": "+errText(friendly), "failed", taskID, detail)
}

// CallError maps an A2A client error to an ACP error; advice says what
// to do about a token the server refused.
func CallError(agent string, err error, taskID, advice string) *acp.Error {
	var rpc *a2a.RPCError
	var unreachable *a2a.UnreachableError
	var herr *a2a.HTTPError
	var unsup *a2a.UnsupportedError
	var card *a2a.CardError
	text := errText(err.Error())
	switch {
	case errors.As(err, &card): // SPEC §17: the card's signature is refused
		return acp.NewError(acp.CodeAuthRequired, text, cardData(card))
	case errors.As(err, &unsup): // SPEC §12.6: never a half-working session
		return Error(agent+": "+text, "unsupported", taskID, unsup.URI)
	case a2a.IsUnauthorized(err):
		return acp.AuthRequired("the server refused the token (" + err.Error() + "): " + advice)
	case errors.Is(err, a2a.ErrInsecure):
		return acp.NewError(acp.CodeInternal, text, map[string]any{"state": "insecure"})
	case errors.As(err, &rpc):
		return acp.NewError(acp.CodeInternal, agent+": "+errText(rpc.Text()), reasonData(stateData("failed", taskID, rpc.Message), rpc))
	case errors.Is(err, a2a.ErrTooLarge):
		return Error(agent+": "+text, "failed", taskID, err.Error())
	case errors.As(err, &unreachable):
		return Error(agent+" is unreachable: "+text+" (is the agent running, and is --url right?)", "unreachable", taskID, err.Error())
	case errors.Is(err, a2a.ErrNoCard):
		// It answered, but not as an agent.
		return Error(agent+": "+text+": check --url (and --slug), or pass --endpoint with the agent's JSON-RPC URL, "+
			"or --card-url with its card's URL (a server hosting several agents keeps each card under the agent's own path)",
			"unreachable", taskID, err.Error())
	case errors.As(err, &herr):
		return Error(agent+": "+text, "unreachable", taskID, err.Error())
	}
	return Error(agent+": "+text, "unknown", taskID, err.Error())
}

// cardData is the data of a refused card's error: its reason and the
// thumbprints of the key trusted for it and of the key it is signed with.
func cardData(card *a2a.CardError) map[string]any {
	d := map[string]any{"reason": card.Reason}
	if card.Pinned != "" {
		d["pinned"] = card.Pinned
	}
	if card.Offered != "" {
		d["offered"] = card.Offered
	}
	return d
}
