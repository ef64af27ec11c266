package bridge

// Config options and modes (SPEC §11.2): the permissions picker (ask /
// allow-commands, mirrored as the session's modes) and, with --models, the
// model picker. Per session, in memory, never persisted; a change applies
// from the session's next A2A message, except that auto-approval follows
// the mode at once (parks.go reads it when a park arrives).

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"

	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/session"
	"github.com/shimdev/shim/bridge/sessions"
	"github.com/shimdev/shim/bridge/turn"
)

// Config option ids, mode ids and values.
const (
	configPermissions = "permissions"
	configModel       = "model"
	modeAsk           = "ask"
	modeAllow         = "allow-commands"
	modelDefault      = "default"
)

var permissionChoices = []acp.SelectOption{
	{Value: modeAsk, Name: "Ask every time"},
	{Value: modeAllow, Name: "Allow commands this session"},
}

// modeName is a mode's name as the pickers show it.
func modeName(id string) string {
	for _, o := range permissionChoices {
		if o.Value == id {
			return o.Name
		}
	}
	return id
}

// modes is a session's permissions and model pickers: what they offer,
// and their changes (session/set_mode, set_model, set_config_option).
type modes struct {
	out   *out
	store *sessions.Store
	log   *slog.Logger
	// models are the model ids the agent accepts (--models).
	models []string
}

// sessionSettings is a session's mode and model at one moment.
type sessionSettings struct {
	mode  string
	model string // "" is the agent's default
}

func settingsOf(sess *turn.Session) sessionSettings {
	cur := sess.Settings()
	st := sessionSettings{mode: modeAsk, model: cur.Model}
	if cur.Bypass {
		st.mode = modeAllow
	}
	return st
}

// configOptions is the complete list of a session's options, in SPEC's
// order.
func (m *modes) configOptions(st sessionSettings) []acp.SessionConfigOption {
	out := []acp.SessionConfigOption{{ID: configPermissions, Name: "Permissions", Category: "mode",
		CurrentValue: st.mode, Options: permissionChoices}}
	if len(m.models) > 0 {
		opts := []acp.SelectOption{{Value: modelDefault, Name: "Agent's default"}}
		for _, id := range m.models {
			opts = append(opts, acp.SelectOption{Value: id, Name: id})
		}
		cur := st.model
		if cur == "" {
			cur = modelDefault
		}
		out = append(out, acp.SessionConfigOption{ID: configModel, Name: "Model", Category: "model",
			CurrentValue: cur, Options: opts})
	}
	return out
}

// modeState is a session's modes: always the permissions option's state.
func modeState(st sessionSettings) *acp.SessionModeState {
	ms := &acp.SessionModeState{CurrentModeID: st.mode}
	for _, o := range permissionChoices {
		ms.AvailableModes = append(ms.AvailableModes, acp.SessionMode{ID: o.Value, Name: o.Name})
	}
	return ms
}

// openResult is the answer of new, load and resume: the session's options
// and modes.
func (m *modes) openResult(sess *turn.Session) acp.LoadSessionResult {
	st := settingsOf(sess)
	return acp.LoadSessionResult{ConfigOptions: m.configOptions(st), Modes: modeState(st)}
}

// changed tells the editor of a mode change it did not ask for in
// the picker: current_mode_update and config_option_update (the complete
// list), sent through send.
func (m *modes) changed(sess *turn.Session, send func(acp.Update)) {
	st := settingsOf(sess)
	send(session.CurrentMode(st.mode))
	send(session.ConfigOptions(m.configOptions(st)))
}

// setMode handles session/set_mode; the config picker learns the
// change after the answer.
func (m *modes) setMode(req *acp.Request, p *acp.SetModeParams) {
	sess := m.store.Session(p.SessionID)
	if sess == nil {
		m.out.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	if p.ModeID != modeAsk && p.ModeID != modeAllow {
		m.out.reply(req, nil, acp.InvalidParams("unknown mode "+p.ModeID+": the modes are ask and allow-commands"))
		return
	}
	changed := sess.SetBypass(p.ModeID == modeAllow)
	m.log.Info("session mode set", "session", sess.ID(), "mode", p.ModeID)
	m.out.reply(req, struct{}{}, nil)
	if changed {
		m.out.notify(sess.ID(), session.ConfigOptions(m.configOptions(settingsOf(sess))))
	}
}

// setModel handles session/set_model (older clients; not in the v1
// schema): the model option set as set_config_option sets it, answered
// {}; the model picker hears of it after the answer. A model not offered
// (--models, or "default") is -32602.
func (m *modes) setModel(req *acp.Request, p *acp.SetModelParams) {
	sess := m.store.Session(p.SessionID)
	if sess == nil {
		m.out.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	if len(m.models) == 0 || (p.ModelID != modelDefault && !slices.Contains(m.models, p.ModelID)) {
		m.out.reply(req, nil, acp.InvalidParams("unknown model "+strconv.Quote(p.ModelID)+": the models are those of --models"))
		return
	}
	model := p.ModelID
	if model == modelDefault {
		model = ""
	}
	sess.SetModel(model)
	m.log.Info("session model set", "session", sess.ID(), "model", p.ModelID)
	m.out.reply(req, struct{}{}, nil)
	m.out.notify(sess.ID(), session.ConfigOptions(m.configOptions(settingsOf(sess))))
}

// setConfigOption handles session/set_config_option; the answer is the
// complete list, and the mode picker learns a permissions change after it.
func (m *modes) setConfigOption(req *acp.Request, p *acp.SetConfigOptionParams) {
	sess := m.store.Session(p.SessionID)
	if sess == nil {
		m.out.reply(req, nil, acp.InvalidParams("unknown session "+p.SessionID))
		return
	}
	var value string
	if json.Unmarshal(p.Value, &value) != nil {
		m.out.reply(req, nil, acp.InvalidParams("the value of "+p.ConfigID+" must be one of its option values"))
		return
	}
	modeChanged := false
	switch {
	case p.ConfigID == configPermissions && (value == modeAsk || value == modeAllow):
		modeChanged = sess.SetBypass(value == modeAllow)
	case p.ConfigID == configModel && len(m.models) > 0 && (value == modelDefault || slices.Contains(m.models, value)):
		if value == modelDefault {
			value = ""
		}
		sess.SetModel(value)
	case p.ConfigID == configPermissions || (p.ConfigID == configModel && len(m.models) > 0):
		m.out.reply(req, nil, acp.InvalidParams("unknown value "+value+" for "+p.ConfigID))
		return
	default:
		m.out.reply(req, nil, acp.InvalidParams("unknown config option "+p.ConfigID))
		return
	}
	st := settingsOf(sess)
	m.log.Info("session option set", "session", sess.ID(), "option", p.ConfigID, "value", value)
	m.out.reply(req, acp.SetConfigOptionResult{ConfigOptions: m.configOptions(st)}, nil)
	if modeChanged {
		m.out.notify(sess.ID(), session.CurrentMode(st.mode))
	}
}
