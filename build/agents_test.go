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
