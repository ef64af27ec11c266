// Package agent is a demo A2A agent built on the official Go SDK
// (github.com/a2aproject/a2a-go/v2). It streams the way a real coding agent
// does: reasoning, a tool call, answer text in appended chunks, a final full
// replace of the answer with its token usage. `make demo` runs it, and the
// tests use it as a real A2A 1.0 server (and, with Dialect "0.3", as that
// SDK's 0.3 compatibility server).
//
// What it does depends on words in the prompt:
//
//	fail      the task fails with a provider error (HTTP 429)
//	question  the task parks in input-required with a question; the next
//	          message on that task is the answer
//	approve   the task parks on a hitl-v1 approval of a shell command it
//	          announced (c1, npm test); approved, the command completes
//	slow      the answer streams slowly (for cancel tests and Send Now; the
//	          agent takes steers on /api/chat/sessions/{id}/steer)
//	tool      the answer is preceded by a read_file tool call
//	anything else: a short streamed answer that quotes the prompt
package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Extension identifiers (see the protoAgent wire reference).
const (
	extToolCall   = "https://proto-labs.ai/a2a/ext/tool-call-v1"
	extCost       = "https://proto-labs.ai/a2a/ext/cost-v1"
	mimeReasoning = "application/vnd.protolabs.reasoning-v1+json"
	mimeHitl      = "application/vnd.protolabs.hitl-v1+json"
)

// Options configures the demo agent.
type Options struct {
	// Name is the agent card's name.
	Name string
	// Dialect is "1.0" (default) or "0.3".
	Dialect string
	// Delay is the pause between streamed chunks (default 20 ms).
	Delay time.Duration
	// Binding is "" (JSON-RPC at /a2a) or "http+json" (the HTTP+JSON
	// binding at /rest; 1.0 only).
	Binding string
	// Tenant, with the HTTP+JSON binding, is the card's tenant: every
	// route is under /rest/<tenant>.
	Tenant string
	// NoStreaming makes the card say capabilities.streaming: false.
	NoStreaming bool
	// Extended offers an extended card to authenticated clients: the
	// same card named Name+" (signed in)" with one more skill, "review".
	Extended bool
	// Required declares an extension of this URI with required: true.
	Required string
	// CardPath and EndpointPath, when set, serve the card and the
	// JSON-RPC endpoint where a server hosting several agents keeps them
	// (e.g. /api/.well-known/<agent>/agent-card.json and
	// /api/a2a/<agent>) instead of /.well-known/agent-card.json and /a2a.
	CardPath, EndpointPath string
}

