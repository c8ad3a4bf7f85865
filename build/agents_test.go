package build

import (
	"bufio"
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAgentsCodexSite builds the real Codex sessions of $CCSITE_AGENTS and
// looks for every prompt, answer and tool call in their pages, and for
// the token_count totals in the session's figures.
func TestAgentsCodexSite(t *testing.T) {
	dir := os.Getenv("CCSITE_AGENTS")
	if dir == "" {
		t.Skip("CCSITE_AGENTS not set")
	}
	root := filepath.Join(dir, "codex")
	out := t.TempDir()
	sum, err := Run(context.Background(), Config{Paths: []string{root}, Out: out, State: t.TempDir(), JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	rollouts, _ := filepath.Glob(filepath.Join(root, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if sum.Sessions != len(rollouts) || len(rollouts) == 0 {
		t.Fatalf("built %d sessions of %d rollouts", sum.Sessions, len(rollouts))
	}
	checkSite(t, out)
	for _, p := range rollouts {
		want := codexWants(t, p)
		id := want.id
		pages, _ := filepath.Glob(filepath.Join(out, "*", id+".html"))
		if len(pages) != 1 {
			t.Fatalf("%s: pages %v", id, pages)
		}
		b, err := os.ReadFile(pages[0])
		if err != nil {
			t.Fatal(err)
		}
		text := pageText(string(b))
		t.Logf("%s: %d prompts, answers and calls looked for; %d in, %d out", id, len(want.texts), want.in, want.out)
		for _, s := range want.texts {
			if !strings.Contains(text, s) {
				t.Errorf("%s: the page lacks %q", id, s)
			}
		}
		if !strings.Contains(string(b), `<div class="who">Codex`) || strings.Contains(string(b), `<div class="who">Claude`) {
			t.Errorf("%s: answers are not Codex's", id)
		}
		md, err := os.ReadFile(strings.TrimSuffix(pages[0], ".html") + ".md")
		if err != nil || !strings.Contains(string(md), "\n### Codex\n") || strings.Contains(string(md), "### Claude") {
			t.Errorf("%s: the Markdown export does not name Codex's answers (%v)", id, err)
		}
		var js struct {
			Stats struct {
				Tokens struct{ Input, Output, CacheRead int64 }
			}
			Unknown map[string]int
		}
		jb, err := os.ReadFile(strings.TrimSuffix(pages[0], ".html") + ".json")
		if err == nil {
			_ = json.Unmarshal(jb, &js)
			tk := js.Stats.Tokens
			if tk.Input+tk.CacheRead != want.in || tk.CacheRead != want.cached || tk.Output != want.out {
				t.Errorf("%s: tokens %+v, want %d in (%d cached), %d out", id, tk, want.in, want.cached, want.out)
			}
			if len(js.Unknown) > 0 {
				t.Errorf("%s: unknown records %v", id, js.Unknown)
			}
		} else {
			t.Errorf("%s: no JSON export: %v", id, err)
		}
	}
}

type codexWant struct {
	id              string
	texts           []string
	in, cached, out int64
}

// codexWants reads what a rollout says with encoding/json, apart from
// the reader: its prompts and answers (a line of each), its calls (the
// command or file of each) and its last token totals.
func codexWants(t *testing.T, path string) codexWant {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w codexWant
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct {
			Type    string
			Payload map[string]any
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		p := l.Payload
		str := func(k string) string { s, _ := p[k].(string); return s }
		switch {
		case l.Type == "session_meta":
			w.id = str("id")
		case str("type") == "user_message", str("type") == "agent_message":
			w.texts = append(w.texts, firstWords(str("message")))
		case str("type") == "function_call":
			var args map[string]any
			_ = json.Unmarshal([]byte(str("arguments")), &args)
			if cmd, ok := args["command"].([]any); ok {
				w.texts = append(w.texts, firstWords(cmd[len(cmd)-1].(string)))
			}
		case str("type") == "custom_tool_call":
			in := str("input")
			if m := regexp.MustCompile(`\*\*\* (?:Add|Update|Delete) File: (.+)`).FindStringSubmatch(in); m != nil {
				w.texts = append(w.texts, m[1])
			} else {
				w.texts = append(w.texts, firstWords(in))
			}
		case str("type") == "token_count":
			if info, ok := p["info"].(map[string]any); ok {
				tot := info["total_token_usage"].(map[string]any)
				w.in, w.cached, w.out = int64(tot["input_tokens"].(float64)), int64(tot["cached_input_tokens"].(float64)), int64(tot["output_tokens"].(float64))
			}
		}
	}
	return w
}

// firstWords is a text's first line of words, without Markdown marks, as
// a page shows it.
func firstWords(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.Trim(strings.NewReplacer("**", "", "`", "", "#", "").Replace(line), " -•\t")
		if len(line) > 8 {
			if len(line) > 40 {
				line = line[:40]
			}
			return strings.TrimSpace(line)
		}
	}
	return strings.TrimSpace(s)
}

var reTag = regexp.MustCompile(`<[^>]*>`)

// pageText is a page's text: tags out, entities decoded, blanks one space.
func pageText(page string) string {
	return strings.Join(strings.Fields(html.UnescapeString(reTag.ReplaceAllString(page, ""))), " ")
}

// TestAgentsCodexLinks: a Codex fork (forked_from_id) and sub-agent
// (source subagent, parent_thread_id) link to their parent session's page,
// and the parent's page to both.
func TestAgentsCodexLinks(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "02")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{
		"parent": "0199cccc-0000-7000-8000-000000000001",
		"fork":   "0199cccc-0000-7000-8000-000000000002",
		"sub":    "0199cccc-0000-7000-8000-000000000003",
	}
	metas := map[string]map[string]any{
		"parent": {"id": ids["parent"], "cwd": "/home/ana/tree", "source": "cli"},
		"fork":   {"id": ids["fork"], "cwd": "/home/ana/tree", "source": "cli", "forked_from_id": ids["parent"]},
		"sub":    {"id": ids["sub"], "cwd": "/home/ana/tree", "source": map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": ids["parent"], "depth": 1}}}},
	}
	for i, name := range []string{"parent", "fork", "sub"} {
		meta, _ := json.Marshal(map[string]any{"timestamp": "2026-03-02T10:0" + string(rune('0'+i)) + ":00.000Z", "type": "session_meta", "payload": metas[name]})
		msg, _ := json.Marshal(map[string]any{"timestamp": "2026-03-02T10:0" + string(rune('0'+i)) + ":01.000Z", "type": "response_item",
			"payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "the " + name + "'s prompt"}}}})
		p := filepath.Join(day, "rollout-2026-03-02T10-0"+string(rune('0'+i))+"-00-"+ids[name]+".jsonl")
		if err := os.WriteFile(p, append(append(append(meta, '\n'), msg...), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), Config{Paths: []string{home}, Out: out, State: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	page := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, "home-ana-tree", ids[name]+".html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, wants := range map[string][]string{
		"parent": {`href="` + ids["fork"] + `.html">Fork: session 0199cccc`, `href="` + ids["sub"] + `.html">Sub-agent: session 0199cccc`},
		"fork":   {`href="` + ids["parent"] + `.html">Forked from session 0199cccc`},
		"sub":    {`href="` + ids["parent"] + `.html">Sub-agent of session 0199cccc`},
	} {
		p := page(name)
		for _, w := range wants {
			if !strings.Contains(p, w) {
				t.Errorf("the %s's page lacks %s", name, w)
			}
		}
	}
}

// TestAgentsOnly: Config.Agents (--agent) limits a build to those agents'
// sessions: the demo holds 8 of Claude Code and 1 of Codex.
func TestAgentsOnly(t *testing.T) {
	for _, c := range []struct {
		agents []string
		want   int
	}{{nil, 9}, {[]string{"claude"}, 8}, {[]string{"codex"}, 1}, {[]string{"claude", "codex"}, 9}} {
		sum, err := Run(context.Background(), Config{Paths: []string{"../demo/projects"}, Out: t.TempDir(), State: t.TempDir(), Agents: c.agents})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Sessions != c.want {
			t.Errorf("--agent %v: %d sessions, want %d", c.agents, sum.Sessions, c.want)
		}
	}
}
