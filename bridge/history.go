package bridge

// Thread history: session/list, session/load, session/resume and
// session/close, backed by the operator API when the server has one and
// by the local thread index otherwise.

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

func (s *Server) closeSession(p sessionParams) (any, error) {
	s.mu.Lock()
	sess := s.sessions[p.SessionID]
	delete(s.sessions, p.SessionID)
	s.mu.Unlock()
	if sess == nil {
		return nil, rpcError(codeInvalidParams, "Invalid params: unknown session "+p.SessionID, nil)
	}
	sess.mu.Lock()
	t := sess.current
	sess.mu.Unlock()
	if t != nil {
		t.cancelByUser()
	}
	return struct{}{}, nil
}

func (s *Server) listSessions(req *jsonrpc2.Request) (any, error) {
	var p listParams
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, &p)
	}
	if _, err := s.ensureAuth(s.ctx); err != nil {
		return nil, err
	}
	var out []sessionInfo
	if s.opts.Index != nil && s.opts.ServerKey != "" {
		items, err := s.opts.Index.List(s.opts.ServerKey)
		if err != nil {
			s.log.Warn("thread index unreadable", "err", err)
		}
		for _, it := range items {
			if s.opts.ThreadsOnly && !strings.HasPrefix(it.ID, s.prefixOrDefault()) {
				continue
			}
			cwd := it.CWD
			if p.CWD != "" && cwd != "" && cwd != p.CWD {
				continue
			}
			if cwd == "" {
				cwd = p.CWD
			}
			out = append(out, sessionInfo{SessionID: it.ID, CWD: cwd, Title: it.Title, UpdatedAt: it.UpdatedAt.Format(time.RFC3339)})
		}
	}
	if out == nil {
		out = []sessionInfo{}
	}
	return listResult{Sessions: out}, nil
}

func (s *Server) prefixOrDefault() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prefix == "" {
		return "chat-acp"
	}
	return s.prefix
}

func (s *Server) loadSession(req *jsonrpc2.Request, p sessionParams, replay bool) (any, error) {
	return nil, rpcError(codeNotFound, "Resource not found: unknown thread "+p.SessionID, nil)
}
