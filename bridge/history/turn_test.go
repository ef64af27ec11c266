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

// TestSettle: a turn the index says failed live is failed while the server
// keeps its task running (submitted, working, or no state), its text the
// index's; a turn the server says ended or parked keeps the server's word,
// and a turn the index says nothing of is left as it is.
func TestSettle(t *testing.T) {
	ts := []past.Turn{
		{TaskID: "t-working", State: a2a.StateWorking, Status: a2a.Status{State: a2a.StateWorking}},
		{TaskID: "t-submitted", State: a2a.StateSubmitted},
		{TaskID: "t-done", State: a2a.StateCompleted, Status: a2a.Status{State: a2a.StateCompleted, Message: &a2a.Message{ID: "m"}}},
		{TaskID: "t-parked", State: a2a.StateInputRequired},
		{TaskID: "t-other", State: a2a.StateWorking},
	}
	failures := map[string]string{"t-working": "The usage limit has been reached", "t-submitted": "boom", "t-done": "x", "t-parked": "y"}
	Settle(ts, failures)
	var got []string
	for _, p := range ts {
		got = append(got, string(p.State)+":"+p.Status.Message.Text())
	}
	want := []string{string(a2a.StateFailed) + ":The usage limit has been reached", string(a2a.StateFailed) + ":boom",
		string(a2a.StateCompleted) + ":", string(a2a.StateInputRequired) + ":", string(a2a.StateWorking) + ":"}
	if !slices.Equal(got, want) {
		t.Errorf("settled %q, want %q", got, want)
	}
}
