package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/acp/stdio"
)

// out is the way to the editor every value shares: replies and session
// updates written through the one connection, and the connection's
// lifetime (ctx, cancelled once the editor is gone). conn and ctx are set
// once, before the connection serves its first call.
type out struct {
	conn *stdio.Conn
	ctx  context.Context
	log  *slog.Logger
}

// reply answers a request (never a notification). It never waits on the
// editor.
func (o *out) reply(req *acp.Request, result any, err error) {
	if req.Notif {
		return
	}
	var rerr *acp.Error
	if err != nil {
		if !errors.As(err, &rerr) {
			rerr = acp.Internal(err.Error(), nil)
		}
		o.logFailure(req.Method, rerr)
	}
	if werr := o.conn.Reply(req, result, rerr); werr != nil {
		o.log.Debug("reply failed", "err", werr)
	}
}

// logFailure puts a failure the editor is told about into the log too
// (editors show ACP errors briefly, if at all; the recipes point at the
// log): failed turns, an unreachable agent, a refused token, a busy
// timeout at warn, once, before the answer; a malformed request at debug.
func (o *out) logFailure(method string, e *acp.Error) {
	var data struct {
		State string `json:"state"`
	}
	if e.Data != nil {
		_ = json.Unmarshal(*e.Data, &data)
	}
	switch e.Code {
	case acp.CodeInternal, acp.CodeAuthRequired:
		o.log.Warn("request failed", "method", method, "code", e.Code, "state", data.State, "err", e.Message)
	default:
		o.log.Debug("request refused", "method", method, "code", e.Code, "err", e.Message)
	}
}

// notify sends one session/update (and waits while the editor is behind).
func (o *out) notify(sessionID string, update acp.Update) {
	if err := o.conn.Notify(sessionID, update); err != nil {
		o.log.Debug("update not delivered", "err", err)
	}
}

// send sends one session/update without waiting for the editor.
func (o *out) send(sessionID string, update acp.Update) {
	if err := o.conn.Send(sessionID, update); err != nil {
		o.log.Debug("update not delivered", "err", err)
	}
}
