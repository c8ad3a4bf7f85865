package codex

import (
	"regexp"
	"strconv"
	"strings"

	"ccsite/build/transcript"

	"github.com/go-json-experiment/json/jsontext"
)

func (c *converter) responseItem(l *line) {
	p := &l.p
	switch p.Type {
	case "message":
		c.message(l)
	case "reasoning":
		var parts []string
		for _, it := range append(items(p.Summary), items(p.Content)...) {
			if t := strings.TrimSpace(it.Text); t != "" {
				parts = append(parts, t)
			}
		}
		if len(parts) == 0 {
			return // encrypted only: nothing to show
		}
		c.answer(l, transcript.Block{Type: "thinking", Thinking: strings.Join(parts, "\n\n")})
	case "function_call":
		c.call(l, p.CallID, p.Name, []byte(p.Arguments), false)
	case "custom_tool_call":
		c.call(l, p.CallID, p.Name, []byte(p.Input), true)
	case "local_shell_call":
		var a struct {
			Command []string `json:"command"`
		}
		_ = transcript.Unmarshal(p.Action, &a)
		c.toolUse(l, p.CallID, "Bash", map[string]any{"command": argvCommand(a.Command)})
	case "web_search_call":
		c.webSearch(l)
	case "function_call_output", "custom_tool_call_output":
		c.output(l)
	case "compaction", "ghost_snapshot":
		// Encrypted history and undo snapshots: nothing to read.
	default:
		c.unknown(l)
	}
}

// injected tells the context Codex adds to the conversation as user
// input (environment, AGENTS.md, instructions, plugins) from a prompt.
var reInjected = regexp.MustCompile(`^(?s)\s*(<[a-zA-Z_][\w-]*[ >].*</[a-zA-Z_][\w-]*>\s*$|# AGENTS\.md instructions)`)

func (c *converter) message(l *line) {
	var prompt, injected, images []transcript.Block
	var answer []transcript.Block
	for _, it := range items(l.p.Content) {
		switch it.Type {
		case "input_image":
			if b, ok := imageBlock(it.ImageURL); ok {
				images = append(images, b)
			}
		case "output_text":
			answer = append(answer, transcript.Block{Type: "text", Text: it.Text})
		default:
			b := transcript.Block{Type: "text", Text: it.Text}
			if c.cwd == "" {
				c.cwd = envCWD(it.Text) // older rollouts name it only there
			}
			if l.p.Role != "user" || c.isInjected(it.Text) {
				injected = append(injected, b)
			} else {
				prompt = append(prompt, b)
			}
		}
	}
	if l.p.Role == "assistant" {
		if len(answer) > 0 {
			c.answer(l, answer...)
		}
		return
	}
	if len(injected) > 0 {
		c.meta(l, injected)
	}
	if len(prompt) > 0 || len(images) > 0 {
		r := c.record(l, "user")
		r.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: append(prompt, images...)}}
		c.add(r, false)
	}
}

// isInjected: text Codex wrote into the conversation, not the user. When
// the rollout has user_message events (what the user typed), a text none
// of them holds is Codex's.
func (c *converter) isInjected(text string) bool {
	t := strings.TrimSpace(text)
	if c.prompts[t] {
		return false
	}
	// The request inside context the IDE extension adds around it.
	for p := range c.prompts {
		if p != "" && strings.Contains(t, p) {
			return false
		}
	}
	return len(c.prompts) > 0 || reInjected.MatchString(t)
}

// imageBlock reads a data: URL into an image block.
func imageBlock(url string) (transcript.Block, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		if url == "" {
			return transcript.Block{}, false
		}
		return transcript.Block{Type: "image", Source: &transcript.Source{Type: "url", URL: url}}, true
	}
	meta, data, ok := strings.Cut(rest, ",")
	mt, b64 := strings.CutSuffix(meta, ";base64")
	if !ok || !b64 {
		return transcript.Block{}, false
	}
	return transcript.Block{Type: "image", Source: &transcript.Source{Type: "base64", MediaType: mt, Data: data}}, true
}

// answer adds an assistant record of the model's current response.
func (c *converter) answer(l *line, blocks ...transcript.Block) {
	r := c.record(l, "assistant")
	r.Message = &transcript.Message{Type: "message", Role: "assistant", Content: transcript.Content{Blocks: blocks}}
	c.add(r, true)
}

// toolUse adds a tool_use block named and shaped as Claude Code's like
// tool.
func (c *converter) toolUse(l *line, id, name string, input any) {
	c.answer(l, transcript.Block{Type: "tool_use", ID: id, Name: name, Input: jsontext.Value(mustJSON(input))})
}

func (c *converter) webSearch(l *line) {
	var a struct {
		Query   string   `json:"query"`
		Queries []string `json:"queries"`
		URL     string   `json:"url"`
		Type    string   `json:"type"`
	}
	_ = transcript.Unmarshal(l.p.Action, &a)
	q := a.Query
	if q == "" {
		q = strings.Join(a.Queries, "; ")
	}
	if q == "" {
		q = a.URL
	}
	id := "codex-web-search-" + c.id + "-" + strconv.Itoa(l.no)
	c.toolUse(l, id, "WebSearch", map[string]any{"query": q})
	r := c.record(l, "user")
	status := l.p.Status
	if status == "" {
		status = "done"
	}
	r.Message = &transcript.Message{Role: "user", Content: transcript.Content{Blocks: []transcript.Block{{
		Type: "tool_result", ToolUseID: id, Content: textContent("Web search " + status + " (Codex keeps no results)"),
	}}}}
	c.add(r, false)
}
