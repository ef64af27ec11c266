package render

// The ACP errors a request fails with when the agent fails it: the
// message names the agent and says what happened; data carries the
// state ("failed", "unreachable", "busy", …), the task id and the detail.

import (
	"errors"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
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
		d["detail"] = detail
	}
	return d
}

// Failed is the error of a turn whose task failed: friendly is the text
// the failure line shows, detail the status text.
func Failed(agent, friendly, taskID, detail string) *acp.Error {
	return Error(agent+": "+friendly, "failed", taskID, detail)
}

// CallError maps an A2A client error to an ACP error; advice says what
// to do about a token the server refused.
func CallError(agent string, err error, taskID, advice string) *acp.Error {
	var rpc *a2a.RPCError
	var unreachable *a2a.UnreachableError
	var herr *a2a.HTTPError
	var unsup *a2a.UnsupportedError
	switch {
	case errors.As(err, &unsup): // SPEC §12.6: never a half-working session
		return Error(agent+": "+err.Error(), "unsupported", taskID, unsup.URI)
	case a2a.IsUnauthorized(err):
		return acp.AuthRequired("the server refused the token (" + err.Error() + "): " + advice)
	case errors.Is(err, a2a.ErrInsecure):
		return acp.NewError(acp.CodeInternal, err.Error(), map[string]any{"state": "insecure"})
	case errors.As(err, &rpc):
		return Error(agent+": "+rpc.Message, "failed", taskID, rpc.Message)
	case errors.Is(err, a2a.ErrTooLarge):
		return Error(agent+": "+err.Error(), "failed", taskID, err.Error())
	case errors.As(err, &unreachable):
		return Error(agent+" is unreachable: "+err.Error()+" (is the agent running, and is --url right?)", "unreachable", taskID, err.Error())
	case errors.Is(err, a2a.ErrNoCard):
		// It answered, but not as an agent.
		return Error(agent+": "+err.Error()+": check --url (and --slug), or pass --endpoint with the agent's JSON-RPC URL, "+
			"or --card-url with its card's URL (a server hosting several agents keeps each card under the agent's own path)",
			"unreachable", taskID, err.Error())
	case errors.As(err, &herr):
		return Error(agent+": "+err.Error(), "unreachable", taskID, err.Error())
	}
	return Error(agent+": "+err.Error(), "unknown", taskID, err.Error())
}
