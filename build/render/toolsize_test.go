package render_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// What a reader sees of large tool results: folded by size as well as by
// lines with the size in the summary, JSON indented and highlighted, a
// search that found nothing said so, a file's path written once.

// sizeLog writes a small transcript of tool calls and their results.
type sizeLog struct {
	b    strings.Builder
	n    int
	last string
	t    time.Time
}

func (l *sizeLog) add(r map[string]any) {
	l.n++
	l.t = l.t.Add(time.Second)
	r["sessionId"], r["cwd"], r["version"] = "5e55a0e0-0000-4000-8000-000000000001", "/home/dev/shop", "2.1.29"
	r["isSidechain"], r["userType"], r["timestamp"] = false, "external", l.t.Format(time.RFC3339)
	if _, ok := r["uuid"]; !ok {
		r["uuid"] = fmt.Sprintf("5e55a0e0-0000-4000-8000-%012d", l.n)
	}
	if l.last != "" {
		r["parentUuid"] = l.last
	}
	if r["type"] != "progress" {
		l.last = r["uuid"].(string)
	}
	enc := json.NewEncoder(&l.b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		panic(err)
	}
}

// call writes a tool call, its progress records and its result.
func (l *sizeLog) call(id, name string, input any, progress int, content string, tur any) {
	l.add(map[string]any{"type": "assistant", "requestId": "req_" + id, "message": map[string]any{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}},
		"usage":   map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	for range progress {
		l.add(map[string]any{"type": "progress", "toolUseID": id, "parentToolUseID": id,
			"data": map[string]any{"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:" + name}})
	}
	r := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}}
	if tur != nil {
		r["toolUseResult"] = tur
	}
	l.add(r)
}

// card returns the tool card of call id in doc.
func card(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	cards := find(doc, func(n *html.Node) bool {
		v, _ := attr(n, "id")
		return hasClass(n, "tool") && v == "tool-"+id
	})
	if len(cards) != 1 {
		t.Fatalf("%d cards for %s, want 1", len(cards), id)
	}
	return cards[0]
}

// foldOf returns the <details> around n and whether it starts open; nil
// when n is not folded.
func foldOf(n *html.Node) (d *html.Node, open bool) {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Data == "details" && !hasClass(p, "tool") {
			_, open := attr(p, "open")
			return p, open
		}
	}
	return nil, false
}

// snippet is the start of n's markup, for failure messages.
func snippet(n *html.Node) string {
	var b strings.Builder
	_ = html.Render(&b, n)
	return b.String()[:min(b.Len(), 400)]
}

func summaryOf(d *html.Node) string {
	if s := find(d, func(n *html.Node) bool { return n.Data == "summary" }); len(s) > 0 {
		return textOf(s[0])
	}
	return ""
}

