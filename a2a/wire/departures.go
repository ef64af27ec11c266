package wire

// Where a server departs from the A2A spec, or speaks a convention of its
// own the spec does not define, and wire reads it anyway: one function per
// departure, named for what the server does, its comment naming the
// server (README, "Where servers depart from the spec": a row each).
// Nothing else in the package names a server; what it sets in the model
// has a name of what it means (a2a.Part.ToolEvent, Thinking; a2a.Message's
// ParkTools).

import (
	"encoding/json"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/internal/jsontext"
)

// adkMarks are the keys of a part's metadata with which Google ADK (its
// A2A converter, Python and TypeScript) marks a part that is not what its
// kind says: adk_type names a tool event carried as a data part
// (function_call, function_response, executable_code,
// code_execution_result), adk_thought: true a text part that is the
// model's thinking. Read with the part's other metadata (partMeta).
type adkMarks struct {
	ADKType    json.RawMessage `json:"adk_type"`
	ADKThought json.RawMessage `json:"adk_thought"`
}

// mark reads Google ADK's marks into out: a tool event when adk_type is
// given (null included), of the type it names; thinking when adk_thought
// is true.
func (k *adkMarks) mark(out *a2a.Part) {
	out.ToolEvent = k.ADKType != nil
	out.ToolEventType = rawStr(k.ADKType)
	out.Thinking = jsontext.IsTrue(k.ADKThought)
}

// adkPayload is the data of a Google ADK tool-event part, of any of its
// types.
type adkPayload struct {
	ID       json.RawMessage `json:"id"`
	Name     json.RawMessage `json:"name"`
	Args     json.RawMessage `json:"args"`
	Response json.RawMessage `json:"response"`
	Output   json.RawMessage `json:"output"`
	Outcome  json.RawMessage `json:"outcome"`
}

// adkEvents read a Google ADK tool-event part of each type; object
// reports whether its data is an object (o is empty otherwise).
var adkEvents = map[string]func(p *a2a.Part, o *adkPayload, object bool) a2a.ToolCall{
	"function_call":         adkFunctionCall,
	"function_response":     adkFunctionResponse,
	"executable_code":       adkExecutableCode,
	"code_execution_result": adkCodeExecutionResult,
}

// toolEvent reads a tool-event part (Part.ToolEvent) as the tool call it
// is: Google ADK's function and code parts.
func toolEvent(p *a2a.Part) (a2a.ToolCall, bool) {
	read, ok := adkEvents[p.ToolEventType]
	if !ok {
		return a2a.ToolCall{}, false
	}
	var o adkPayload
	object := p.Kind == a2a.PartData && readKeys(p.Data, &o)
	return read(p, &o, object), true
}

// adkFunctionCall: Google ADK sends a tool call as a data part
// {id, name, args} marked adk_type function_call.
func adkFunctionCall(_ *a2a.Part, o *adkPayload, _ bool) a2a.ToolCall {
	return a2a.ToolCall{ID: rawStr(o.ID), Name: rawStr(o.Name), Phase: a2a.PhaseStarted, Args: jsontext.Text(o.Args)}
}

// adkFunctionResponse: Google ADK sends a tool's result as a data part
// {id, name, response} marked adk_type function_response; a response
// {"error": …} is a failed call, and one {"result": …} alone is that
// result.
func adkFunctionResponse(_ *a2a.Part, o *adkPayload, _ bool) a2a.ToolCall {
	tc := a2a.ToolCall{ID: rawStr(o.ID), Name: rawStr(o.Name), Phase: a2a.PhaseCompleted}
	resp := o.Response
	if r := keysOf(resp); r != nil {
		if e, ok := r["error"]; ok && !jsontext.IsNull(e) {
			tc.Phase, tc.Error = a2a.PhaseFailed, jsontext.Text(e)
		}
		if res, ok := r["result"]; ok && len(r) == 1 {
			resp = res
		}
	}
	tc.Result = jsontext.Text(resp)
	return tc
}

// adkExecutableCode: Google ADK sends code the model runs as a data part
// {code, language} marked adk_type executable_code, with no call id: it
// starts a code_execution call whose args are the part's data.
func adkExecutableCode(p *a2a.Part, o *adkPayload, object bool) a2a.ToolCall {
	tc := a2a.ToolCall{ID: rawStr(o.ID), Name: a2a.ToolCodeExecution, Phase: a2a.PhaseStarted, Args: "null"}
	if object {
		tc.Args = jsontext.Text(p.Data)
	}
	return tc
}

// adkCodeExecutionResult: Google ADK sends the code's outcome as a data
// part {outcome, output} marked adk_type code_execution_result: it ends
// the latest code_execution call, failed for OUTCOME_FAILED and
// OUTCOME_DEADLINE_EXCEEDED.
func adkCodeExecutionResult(_ *a2a.Part, o *adkPayload, _ bool) a2a.ToolCall {
	tc := a2a.ToolCall{ID: rawStr(o.ID), Name: a2a.ToolCodeExecution, Phase: a2a.PhaseCompleted, Result: rawStr(o.Output)}
	switch outcome := rawStr(o.Outcome); strings.ToUpper(outcome) {
	case "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED":
		tc.Phase, tc.Error = a2a.PhaseFailed, outcome
	}
	return tc
}

// confirmationWrapsCall: Google ADK (for TypeScript) parks a tool that
// needs confirmation as a call of its own, adk_request_confirmation,
// whose args hold the call it is about (originalFunctionCall): a call
// whose args hold another call (themselves or one member of them) is that
// inner call, when wraps allows one more (parkWrapsMax).
func confirmationWrapsCall(args json.RawMessage, wraps int) *a2a.ToolCall {
	a, ok := members(args)
	if !ok || wraps >= parkWrapsMax {
		return nil
	}
	for _, c := range a.wrapped() {
		if inner := c.tool(wraps + 1); inner != nil {
			return inner
		}
	}
	return nil
}

// schemaInString: Mastra parks with the answer's JSON Schema serialized as
// a JSON string (resumeSchema: "{\"type\":\"object\",…}") where the spec's
// DataPart carries an object: a string is read as the JSON it holds
// (SPEC §12.8); any other value is raw as it is.
func schemaInString(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return json.RawMessage(s)
	}
	return raw
}

// kindFromShape: VoltAgent streams task snapshots without kind, which 0.3
// requires on every object: an object whose kind is none of 0.3's is told
// by its shape (an artifact: an artifact update; a status with a taskId
// and no id: a status update; a status: a task; parts or a role: a
// message); 0 when it has none of them.
func (w *Object) kindFromShape() a2a.EventKind {
	switch {
	case w.Artifact.set():
		return a2a.EventArtifact
	case w.Status != nil && w.ID == "" && w.taskID() != "":
		return a2a.EventStatus
	case w.Status != nil:
		return a2a.EventTask
	case len(w.Parts) > 0 || w.Role != "":
		return a2a.EventMessage
	}
	return 0
}
