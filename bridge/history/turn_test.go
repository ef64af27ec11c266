package history

import (
	"slices"
	"strings"
	"testing"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/past"
)

// TestByLongestHistoryKeepsOwnTurns: turns that hold only their own
// messages (most agents) keep the server's order when timestamps are
// missing; only the turns the longest history holds are put in its order.
func TestByLongestHistoryKeepsOwnTurns(t *testing.T) {
	msg := func(id string) a2a.Message { return a2a.Message{ID: id, Role: "user"} }
	turn := func(task string, ids ...string) past.Turn {
		p := past.Turn{TaskID: task}
		for _, id := range ids {
			p.History = append(p.History, msg(id))
		}
		return p
	}
	order := func(ts []past.Turn) string {
		var ids []string
		for _, p := range ts {
			ids = append(ids, p.TaskID)
		}
		return strings.Join(ids, " ")
	}
	for _, tc := range []struct {
		name string
		in   []past.Turn
		want string
	}{
		{"own messages only", []past.Turn{turn("t1", "u1"), turn("t2", "u2", "a2", "b2"), turn("t3", "u3")}, "t1 t2 t3"},
		{"whole history, oldest last", []past.Turn{turn("t3", "u1", "a1", "u2", "a2", "u3"), turn("t2", "u1", "a1", "u2"),
			turn("x", "v1"), turn("t1", "u1")}, "t1 t2 x t3"},
		{"no ids", []past.Turn{turn("t2", "", ""), turn("t1", "")}, "t2 t1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := slices.Clone(tc.in)
			oldestFirst(ts)
			if got := order(ts); got != tc.want {
				t.Errorf("order %q, want %q", got, tc.want)
			}
		})
	}
}
