package leakgen

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
)

// session is one JSONL file being written.
type session struct {
	g         *gen
	rel       string // slash path from the root
	sid       string // sessionId of its records ("" for none)
	cwd       string
	branch    string
	version   string
	model     string
	agentID   string
	sidechain bool
	last      string
	lines     []string
	meta      map[string]string // the .meta.json, when it has one
}

func (g *gen) newSession(rel, sid, cwd, version, model string) *session {
	s := &session{g: g, rel: rel, sid: sid, cwd: cwd, branch: "main", version: version, model: model}
	g.files = append(g.files, s)
	return s
}

func (s *session) env(typ string) map[string]any {
	m := map[string]any{"type": typ, "uuid": s.g.uuid(), "timestamp": s.g.tick(), "userType": "external",
		"isSidechain": s.sidechain, "version": s.version, "parentUuid": nil}
	if s.last != "" {
		m["parentUuid"] = s.last
	}
	if s.sid != "" {
		m["sessionId"] = s.sid
	}
	if s.cwd != "" {
		m["cwd"] = s.cwd
	}
	if s.branch != "" {
		m["gitBranch"] = s.branch
	}
	if s.agentID != "" {
		m["agentId"] = s.agentID
	}
	return m
}

func (s *session) add(m map[string]any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
	s.lines = append(s.lines, strings.TrimSuffix(b.String(), "\n"))
	if u, ok := m["uuid"].(string); ok {
		s.last = u
	}
}

// side adds a record with no uuid (titles, summaries, queue operations).
func (s *session) side(m map[string]any) {
	if s.sid != "" {
		m["sessionId"] = s.sid
	}
	s.add(m)
}

func (s *session) user(content any, extra map[string]any) string {
	m := s.env("user")
	m["message"] = map[string]any{"role": "user", "content": content}
	maps.Copy(m, extra)
	s.add(m)
	return s.last
}

// answer writes one API response, a record per block; it returns the
// message and request ids.
func (s *session) answer(blocks ...map[string]any) (string, string) {
	g := s.g
	id, req := g.msgID(), g.reqID()
	usage := map[string]any{"input_tokens": 4 + g.r.IntN(9), "output_tokens": 40 + g.r.IntN(600),
		"cache_read_input_tokens": 18000 + g.r.IntN(9000), "cache_creation_input_tokens": g.r.IntN(3000), "service_tier": "standard"}
	for _, b := range blocks {
		m := s.env("assistant")
		m["requestId"] = req
		m["message"] = map[string]any{"id": id, "type": "message", "role": "assistant", "model": s.model,
			"content": []any{b}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
		s.add(m)
	}
	return id, req
}

func text(t string) map[string]any { return map[string]any{"type": "text", "text": t} }

func (s *session) say(t string) { s.answer(text(t)) }

// use writes a tool call; result its result.
func (s *session) use(name string, input map[string]any) string {
	id := s.g.toolID()
	s.answer(map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	return id
}

func (s *session) result(id string, content any, isErr bool, tur any) {
	asst := s.last
	m := s.env("user")
	block := map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}
	if isErr {
		block["is_error"] = true
	}
	m["message"] = map[string]any{"role": "user", "content": []any{block}}
	if tur != nil {
		m["toolUseResult"] = tur
	}
	m["sourceToolAssistantUUID"] = asst
	s.add(m)
}

func (s *session) call(name string, input map[string]any, content any, isErr bool, tur any) string {
	id := s.use(name, input)
	s.result(id, content, isErr, tur)
	return id
}

// sidechain writes 1.0.x sidechain records (a sub-agent inside the main
// file): a chain of their own.
func (s *session) sidechainDo(f func()) {
	last := s.last
	s.sidechain, s.last = true, ""
	f()
	s.sidechain, s.last = false, last
}

func bashResult(stdout, stderr string) map[string]any {
	return map[string]any{"stdout": stdout, "stderr": stderr, "interrupted": false, "isImage": false}
}

func (s *session) path(rel string) string {
	if strings.Contains(s.cwd, `\`) {
		return s.cwd + `\` + strings.ReplaceAll(rel, "/", `\`)
	}
	if s.cwd == "" {
		return "/home/kim/" + rel
	}
	return s.cwd + "/" + rel
}
