package turn

// The turn's output, routed by its machine to whoever owns it now (the
// prompt, the grace buffer, nobody), in order with the prompt's answer.

import (
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
	"github.com/shimdev/shim/bridge/render/notice"
	"github.com/shimdev/shim/steer"
)

// Emit sends an update to whoever owns the turn's output now. The update
// takes its place in the output queue under c.mu (so that it cannot pass
// a buffer being handed over, nor a cancel's answer); the wait for room,
// when the editor is behind, comes after c.mu is let go.
func (c *control) Emit(u acp.Update) { c.output(event{kind: evOutput, item: bufferItem(u)}) }

// emitSettled is Emit for the update that settles an open call: a turn
// given up after its grace window still ends its calls in the editor
// (unless the session was closed).
func (c *control) emitSettled(u acp.Update) {
	c.output(event{kind: evOutput, item: bufferItem(u), settles: true, open: c.env.Thread.Open(c.sess)})
}

func (c *control) output(ev event) {
	c.mu.Lock()
	sent := c.m.apply(ev).deliver && c.send(ev.item.Update)
	c.mu.Unlock()
	if sent {
		c.pace()
	}
}

// emitText sends answer text of one message, like Emit, on the output
// path where queued chunks of the same message merge (stdio.Conn.SendText).
// s may be a stream's frame, valid until the next is read
// (a2aclient.Stream.Share): it is copied into the output queue, and
// copied for the buffer of a detached turn.
func (c *control) emitText(messageID, s string) {
	c.mu.Lock()
	// Attached, the machine delivers without looking at the update; only
	// otherwise is one built (and boxed) for the buffer.
	sent := c.m.phase == attached || c.m.apply(event{kind: evOutput, item: bufferItem(render.AnswerChunk(messageID, strings.Clone(s)))}).deliver
	if sent {
		if err := c.env.Conn.SendText(c.sess.id, messageID, s); err != nil {
			c.env.Log.Debug("update not delivered", "err", err)
			sent = false
		}
	}
	c.mu.Unlock()
	if sent {
		c.pace()
	}
}

// Show routes rendered updates to whoever owns the output now; answer
// text takes the path where queued chunks of one message merge.
func (c *control) Show(outs []render.Out) {
	for _, o := range outs {
		if id, text, ok := o.AnswerText(); ok {
			c.emitText(id, text)
		} else {
			c.Emit(o.Update())
		}
	}
}

// reported turns what the A2A client did on its own in one of the turn's
// calls into a notice (the client advertised notices). It may run on any
// goroutine making a call for the turn, so it renders nothing with the
// turn's renderer and never waits for the editor.
func (c *control) reported(rep a2a.Report) {
	var n notice.Notice
	switch rep.Kind {
	case a2a.ReportTokenRenewed:
		n = notice.RenewedNotice()
	case a2a.ReportRenewalRefused:
		n = notice.RenewalRefusedNotice()
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := n.Update(); c.m.apply(event{kind: evOutput, item: bufferItem(u)}).deliver {
		c.send(u)
	}
}

// bufferItem sizes an update for the detached buffer.
func bufferItem(u acp.Update) steer.Item[acp.Update] {
	switch c := u.(type) {
	case acp.AgentMessageChunk:
		if tc, ok := c.Content.(acp.TextContent); ok {
			return steer.Item[acp.Update]{Update: u, Kind: steer.Text, Size: len(tc.Text)}
		}
	case acp.AgentThoughtChunk:
		if tc, ok := c.Content.(acp.TextContent); ok {
			return steer.Item[acp.Update]{Update: u, Kind: steer.Thought, Size: len(tc.Text)}
		}
	}
	return steer.Item[acp.Update]{Update: u, Kind: steer.Other, Size: 256}
}