func TestToolOutputsBySize(t *testing.T) {
	t.Parallel()
	l := &sizeLog{t: time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)}
	l.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Look at the API"}})

	// 135 KB on one line, not JSON (a minified bundle).
	oneLine := strings.Repeat("var a=1;", 135*1024/8)
	l.call("toolu_long1", "Bash", map[string]any{"command": "cat dist/app.min.js", "description": "Show the bundle"}, 0,
		oneLine, map[string]any{"stdout": oneLine, "stderr": "", "interrupted": false})

	// A gh api result: one line of JSON, markup in its strings.
	small := `{"id":7,"title":"<b>Fix</b> & ship","draft":false,"labels":["bug","ui"],"milestone":null}`
	l.call("toolu_json1", "Bash", map[string]any{"command": "gh api repos/o/r/pulls/7"}, 1,
		small, map[string]any{"stdout": small, "stderr": "", "interrupted": false})

	// 60 KB of JSON on one line: indented, highlighted and folded.
	var items []string
	for i := 0; len(strings.Join(items, ",")) < 60<<10; i++ {
		items = append(items, fmt.Sprintf(`{"number":%d,"title":"Issue %d","state":"open","user":{"login":"dev%d"}}`, i, i, i%7))
	}
	big := "[" + strings.Join(items, ",") + "]"
	l.call("toolu_json2", "Bash", map[string]any{"command": "gh api repos/o/r/issues --paginate"}, 2,
		big, map[string]any{"stdout": big, "stderr": "", "interrupted": false})

	// Over 256 KB of JSON: left as text.
	huge := "[" + strings.Repeat(`{"k":"`+strings.Repeat("v", 100)+`"},`, 3000) + `{"k":"end"}]`
	l.call("toolu_json3", "Bash", map[string]any{"command": "gh api /huge"}, 0,
		huge, map[string]any{"stdout": huge, "stderr": "", "interrupted": false})

	// An MCP tool answering in JSON, with a big input.
	l.call("toolu_mcp1", "mcp__github__create_issue", map[string]any{"title": "Crash", "body": strings.Repeat("stack frame\n", 600)}, 0,
		`{"number":12,"url":"https://github.com/o/r/issues/12"}`, nil)
	l.call("toolu_mcp2", "mcp__github__get_me", map[string]any{"fields": "login"}, 0, `{"login":"dev"}`, nil)

	// A Grep that found nothing.
	l.call("toolu_grep0", "Grep", map[string]any{"pattern": "NoSuchSymbol", "path": "/home/dev/shop", "output_mode": "content"}, 0,
		"No matches found", map[string]any{"mode": "content", "numFiles": 0, "filenames": []string{}, "content": "", "numLines": 0})

	// A Read: its path is the card's summary, not repeated below.
	l.call("toolu_read1", "Read", map[string]any{"file_path": "/home/dev/shop/src/cart.ts"}, 0,
		"     1\texport const cart = [];\n", map[string]any{"type": "text", "file": map[string]any{
			"filePath": "/home/dev/shop/src/cart.ts", "content": "export const cart = [];\n", "numLines": 1, "startLine": 1, "totalLines": 1}})

	path := filepath.Join(t.TempDir(), "5e55a0e0-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(path, []byte(l.b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	page := renderSession(t, loadSession(t, path), "/home/dev/shop")
	doc := parseHTML(t, page)

	t.Run("one long line folds", func(t *testing.T) {
		c := card(t, doc, "toolu_long1")
		outs := find(c, byClass("term-out"))
		if len(outs) != 1 {
			t.Fatalf("%d term-out blocks, want 1", len(outs))
		}
		d, open := foldOf(outs[0])
		if d == nil || open {
			t.Fatalf("a 135 KB line starts open (folded: %v)", d != nil)
		}
		if got := summaryOf(d); got != "Output · 135 KB · 1 line" {
			t.Errorf("summary %q, want %q", got, "Output · 135 KB · 1 line")
		}
	})

	t.Run("small JSON indented and highlighted", func(t *testing.T) {
		c := card(t, doc, "toolu_json1")
		blocks := find(c, byClass("json"))
		if len(blocks) != 1 || len(find(c, byClass("term-out"))) != 0 {
			t.Fatalf("JSON output not shown as a JSON block: %s", snippet(c))
		}
		if d, _ := foldOf(blocks[0]); d != nil {
			t.Errorf("small JSON output folded")
		}
		code := rawTextOf(blocks[0])
		if !strings.Contains(code, "{\n  \"id\": 7,\n  \"title\": \"<b>Fix</b> & ship\",") {
			t.Errorf("JSON not indented by two spaces: %q", code)
		}
		if len(find(blocks[0], func(n *html.Node) bool { return n.Data == "span" && hasClass(n, "nt") })) != 5 {
			t.Errorf("JSON keys not highlighted: %s", snippet(blocks[0]))
		}
		if len(find(blocks[0], func(n *html.Node) bool { return n.Data == "b" })) != 0 {
			t.Errorf("markup in a JSON string became an element")
		}
	})

	t.Run("big JSON folded after indenting", func(t *testing.T) {
		c := card(t, doc, "toolu_json2")
		blocks := find(c, byClass("json"))
		if len(blocks) != 1 {
			t.Fatalf("%d JSON blocks, want 1", len(blocks))
		}
		d, open := foldOf(blocks[0])
		if d == nil || open {
			t.Fatal("60 KB of JSON starts open")
		}
		if s := summaryOf(d); !strings.HasPrefix(s, "Output · ") || !strings.Contains(s, " KB · ") || strings.HasSuffix(s, " 1 line") {
			t.Errorf("summary %q: want the indented JSON's size and lines", s)
		}
		if len(find(blocks[0], byClass("plain"))) != 0 {
			t.Errorf("60 KB of JSON shown plain")
		}
	})

	t.Run("huge JSON stays text", func(t *testing.T) {
		c := card(t, doc, "toolu_json3")
		if len(find(c, byClass("json"))) != 0 {
			t.Errorf("JSON over 256 KB highlighted")
		}
		outs := find(c, byClass("term-out"))
		if len(outs) != 1 {
			t.Fatalf("%d term-out blocks, want 1", len(outs))
		}
		if d, open := foldOf(outs[0]); d == nil || open {
			t.Errorf("huge JSON starts open")
		}
	})

	t.Run("MCP JSON result and big input", func(t *testing.T) {
		c := card(t, doc, "toolu_mcp1")
		ins := find(c, byClass("tool-input"))
		if len(ins) != 1 {
			t.Fatalf("%d inputs, want 1", len(ins))
		}
		if _, open := attr(ins[0], "open"); open {
			t.Errorf("an 8 KB input starts open")
		}
		if s := summaryOf(ins[0]); s != "Input · 8 KB" {
			t.Errorf("input summary %q, want %q", s, "Input · 8 KB")
		}
		res := find(c, func(n *html.Node) bool { return hasClass(n, "json") && !hasClass(n.Parent, "tool-input") })
		if len(res) != 1 || !strings.Contains(rawTextOf(res[0]), "{\n  \"number\": 12,") {
			t.Errorf("MCP JSON result not indented: %s", snippet(c))
		}
		small := find(card(t, doc, "toolu_mcp2"), byClass("tool-input"))
		if len(small) != 1 {
			t.Fatalf("%d inputs, want 1", len(small))
		}
		if _, open := attr(small[0], "open"); !open || summaryOf(small[0]) != "Input" {
			t.Errorf("a small input: open and labelled Input, got %s", snippet(small[0]))
		}
	})

	t.Run("search without matches says so", func(t *testing.T) {
		c := card(t, doc, "toolu_grep0")
		body := find(c, byClass("tool-body"))
		if len(body) != 1 {
			t.Fatalf("%d tool bodies", len(body))
		}
		if got := textOf(body[0]); !strings.Contains(got, "No matches") {
			t.Errorf("an empty search shows %q, want it to say No matches", got)
		}
		if strings.Contains(textOf(c), "0 lines") {
			t.Errorf("an empty search still counts 0 lines: %q", textOf(c))
		}
	})

	t.Run("path once", func(t *testing.T) {
		c := card(t, doc, "toolu_read1")
		if n := strings.Count(textOf(c), "/home/dev/shop/src/cart.ts"); n != 1 {
			t.Errorf("the path is written %d times in the Read card: %q", n, textOf(c))
		}
	})

	t.Run("progress counted in words", func(t *testing.T) {
		if got := textOf(card(t, doc, "toolu_json1")); !strings.Contains(got, "1 progress update") || strings.Contains(got, "1 progress updates") {
			t.Errorf("one progress record: %q", got)
		}
		if got := textOf(card(t, doc, "toolu_json2")); !strings.Contains(got, "2 progress updates") {
			t.Errorf("two progress records: %q", got)
		}
	})
}
