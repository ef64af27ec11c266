package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/shimdev/shim/acp"
)

// recorder is a Handler that writes down each typed call it gets (and
// answers it with an empty result when asked to).
type recorder struct {
	unserved
	calls chan string
}

func (r *recorder) note(ctx context.Context, req *acp.Request, format string, args ...any) {
	if req.Params != nil {
		format += " (params kept)"
	}
	if tr := acp.TraceOf(ctx); tr != (acp.Trace{}) {
		format += fmt.Sprintf(" trace=%s,%s", tr.Parent, tr.State)
	}
	r.calls <- fmt.Sprintf(format, args...)
	if !req.Notif {
		_ = r.c.Reply(req, struct{}{}, nil)
	}
}

func (r *recorder) Initialize(ctx context.Context, req *acp.Request, p *acp.InitializeParams) {
	name := "-"
	if p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	r.note(ctx, req, "Initialize %s", name)
}

func (r *recorder) Authenticate(ctx context.Context, req *acp.Request, p *acp.AuthenticateParams) {
	r.note(ctx, req, "Authenticate %q", p.MethodID)
}

func (r *recorder) Logout(ctx context.Context, req *acp.Request) { r.note(ctx, req, "Logout") }

func (r *recorder) NewSession(ctx context.Context, req *acp.Request, p *acp.NewSessionParams) {
	r.note(ctx, req, "NewSession %s", p.CWD)
}

func (r *recorder) ListSessions(ctx context.Context, req *acp.Request, p *acp.ListParams) {
	r.note(ctx, req, "ListSessions %s", p.CWD)
}

func (r *recorder) Session(ctx context.Context, c acp.SessionCall) {
	call := "Session " + c.SessionID
	if tr := acp.TraceOf(ctx); tr != (acp.Trace{}) {
		call += fmt.Sprintf(" trace=%s,%s", tr.Parent, tr.State)
	}
	r.calls <- call
	c.Serve(r)
}

func (r *recorder) Prompt(req *acp.Request, p *acp.PromptParams) {
	r.note(context.Background(), req, "Prompt %s %s", p.SessionID, p.Prompt[0].C.Text)
}

func (r *recorder) Cancel(req *acp.Request, p *acp.SessionParams) {
	r.note(context.Background(), req, "Cancel %s", p.SessionID)
}
func (r *recorder) Load(req *acp.Request, p *acp.SessionParams) {
	r.note(context.Background(), req, "Load %s %s", p.SessionID, p.CWD)
}
func (r *recorder) Resume(req *acp.Request, p *acp.SessionParams) {
	r.note(context.Background(), req, "Resume %s", p.SessionID)
}
func (r *recorder) Close(req *acp.Request, p *acp.SessionParams) {
	r.note(context.Background(), req, "Close %s", p.SessionID)
}
func (r *recorder) Delete(req *acp.Request, p *acp.SessionParams) {
	r.note(context.Background(), req, "Delete %s", p.SessionID)
}
func (r *recorder) SetMode(req *acp.Request, p *acp.SetModeParams) {
	r.note(context.Background(), req, "SetMode %s %s", p.SessionID, p.ModeID)
}
func (r *recorder) SetConfigOption(req *acp.Request, p *acp.SetConfigOptionParams) {
	r.note(context.Background(), req, "SetConfigOption %s %s %s", p.SessionID, p.ConfigID, p.Value)
}
func (r *recorder) SetModel(req *acp.Request, p *acp.SetModelParams) {
	r.note(context.Background(), req, "SetModel %s %s", p.SessionID, p.ModelID)
}
func (r *recorder) Steer(req *acp.Request, p *acp.SteeringParams) {
	r.note(context.Background(), req, "Steer %s %s", p.SessionID, p.Prompt[0].C.Text)
}

