package ask

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// TestDecide: an approval's decision from the park, the call it names,
// the session's mode and whether the message asked to bypass: approved
// at once only for a command in allow-commands (the person told when the
// server parked anyway); a delete never bypassed and never offered
// "always"; asked on the named call's own view, else on a pending view
// of its own; "Allow for this session" is the agent's "always" when it
// offers one, else allow-commands for a command.
func TestDecide(t *testing.T) {
	cmd := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Approve shell command?", Detail: "make\nand more"}
	del := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Delete the file?", Always: true}
	plugin := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Use the browser", Always: true}
	named := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Approve?", ToolCallID: "c1", Always: true}
	own := render.OpenCall{Kind: acp.ToolKindDelete, RawInput: json.RawMessage(`{"path":"x"}`)}
	for _, tc := range []struct {
		name string
		c    approvalCase
		want string
	}{
		{"command, ask", approvalCase{park: cmd, viewID: "v"}, `call=v view=execute:"Approve shell command? make" options=[approve approve_session deny] session`},
		{"command, allow-commands", approvalCase{park: cmd, bypass: true, viewID: "v"}, `auto call=v view=execute:"Approve shell command? make"`},
		{"command, allow-commands, bypass sent", approvalCase{park: cmd, bypass: true, sentBypass: true, viewID: "v"}, `auto tell call=v view=execute:"Approve shell command? make"`},
		{"delete, allow-commands", approvalCase{park: del, bypass: true, viewID: "v"}, `call=v view=delete:"Delete the file?" options=[approve deny]`},
		{"plugin, agent's always", approvalCase{park: plugin, viewID: "v"}, `call=v view=other:"Use the browser" options=[approve approve_session deny] always`},
		{"the named call's own view, a delete", approvalCase{park: named, own: own, ownOK: true, bypass: true, viewID: "v"}, `call=c1 options=[approve deny]`},
		{"the named call's own view", approvalCase{park: named, own: render.OpenCall{Kind: acp.ToolKindEdit}, ownOK: true, viewID: "v"}, `call=c1 options=[approve approve_session deny] always`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(tc.c)
			var b strings.Builder
			if d.auto {
				b.WriteString("auto ")
			}
			if d.tellNoSkip {
				b.WriteString("tell ")
			}
			b.WriteString("call=" + d.callID)
			if v, ok := d.view.(acp.ToolCall); ok {
				fmt.Fprintf(&b, " view=%s:%q", v.Kind, v.Title)
			}
			if d.options != nil {
				var ids []string
				for _, o := range d.options {
					ids = append(ids, o.OptionID)
				}
				fmt.Fprintf(&b, " options=%v", ids)
			}
			if d.agentAlways {
				b.WriteString(" always")
			}
			if d.sessionMode {
				b.WriteString(" session")
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	d := decide(approvalCase{park: cmd, viewID: "v"})
	for choice, want := range map[string]string{optApprove: "true false false", optApproveSession: "true false true", optDeny: "false false false", "other": "false false false"} {
		if a, al, s := d.answer(choice); fmt.Sprint(a, al, s) != want {
			t.Errorf("answer %s: %v %v %v, want %s", choice, a, al, s, want)
		}
	}
	if _, al, s := decide(approvalCase{park: plugin}).answer(optApproveSession); !al || s {
		t.Error("the agent's always is not allow-commands")
	}
}
