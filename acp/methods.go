package acp

import "github.com/sourcegraph/jsonrpc2"

// Request is a request or a notification from the client.
type Request = jsonrpc2.Request

// ID is a request id.
type ID = jsonrpc2.ID

// Method names.
const (
	MethodInitialize        = "initialize"
	MethodAuthenticate      = "authenticate"
	MethodLogout            = "logout"
	MethodSessionNew        = "session/new"
	MethodSessionLoad       = "session/load"
	MethodSessionResume     = "session/resume"
	MethodSessionClose      = "session/close"
	MethodSessionList       = "session/list"
	MethodSessionPrompt     = "session/prompt"
	MethodSessionCancel     = "session/cancel"
	MethodSessionUpdate     = "session/update"
	MethodRequestPermission = "session/request_permission"

	MethodSessionDelete          = "session/delete"
	MethodSessionSetMode         = "session/set_mode"
	MethodSessionSetConfigOption = "session/set_config_option"
	// MethodSessionSetModel is what older clients send to pick a model
	// (removed from the v1 schema): the model option (SPEC §14).
	MethodSessionSetModel = "session/set_model"
	// MethodSessionSteering is the steering extension editors and other
	// ACP agents share (not in the v1 schema).
	MethodSessionSteering = "_session/steering"
)

// MethodCancelRequest cancels a request of either side.
const MethodCancelRequest = "$/cancel_request"

// CancelRequestParams is $/cancel_request's params.
type CancelRequestParams struct {
	RequestID ID `json:"requestId"`
}