// TestDispatch: each method reaches its family's typed handler with its
// params decoded (and dropped from the request); a call about a session
// goes through Handler.Session with the session's id, refused params
// included; params a method needs and cannot decode are answered -32602
// with the method's message (initialize's with the decoder's), the
// lenient ones are read as far as they decode; an unknown method is
// -32601 and an unknown notification is ignored.
func TestDispatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string // the request, id 1 unless a notification
		calls []string
		code  int64  // the error answered, 0 for a result or none
		msg   string // its message's start
	}{
		{"initialize", `{"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed"}}}`, []string{"Initialize zed"}, 0, ""},
		{"initialize without params", `{"method":"initialize"}`, []string{"Initialize -"}, 0, ""},
		{"initialize, params that do not decode", `{"method":"initialize","params":{"clientInfo":5}}`, nil, acp.CodeInvalidParams, "Invalid params: json: cannot unmarshal number"},
		{"authenticate, lenient", `{"method":"authenticate","params":{"methodId":5}}`, []string{`Authenticate ""`}, 0, ""},
		{"logout", `{"method":"logout","params":{"x":1}}`, []string{"Logout"}, 0, ""},
		{"session/new", `{"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, []string{"NewSession /w"}, 0, ""},
		{"session/new without params", `{"method":"session/new"}`, nil, acp.CodeInvalidParams, "Invalid params: session/new needs {cwd, mcpServers}"},
		{"session/new, params that do not decode", `{"method":"session/new","params":{"cwd":7}}`, nil, acp.CodeInvalidParams, "Invalid params: session/new needs {cwd, mcpServers}"},
		{"session/list", `{"method":"session/list","params":{"cwd":"/w"}}`, []string{"ListSessions /w"}, 0, ""},
		{"session/prompt", `{"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`, []string{"Session s1", "Prompt s1 hi"}, 0, ""},
		{"session/prompt refused in its session", `{"method":"session/prompt","params":{"sessionId":"s1","prompt":"hi"}}`, []string{"Session s1"}, acp.CodeInvalidParams, "Invalid params: session/prompt needs {sessionId, prompt}"},
		{"session/prompt without params", `{"method":"session/prompt"}`, []string{"Session "}, acp.CodeInvalidParams, "Invalid params: session/prompt needs {sessionId, prompt}"},
		{"session/cancel", `{"method":"session/cancel","params":{"sessionId":"s1"}}`, []string{"Session s1", "Cancel s1"}, 0, ""},
		{"session/load", `{"method":"session/load","params":{"sessionId":"s1","cwd":"/w","mcpServers":[]}}`, []string{"Session s1", "Load s1 /w"}, 0, ""},
		{"session/load, lenient", `{"method":"session/load","params":{"sessionId":"s1","cwd":3}}`, []string{"Session s1", "Load s1 "}, 0, ""},
		{"session/resume", `{"method":"session/resume","params":{"sessionId":"s1","cwd":"/w"}}`, []string{"Session s1", "Resume s1"}, 0, ""},
		{"session/close", `{"method":"session/close","params":{"sessionId":"s1"}}`, []string{"Session s1", "Close s1"}, 0, ""},
		{"session/delete", `{"method":"session/delete","params":{"sessionId":"s1"}}`, []string{"Session s1", "Delete s1"}, 0, ""},
		{"session/set_mode", `{"method":"session/set_mode","params":{"sessionId":"s1","modeId":"ask"}}`, []string{"Session s1", "SetMode s1 ask"}, 0, ""},
		{"session/set_mode refused", `{"method":"session/set_mode","params":{"sessionId":"s1","modeId":1}}`, []string{"Session s1"}, acp.CodeInvalidParams, "Invalid params: session/set_mode needs {sessionId, modeId}"},
		{"session/set_config_option", `{"method":"session/set_config_option","params":{"sessionId":"s1","configId":"model","value":"m"}}`, []string{"Session s1", `SetConfigOption s1 model "m"`}, 0, ""},
		{"session/set_config_option refused", `{"method":"session/set_config_option"}`, []string{"Session "}, acp.CodeInvalidParams, "Invalid params: session/set_config_option needs {sessionId, configId, value}"},
		{"session/set_model", `{"method":"session/set_model","params":{"sessionId":"s1","modelId":"m"}}`, []string{"Session s1", "SetModel s1 m"}, 0, ""},
		{"session/set_model refused", `{"method":"session/set_model","params":{"sessionId":"s1","modelId":2}}`, []string{"Session s1"}, acp.CodeInvalidParams, "Invalid params: session/set_model needs {sessionId, modelId}"},
		{"_session/steering", `{"method":"_session/steering","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`, []string{"Session s1", "Steer s1 go"}, 0, ""},
		{"_session/steering refused", `{"method":"_session/steering","params":{"sessionId":"s1","prompt":{}}}`, []string{"Session s1"}, acp.CodeInvalidParams, "Invalid params: _session/steering needs {sessionId, prompt}"},
		// W3C trace context in _meta reaches every handler in its
		// request's context; a _meta of another shape is no trace and
		// refuses nothing.
		{"initialize, traced", `{"method":"initialize","params":{"protocolVersion":1,"_meta":{"traceparent":"tp","tracestate":"ts"}}}`, []string{"Initialize - trace=tp,ts"}, 0, ""},
		{"authenticate, traced", `{"method":"authenticate","params":{"methodId":"m","_meta":{"traceparent":"tp"}}}`, []string{`Authenticate "m" trace=tp,`}, 0, ""},
		{"logout, traced", `{"method":"logout","params":{"_meta":{"traceparent":"tp","tracestate":"ts"}}}`, []string{"Logout trace=tp,ts"}, 0, ""},
		{"session/new, traced", `{"method":"session/new","params":{"cwd":"/w","mcpServers":[],"_meta":{"traceparent":"tp","tracestate":"ts","other":1}}}`, []string{"NewSession /w trace=tp,ts"}, 0, ""},
		{"session/new, _meta not an object", `{"method":"session/new","params":{"cwd":"/w","mcpServers":[],"_meta":[1]}}`, []string{"NewSession /w"}, 0, ""},
		{"session/new, a traceparent not a string", `{"method":"session/new","params":{"cwd":"/w","mcpServers":[],"_meta":{"traceparent":5,"tracestate":"ts"}}}`, []string{"NewSession /w trace=,ts"}, 0, ""},
		{"session/list, traced", `{"method":"session/list","params":{"_meta":{"traceparent":"tp"}}}`, []string{"ListSessions  trace=tp,"}, 0, ""},
		{"session/prompt, traced", `{"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}],"_meta":{"traceparent":"tp","tracestate":"ts"}}}`, []string{"Session s1 trace=tp,ts", "Prompt s1 hi"}, 0, ""},
		{"session/cancel, traced", `{"method":"session/cancel","params":{"sessionId":"s1","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "Cancel s1"}, 0, ""},
		{"session/load, traced", `{"method":"session/load","params":{"sessionId":"s1","cwd":"/w","mcpServers":[],"_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "Load s1 /w"}, 0, ""},
		{"session/resume, traced", `{"method":"session/resume","params":{"sessionId":"s1","cwd":"/w","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "Resume s1"}, 0, ""},
		{"session/close, traced", `{"method":"session/close","params":{"sessionId":"s1","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "Close s1"}, 0, ""},
		{"session/delete, traced", `{"method":"session/delete","params":{"sessionId":"s1","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "Delete s1"}, 0, ""},
		{"session/set_mode, traced", `{"method":"session/set_mode","params":{"sessionId":"s1","modeId":"ask","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "SetMode s1 ask"}, 0, ""},
		{"session/set_model, traced", `{"method":"session/set_model","params":{"sessionId":"s1","modelId":"m","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "SetModel s1 m"}, 0, ""},
		{"session/set_config_option, traced", `{"method":"session/set_config_option","params":{"sessionId":"s1","configId":"model","value":"m","_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", `SetConfigOption s1 model "m"`}, 0, ""},
		{"_session/steering, traced", `{"method":"_session/steering","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}],"_meta":{"traceparent":"tp"}}}`, []string{"Session s1 trace=tp,", "Steer s1 go"}, 0, ""},
		{"unknown method", `{"method":"x/y","params":{}}`, nil, acp.CodeMethodNotFound, "Method not found: x/y"},
		{"unknown notification", `{"method":"$/x","params":{}}`, nil, 0, ""},
		{"a known method as a notification", `{"method":"session/cancel","params":{"sessionId":"s2"}}`, []string{"Session s2", "Cancel s2"}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			c := NewConn(inR, outW, slog.New(slog.DiscardHandler))
			r := &recorder{unserved: unserved{c}, calls: make(chan string, 8)}
			c.Start(context.Background(), r)
			t.Cleanup(func() { inW.Close(); <-c.Done(); outW.Close() })
			lines := bufio.NewScanner(outR)

			line := strings.Replace(tc.line, "{", `{"jsonrpc":"2.0",`, 1)
			notif := strings.HasPrefix(tc.name, "unknown notification") || strings.Contains(tc.name, "as a notification")
			if !notif {
				line = strings.Replace(line, "{", `{"id":1,`, 1)
			}
			// A notification is followed by a request, so that what the
			// notification did (or did not) is known when it is answered.
			if _, err := io.WriteString(inW, line+"\n"+`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cwd":"/end"}}`+"\n"); err != nil {
				t.Fatal(err)
			}
			var got []string
			answered := false
			var answer struct {
				ID    json.RawMessage `json:"id"`
				Error *acp.Error      `json:"error"`
			}
			for {
				if !lines.Scan() {
					t.Fatalf("no answer: %v", lines.Err())
				}
				answer.ID, answer.Error = nil, nil
				if err := json.Unmarshal(lines.Bytes(), &answer); err != nil {
					t.Fatal(err)
				}
				if string(answer.ID) == "2" {
					break
				}
				if notif || string(answer.ID) != "1" {
					t.Fatalf("unexpected answer %s", lines.Bytes())
				}
				answered = true
				var code int64
				var msg string
				if answer.Error != nil {
					code, msg = answer.Error.Code, answer.Error.Message
				}
				if code != tc.code || !strings.HasPrefix(msg, tc.msg) {
					t.Errorf("answer %d %q, want %d %q…", code, msg, tc.code, tc.msg)
				}
			}
			if !notif && !answered {
				t.Errorf("request 1 not answered")
			}
			for len(r.calls) > 0 {
				if call := <-r.calls; call != "ListSessions /end" {
					got = append(got, call)
				}
			}
			if strings.Join(got, "; ") != strings.Join(tc.calls, "; ") {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
		})
	}
}
