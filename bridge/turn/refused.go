package turn

// A refused cancel (SPEC §16): a turn given up ends cancelled at once,
// but the agent may refuse to cancel its task (-32002 TaskNotCancelable,
// -32004, any error; Strands Agents and Google ADK refuse every cancel)
// and run on. The person is told the agent may still be finishing that
// turn, and the next prompt on the session, sent while that task still
// runs, says before the agent's answer that the earlier turn is still
// finishing. A refusal of a task already over says nothing.

import (
	"context"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/render/notice"
)

// earlier is the task of a turn given up, while its cancel is asked and
// after the agent refused it.
type earlier struct {
	taskID string
	done   chan struct{} // closed once the cancel was answered
	// refused: the agent refused the cancel while the task ran; told: the
	// person was told then (a notice). Both are set before done closes.
	refused, told bool
}

// cancelGivenUp asks the agent to cancel the task of a turn given up on
// the session sess, and records the answer for the session's next turn:
// refused while the task is not over (as GetTask says), the person is
// told at once when the client draws notices, and the log says once what
// the agent did.
func (env *Env) cancelGivenUp(ctx context.Context, sess *Session, e *earlier) {
	defer close(e.done)
	ctx = context.WithoutCancel(ctx)
	err := env.Client.CancelTask(ctx, e.taskID)
	if err == nil {
		return
	}
	env.Log.Debug("CancelTask", "task", e.taskID, "err", err)
	if over(ctx, env, e.taskID) {
		return // over already: nothing to tell
	}
	e.refused = true
	env.Client.Departed(a2a.DepartureCancelRefused, "task", e.taskID, "err", err)
	if env.Draws.Notices {
		if env.Conn.Send(sess.id, notice.CancelRefusedNotice().Update()) == nil {
			e.told = true
		}
	}
}

// over reports whether the agent says the task is in a terminal state.
func over(ctx context.Context, env *Env, taskID string) bool {
	t, err := env.Client.GetTask(ctx, taskID, 0)
	return err == nil && t != nil && t.Status.State.Terminal()
}

// stillFinishing is the check the next turn makes of an earlier turn
// whose cancel was refused, while its own message is sent.
type stillFinishing chan earlierSaid

// earlierSaid is what the check found: the cancel refused, the person
// told then, the task still running.
type earlierSaid struct{ refused, told, still bool }

// checkEarlier starts the next turn's check of the session's earlier
// turn given up (nil when there is none): it waits for that cancel's
// answer and, when the agent refused it, asks whether the task still
// runs, in parallel with the turn's own message.
func (d *driver) checkEarlier() {
	e := d.sess.takeEarlier()
	if e == nil {
		return
	}
	ch := make(stillFinishing, 1)
	d.earlier, d.earlierCheck = e, ch
	go func() {
		select {
		case <-e.done:
		case <-d.ctx.Done():
			ch <- earlierSaid{}
			return
		}
		ch <- earlierSaid{refused: e.refused, told: e.told, still: e.refused && !over(d.ctx, d.env, e.taskID)}
	}()
}

// sayEarlier, before the turn's first frame is shown, tells the person
// of the earlier turn whose cancel the agent refused: that it may still
// be finishing (when no notice said so), and that it still is.
func (d *driver) sayEarlier() {
	ch := d.earlierCheck
	if ch == nil {
		return
	}
	d.earlierCheck = nil
	var got earlierSaid
	select {
	case got = <-ch:
	case <-d.ctx.Done():
		return
	}
	if got.refused && !got.told {
		d.ctl.Show(d.r.Notices.Say(notice.CancelRefusedNotice()))
	}
	if got.still {
		d.env.Log.Info("the earlier turn the agent did not cancel is still running", "session", d.sess.id, "task", d.earlier.taskID)
		d.ctl.Show(d.r.Notices.Say(notice.StillFinishingNotice()))
	}
}
