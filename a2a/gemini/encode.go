package gemini

// The Gemini CLI profile's outgoing messages: the agent settings or the server's ids, and an approval's answer.

import (
	"encoding/json"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/a2a/wire/request"
)

// encode builds the message: the first of a session carries the agent
// settings and no ids, later ones the server's ids; an approval answer is
// the data part {callId, outcome}.
func (s *geminiSession) encode(m a2a.OutMessage) map[string]any {
	s.mu.Lock()
	taskID, contextID := s.taskID, s.contextID
	var await *geminiAwait
	if a := m.Approval; a != nil && len(m.Parts) == 0 {
		for i := range s.awaiting {
			if s.awaiting[i].callID == a.ToolCallID {
				await = &s.awaiting[i]
				break
			}
		}
	}
	s.mu.Unlock()
	out := a2a.OutMessage{Parts: m.Parts, TaskID: taskID, ContextID: contextID}
	if a := m.Approval; a != nil && len(m.Parts) == 0 {
		outcome := "cancel"
		switch {
		case a.Allow && a.Always && await != nil && await.confType == "mcp":
			outcome = "proceed_always_tool"
		case a.Allow && a.Always:
			outcome = "proceed_always"
		case a.Allow:
			outcome = "proceed_once"
		}
		data, _ := json.Marshal(map[string]string{"callId": a.ToolCallID, "outcome": outcome})
		out.Parts = []a2a.Part{{Kind: a2a.PartData, Data: data}}
		s.mu.Lock()
		s.dropAwait(a.ToolCallID)
		s.mu.Unlock()
	}
	msg := request.Message(a2a.V03, out)
	if taskID == "" {
		settings := map[string]any{"kind": "agent-settings"}
		if m.Workspace != "" {
			settings["workspacePath"] = m.Workspace
		}
		msg["metadata"] = map[string]any{"coderAgent": settings}
	}
	return msg
}

// dropAwait forgets a call's approval; s.mu is held.
func (s *geminiSession) dropAwait(callID string) {
	for i := range s.awaiting {
		if s.awaiting[i].callID == callID {
			s.awaiting = append(s.awaiting[:i], s.awaiting[i+1:]...)
			return
		}
	}
}
