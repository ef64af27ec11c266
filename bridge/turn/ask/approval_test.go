package ask

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// TestDecide: an approval's decision from the park, the kind of the card
// it is about, the session's mode and whether the message asked to
// bypass: approved at once only for a command in allow-commands (the
// person told when the server parked anyway); a delete (by the park's
// words or its card's kind) never bypassed and never offered "always";
// "Allow for this session" is the agent's "always" when it offers one,
// else allow-commands for a command. The dialog's content is the
// approval's own words (SPEC §18), its title the card's.
func TestDecide(t *testing.T) {
	cmd := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Approve shell command?", Detail: "make\nand more"}
	del := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Delete the file?", Always: true}
	plugin := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Use the browser", Always: true}
	named := &a2a.Hitl{Kind: a2a.HitlApproval, Title: "Approve?", ToolCallID: "c1", Always: true}
	for _, tc := range []struct {
		name string
		c    approvalCase
		want string
	}{
		{"command, ask", approvalCase{park: cmd}, `options=[approve approve_session deny] session words="Approve shell command?\n\nmake\nand more"`},
		{"command, allow-commands", approvalCase{park: cmd, bypass: true}, `auto words="Approve shell command?\n\nmake\nand more"`},
		{"command, allow-commands, bypass sent", approvalCase{park: cmd, bypass: true, sentBypass: true}, `auto tell words="Approve shell command?\n\nmake\nand more"`},
		{"delete, allow-commands", approvalCase{park: del, bypass: true}, `options=[approve deny] words="Delete the file?"`},
		{"plugin, agent's always", approvalCase{park: plugin}, `options=[approve approve_session deny] always words="Use the browser"`},
		{"a delete's card", approvalCase{park: named, kind: acp.ToolKindDelete, bypass: true}, `options=[approve deny] words="Approve?"`},
		{"an edit's card", approvalCase{park: named, kind: acp.ToolKindEdit}, `options=[approve approve_session deny] always words="Approve?"`},
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
			if d.options != nil {
				var ids []string
				for _, o := range d.options {
					ids = append(ids, o.OptionID)
				}
				fmt.Fprintf(&b, "options=%v ", ids)
			}
			if d.agentAlways {
				b.WriteString("always ")
			}
			if d.sessionMode {
				b.WriteString("session ")
			}
			fmt.Fprintf(&b, "words=%q", d.words)
			if got := b.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for h, want := range map[*a2a.Hitl]render.ParkCall{
		cmd:    {Kind: acp.ToolKindExecute, Detail: "make\nand more", Words: "Approve shell command?"},
		del:    {Kind: acp.ToolKindDelete, Words: "Delete the file?"},
		plugin: {Kind: acp.ToolKindOther, Words: "Use the browser"},
		named:  {ID: "c1", Kind: acp.ToolKindOther, Words: "Approve?"},
	} {
		if got := parkCall(h); got != want {
			t.Errorf("parkCall(%+v) = %+v, want %+v", h, got, want)
		}
	}
	d := decide(approvalCase{park: cmd})
	for choice, want := range map[string]string{optApprove: "true false false", optApproveSession: "true false true", optDeny: "false false false", "other": "false false false"} {
		if a, al, s := d.answer(choice); fmt.Sprint(a, al, s) != want {
			t.Errorf("answer %s: %v %v %v, want %s", choice, a, al, s, want)
		}
	}
	if _, al, s := decide(approvalCase{park: plugin}).answer(optApproveSession); !al || s {
		t.Error("the agent's always is not allow-commands")
	}
}
