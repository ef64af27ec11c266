package acp

// The "type" and "sessionUpdate" discriminators: each is a field of its own
// empty type, so a value cannot carry the wrong one and the encoder (with
// its HTML setting) encodes the rest of the struct as usual.

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

func (tagText) MarshalJSON() ([]byte, error)         { return []byte(`"text"`), nil }
func (tagImage) MarshalJSON() ([]byte, error)        { return []byte(`"image"`), nil }
func (tagResourceLink) MarshalJSON() ([]byte, error) { return []byte(`"resource_link"`), nil }
func (tagContent) MarshalJSON() ([]byte, error)      { return []byte(`"content"`), nil }
func (tagDiff) MarshalJSON() ([]byte, error)         { return []byte(`"diff"`), nil }
func (tagAgentMessageChunk) MarshalJSON() ([]byte, error) {
	return []byte(`"agent_message_chunk"`), nil
}
func (tagAgentThoughtChunk) MarshalJSON() ([]byte, error) {
	return []byte(`"agent_thought_chunk"`), nil
}
func (tagUserMessageChunk) MarshalJSON() ([]byte, error) { return []byte(`"user_message_chunk"`), nil }
func (tagToolCall) MarshalJSON() ([]byte, error)         { return []byte(`"tool_call"`), nil }
func (tagToolCallUpdate) MarshalJSON() ([]byte, error)   { return []byte(`"tool_call_update"`), nil }
func (tagUsageUpdate) MarshalJSON() ([]byte, error)      { return []byte(`"usage_update"`), nil }
func (tagSessionInfoUpdate) MarshalJSON() ([]byte, error) {
	return []byte(`"session_info_update"`), nil
}
func (tagAvailableCommands) MarshalJSON() ([]byte, error) {
	return []byte(`"available_commands_update"`), nil
}
func (tagCurrentMode) MarshalJSON() ([]byte, error)  { return []byte(`"current_mode_update"`), nil }
func (tagConfigOption) MarshalJSON() ([]byte, error) { return []byte(`"config_option_update"`), nil }
func (tagSelect) MarshalJSON() ([]byte, error)       { return []byte(`"select"`), nil }
func (tagNotice) MarshalJSON() ([]byte, error)       { return []byte(`"notice"`), nil }