// NewHandler serves the agent card and the JSON-RPC endpoint (/a2a) for an
// agent reachable at baseURL.
func NewHandler(baseURL string, opts Options) http.Handler {
	if opts.Name == "" {
		opts.Name = "Demo Agent"
	}
	if opts.Delay == 0 {
		opts.Delay = 20 * time.Millisecond
	}
	cardPath, endpointPath := a2asrv.WellKnownAgentCardPath, "/a2a"
	if opts.CardPath != "" {
		cardPath = opts.CardPath
	}
	if opts.EndpointPath != "" {
		endpointPath = opts.EndpointPath
	}
	version := a2a.Version
	if opts.Dialect == "0.3" {
		version = "0.3"
	}
	iface := &a2a.AgentInterface{
		URL: strings.TrimSuffix(baseURL, "/") + endpointPath, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: version,
	}
	if opts.Binding == "http+json" {
		iface = &a2a.AgentInterface{URL: strings.TrimSuffix(baseURL, "/") + "/rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON,
			ProtocolVersion: version, Tenant: opts.Tenant}
	}
	card := &a2a.AgentCard{
		Name:                opts.Name,
		Description:         "A demo coding agent that streams its answers",
		Version:             "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{iface},
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		Capabilities: a2a.AgentCapabilities{Streaming: true, Extensions: []a2a.AgentExtension{
			{URI: extToolCall, Description: "tool progress"}, {URI: extCost, Description: "token usage"},
		}},
		Skills: []a2a.AgentSkill{{ID: "chat", Name: "chat", Description: "answers questions about code", Tags: []string{"demo"}}},
	}
	if opts.Required != "" {
		card.Capabilities.Extensions = append(card.Capabilities.Extensions, a2a.AgentExtension{URI: opts.Required, Required: true})
	}
	// Every caller is the one demo user (ListTasks and the extended card
	// are for authenticated users).
	hopts := []a2asrv.RequestHandlerOption{a2asrv.WithCallInterceptors(demoUser{})}
	if opts.Extended {
		card.Capabilities.ExtendedAgentCard = true
		ext := *card
		ext.Name = opts.Name + " (signed in)"
		ext.Skills = append(append([]a2a.AgentSkill{}, card.Skills...), a2a.AgentSkill{ID: "review", Name: "review",
			Description: "reviews a change", Tags: []string{"demo"}, Examples: []string{"review my last commit"}})
		hopts = append(hopts, a2asrv.WithExtendedAgentCard(&ext))
	}
	handler := a2asrv.NewHandler(&executor{opts: opts}, hopts...)
	mux := http.NewServeMux()
	switch {
	case opts.Binding == "http+json":
		rest := a2asrv.NewRESTHandler(handler)
		if opts.Tenant != "" {
			rest = a2asrv.NewTenantRESTHandler("/{*}", handler)
		}
		mux.Handle("/rest/", http.StripPrefix("/rest", rest))
		mux.Handle(a2asrv.WellKnownAgentCardPath, cardHandler(card, opts))
	case opts.Dialect == "0.3":
		mux.Handle(endpointPath, a2av0.NewJSONRPCHandler(handler))
		mux.Handle(cardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
	default:
		mux.Handle(endpointPath, a2asrv.NewJSONRPCHandler(handler))
		mux.Handle(cardPath, cardHandler(card, opts))
	}
	// A steering queue (the operator API shim posts Send Now's text to):
	// the demo takes every steer, and shim runs what is still queued at
	// the end of the turn as the next turn.
	mux.HandleFunc("POST /api/chat/sessions/{id}/steer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	})
	mux.HandleFunc("DELETE /api/chat/sessions/{id}/steer/{steer}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"removed": true}`)
	})
	return mux
}

// cardHandler serves the 1.0 card; with NoStreaming it says
// capabilities.streaming: false out loud (the SDK omits a false flag).
func cardHandler(card *a2a.AgentCard, opts Options) http.Handler {
	if !opts.NoStreaming {
		return a2asrv.NewStaticAgentCardHandler(card)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := *card
		c.Capabilities.Streaming = false
		b, _ := json.Marshal(&c)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		caps, _ := m["capabilities"].(map[string]any)
		if caps == nil {
			caps = map[string]any{}
			m["capabilities"] = caps
		}
		caps["streaming"] = false
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m)
	})
}

// demoUser signs every call in as the demo user.
type demoUser struct {
	a2asrv.PassthroughCallInterceptor
}

func (demoUser) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("demo", nil)
	return ctx, nil, nil
}

type executor struct{ opts Options }

func (e *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		prompt := textOf(ec.Message)
		resumed := ec.StoredTask != nil
		if !resumed {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		s := &script{ctx: ctx, ec: ec, yield: yield, delay: e.opts.Delay}
		lower := strings.ToLower(prompt)
		switch {
		case resumed:
			if prompt == "approved" {
				// The approved command runs (the approve scenario's c1).
				s.tool("c1", "run_command", "completed", "", "12 passing")
			}
			s.answer("You answered: " + prompt + ". Done.")
		case strings.Contains(lower, "fail"):
			s.think("Calling the model.")
			s.emit(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, agentMessage(ec, a2a.NewTextPart(
				"Error code: 429 - {'error': {'type': 'usage_limit_reached', 'message': 'The usage limit has been reached', 'resets_at': 1790758625, 'eligible_promo': None}}"))))
		case strings.Contains(lower, "question"):
			s.think("I need to know the branch.")
			s.emit(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, agentMessage(ec,
				a2a.NewTextPart("Which branch?"), dataPart(mimeHitl, map[string]any{"question": "Which branch?"}))))
		case strings.Contains(lower, "approve"):
			s.think("I want to run the tests.")
			s.tool("c1", "run_command", "started", `{"command": "npm test"}`, "")
			s.emit(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, agentMessage(ec,
				a2a.NewTextPart("Approve shell command?"), dataPart(mimeHitl, map[string]any{
					"kind": "approval", "title": "Approve shell command?", "detail": "npm test\n\nruns via: /bin/sh -c"}))))
		case strings.Contains(lower, "slow"):
			s.delay = 100 * time.Millisecond
			s.answer(strings.Repeat("Still working on it. ", 20))
		case strings.Contains(lower, "tool"):
			s.think("Reading the README first.")
			s.tool("c1", "read_file", "started", "", "")
			s.tool("c1", "read_file", "started", `{"path": "README.md", "offset": 1, "limit": 20}`, "")
			s.tool("c1", "read_file", "completed", "", "# Demo\nA demo project.")
			s.answer("The README says it is a demo project.")
		default:
			s.think("Thinking about: " + prompt)
			s.answer("You asked: " + prompt + "\nHere is a streamed answer in several chunks.")
		}
	}
}

