package acp

// The "type" and "sessionUpdate" discriminators: each is a field of its own
// empty type, so a value cannot carry the wrong one and the encoder (with
// its HTML setting) encodes the rest of the struct as usual. A tag is
// text (encoding.TextMarshaler), not JSON: the encoder writes it as a
// string at once, where a json.Marshaler's output is checked and
// compacted again (twice for each update a replay writes).

type (
	tagText              struct{}
	tagImage             struct{}
	tagResourceLink      struct{}
	tagContent           struct{}
	tagDiff              struct{}
	tagAgentMessageChunk struct{}
	tagAgentThoughtChunk struct{}
	tagUserMessageChunk  struct{}
	tagToolCall          struct{}
	tagToolCallUpdate    struct{}
	tagUsageUpdate       struct{}
	tagSessionInfoUpdate struct{}
	tagAvailableCommands struct{}
	tagCurrentMode       struct{}
	tagConfigOption      struct{}
	tagSelect            struct{}
	tagNotice            struct{}
)

func (tagText) MarshalText() ([]byte, error)              { return []byte("text"), nil }
func (tagImage) MarshalText() ([]byte, error)             { return []byte("image"), nil }
func (tagResourceLink) MarshalText() ([]byte, error)      { return []byte("resource_link"), nil }
func (tagContent) MarshalText() ([]byte, error)           { return []byte("content"), nil }
func (tagDiff) MarshalText() ([]byte, error)              { return []byte("diff"), nil }
func (tagAgentMessageChunk) MarshalText() ([]byte, error) { return []byte("agent_message_chunk"), nil }
func (tagAgentThoughtChunk) MarshalText() ([]byte, error) { return []byte("agent_thought_chunk"), nil }
func (tagUserMessageChunk) MarshalText() ([]byte, error)  { return []byte("user_message_chunk"), nil }
func (tagToolCall) MarshalText() ([]byte, error)          { return []byte("tool_call"), nil }
func (tagToolCallUpdate) MarshalText() ([]byte, error)    { return []byte("tool_call_update"), nil }
func (tagUsageUpdate) MarshalText() ([]byte, error)       { return []byte("usage_update"), nil }
func (tagSessionInfoUpdate) MarshalText() ([]byte, error) { return []byte("session_info_update"), nil }
func (tagAvailableCommands) MarshalText() ([]byte, error) {
	return []byte("available_commands_update"), nil
}
func (tagCurrentMode) MarshalText() ([]byte, error)  { return []byte("current_mode_update"), nil }
func (tagConfigOption) MarshalText() ([]byte, error) { return []byte("config_option_update"), nil }
func (tagSelect) MarshalText() ([]byte, error)       { return []byte("select"), nil }
func (tagNotice) MarshalText() ([]byte, error)       { return []byte("notice"), nil }