func (e *executor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// script emits one scenario's events.
type script struct {
	ctx     context.Context
	ec      *a2asrv.ExecutorContext
	yield   func(a2a.Event, error) bool
	delay   time.Duration
	stopped bool
}

func (s *script) emit(ev a2a.Event) {
	if s.stopped {
		return
	}
	if !s.yield(ev, nil) {
		s.stopped = true
		return
	}
	select {
	case <-time.After(s.delay):
	case <-s.ctx.Done():
		s.stopped = true
	}
}

func (s *script) think(text string) {
	s.emit(a2a.NewStatusUpdateEvent(s.ec, a2a.TaskStateWorking,
		agentMessage(s.ec, dataPart(mimeReasoning, map[string]any{"text": text}))))
}

func (s *script) tool(id, name, phase, args, result string) {
	payload := map[string]any{"toolCallId": id, "name": name, "phase": phase}
	if phase == "started" {
		payload["args"] = args
	} else {
		payload["result"] = result
	}
	m := agentMessage(s.ec)
	m.Metadata = map[string]any{extToolCall: payload}
	s.emit(a2a.NewStatusUpdateEvent(s.ec, a2a.TaskStateWorking, m))
}

// answer streams text as appended chunks of one artifact, then restates
// it in a final replace carrying the usage, then completes.
func (s *script) answer(text string) {
	id := a2a.ArtifactID(string(s.ec.TaskID) + "-answer")
	words := strings.SplitAfter(text, " ")
	for i := 0; i < len(words); i += 3 {
		end := min(i+3, len(words))
		chunk := strings.Join(words[i:end], "")
		if i == 0 {
			chunk = "\n\n" + chunk
		}
		ev := a2a.NewArtifactUpdateEvent(s.ec, id, a2a.NewTextPart(chunk))
		ev.Append = i > 0
		s.emit(ev)
	}
	final := a2a.NewArtifactUpdateEvent(s.ec, id, a2a.NewTextPart(text))
	final.Append = false
	final.LastChunk = true
	final.Artifact.Metadata = map[string]any{extCost: map[string]any{
		"usage":      map[string]any{"input_tokens": 1200, "output_tokens": 85, "cache_read_input_tokens": 1000},
		"durationMs": 900, "costUsd": 0.0123, "success": true,
	}}
	s.emit(final)
	s.emit(a2a.NewStatusUpdateEvent(s.ec, a2a.TaskStateCompleted, nil))
}

func agentMessage(ec *a2asrv.ExecutorContext, parts ...*a2a.Part) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
}

func dataPart(mime string, v map[string]any) *a2a.Part {
	p := a2a.NewDataPart(v)
	p.MediaType = "application/json"
	p.Metadata = map[string]any{"mimeType": mime}
	return p
}

// textOf is the user's text, without the editor-context preamble shim
// puts before a first prompt.
func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		b.WriteString(p.Text())
	}
	s := b.String()
	if strings.HasPrefix(s, "[Context:") {
		if _, rest, ok := strings.Cut(s, "]\n\n"); ok {
			s = rest
		}
	}
	return s
}

// Describe is a one-line summary for logs.
func Describe(opts Options) string {
	return fmt.Sprintf("%s (A2A %s, a2a-go v2.3.1)", opts.Name, map[bool]string{true: "0.3", false: "1.0"}[opts.Dialect == "0.3"])
}
