package render

import (
	"bytes"
	"fmt"
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/internal/randtext"
	"ccsite/templates"
)

// hostile are values each Go block must escape exactly as html/template
// does: markup, quotes, entities, plus signs, NUL, invalid UTF-8, URLs of
// every kind, percent escapes valid and not, non-ASCII.
var hostile = []string{
	"",
	"plain",
	`<script>alert("x")</script>`,
	`" onmouseover="alert(1)`,
	`'single' & "double" + plus`,
	"nul\x00byte",
	"bad\xff\xfeutf8",
	"&amp; &lt; already escaped",
	"javascript:alert(1)",
	"JavaScript:alert(1)",
	"data:text/html,<b>x</b>",
	"vbscript:msgbox",
	"http://example.com/a b?q=1&r=\"2\"#frag",
	"HTTPS://EXAMPLE.COM/%41%zz%4",
	"mailto:a@b.c",
	"/relative/path:with:colons",
	"../up/page.html#m-1",
	"ünïcødé → ✓ 日本語",
	"\ufdd0\ufffe nonchars",
	"a\nb\tc\rd",
	"m-123 t-4",
}

func fastAndSlow(t *testing.T) (fast, slow *Templates) {
	t.Helper()
	var err error
	if fast, err = Load(templates.FS); err != nil {
		t.Fatal(err)
	}
	if slow, err = Load(templates.FS); err != nil {
		t.Fatal(err)
	}
	slow.Slow()
	if len(fast.fast) != len(fastBlocks) {
		t.Fatalf("%d of %d Go blocks in use with the built-in templates", len(fast.fast), len(fastBlocks))
	}
	return fast, slow
}

// hostileItems are items of every kind with Go code, their strings taken
// from hostile in turn.
func hostileItems() []Item {
	var items []Item
	for i, h := range hostile {
		n := func(k int) string { return hostile[(i+k)%len(hostile)] }
		hh := template.HTML("<b>" + h + "</b>")
		img := Image{Src: template.URL(n(1)), Alt: n(2)}
		shell := Shell{Terminal: Terminal{Input: hh, Stdout: hh, Stderr: template.HTML(n(3)), Long: i%2 == 0}, Size: n(4), JSON: i%3 == 0}
		tools := []any{
			BashView{Command: hh, CommandLong: i%2 == 1, CommandSize: n(1), Background: i%2 == 0, Out: shell, ExitNote: n(2)},
			&FileView{Path: n(1), Range: n(2), Note: n(3), Code: hh, Diff: hh, Added: i, Removed: i % 3, Image: &img, Long: i%2 == 0, Size: n(4)},
			FileView{Path: n(1), Range: "", Note: n(3)},
			SearchView{Pattern: n(1), Path: n(2), Options: []string{n(3), n(4)}, Count: n(5), Truncated: i%2 == 0, Files: []string{n(6)}, Content: hh, Long: i%2 == 1, Size: n(7), None: i%2 == 0},
			TodoView{Items: []Todo{{Content: n(1), Status: "completed"}, {Content: n(2), Status: "in_progress"}, {Content: n(3), Status: n(4)}}},
			GenericView{Input: hh, Long: i%2 == 0, Size: n(1)},
			PlanView{Plan: hh},
			TaskView{Description: n(1), Type: n(2), Prompt: hh, Result: hh, AgentURL: n(3), Status: n(4), Duration: n(5),
				Tokens: n(6), ToolCount: i, ResultLong: i%2 == 0, ResultSize: n(7)},
			TaskView{Description: n(1)},
			WebView{Query: n(1), URL: n(2), Status: n(3), Links: []WebLink{{Title: n(4), URL: n(5)}, {Title: n(6)}},
				Result: hh, JSON: i%2 == 0, Size: n(7)},
			WebView{},
			TasksView{Board: []TaskColumn{{Status: n(1), State: n(2), Tasks: []TaskItem{
				{ID: n(3), Subject: n(4), Owner: n(5), Status: n(6), BlockedBy: []string{n(7), n(8)}}, {Subject: n(9)}}},
				{Status: n(10), State: n(11)}},
				Task:    &TaskItem{ID: n(12), Subject: n(13), Description: n(14), Owner: n(15), Status: n(16), State: n(17), From: n(18)},
				Changed: []string{n(1), n(2)}, Note: n(3), Out: &shell},
			TasksView{Task: &TaskItem{Subject: n(1), Status: n(2), State: n(3), From: n(2)}},
			TasksView{},
		}
		kinds := []string{"bash", "file", "file", "search", "todo", "generic", "plan", "task", "task", "web", "web", "tasks", "tasks", "tasks"}
		var parts []Part
		for k, data := range tools {
			tv := ToolView{ID: n(k), Anchor: n(k + 1), Name: n(k + 2), Kind: kinds[k], Summary: n(k + 3),
				Status:       []string{"ok", "error", "interrupted", "pending", "rejected", n(k)}[(i+k)%6],
				ResultAnchor: n(k + 4), Orphan: (i+k)%2 == 0, Progress: (i + k) % 3, Data: data,
				Result: &Output{HTML: hh, Long: k%2 == 0, Size: n(k), Images: []Image{img}, JSON: k%3 == 0,
					Withheld: []string{n(k + 5)}, Links: []WebLink{{Title: n(k + 6), URL: n(k + 7)}}},
				Error: template.HTML(n(k + 8)),
				Fold:  FoldLine{Took: n(k + 9), Added: k, Removed: i, Edit: (i+k)%2 == 1, Defer: k == 6 && i%4 == 0}}
			if k == 1 {
				tv.Server, tv.Tool = n(k), n(k+1)
			}
			if k == 2 {
				tv.Result = nil
			}
			if k%2 == 0 {
				parts = append(parts, Part{"tool", tv})
			} else {
				parts = append(parts, Part{"tool", &tv})
			}
		}
		parts = append(parts,
			Part{"text", hh},
			Part{"thinking", Collapsible{Label: n(1), Chars: i * 1000, Body: hh}},
			Part{"redacted", nil},
			Part{"image", img},
			Part{"raw", Raw{Label: n(3), JSON: hh}},
			Part{"note", n(4)},
		)
		t := Time{ISO: n(1), UTC: n(2), Clock: n(3), Zero: i%5 == 0}
		item := func(kind string, data any) Item {
			return Item{Kind: kind, Anchor: n(len(items)), Line: i, Time: t, Data: data,
				Forks: []Fork{{Index: i, Anchor: n(5)}}}
		}
		prompt := Prompt{HTML: hh, Images: []Image{img}, Context: []ContextChip{{Label: n(1), Body: hh}},
			Reminders: []template.HTML{hh}, Queued: i%2 == 0, Memory: n(2)}
		items = append(items,
			item("answer", Answer{Who: n(3), Model: n(1), Synthetic: i%2 == 0, Error: i%3 == 0, Parts: parts, Cost: n(2)}),
			item("answer", Answer{}),
			item("prompt", prompt),
			item("tool-results", ToolResults{Orphans: []ToolView{{Kind: "generic", Status: "ok", Name: n(3), Data: GenericView{}}}, Typed: &prompt}),
			item("event", Event{Icon: []string{"compact", "stop", n(1)}[i%3], Text: n(2), Detail: hh, Raw: template.HTML(n(3)), Level: n(4), URL: n(5)}),
			item("event", Event{Icon: "clock", Text: n(2)}),
			item("meta", Collapsible{Label: n(1), Chars: i, Body: hh}),
			item("compact-summary", Collapsible{Label: n(2), Chars: 1, Body: hh}),
			item("interruption", Event{Text: n(3)}),
			item("command", Terminal{Command: n(1), Args: n(2)}),
			item("terminal", shell),
			item("progress", ProgressGroup{Count: i, Kinds: []NameCount{{Name: n(1), Count: 2}, {Name: n(2), Count: 1}}, Raw: hh}),
			item("unknown", Raw{Label: n(1), JSON: hh}),
		)
		items[len(items)-1].Branches = []BranchView{{Index: 1, Anchor: n(1), ForkAnchor: n(2), Items: items[len(items)-3 : len(items)-1], Label: n(3)}}
	}
	return items
}

// TestFastEscapes renders items of every kind with hostile values through
// the Go blocks and through the templates: the bytes must be the same.
func TestFastEscapes(t *testing.T) {
	fast, slow := fastAndSlow(t)
	items := hostileItems()
	for i := range items {
		got, err := fast.items(items[i : i+1])
		if err != nil {
			t.Fatal(err)
		}
		want, err := slow.items(items[i : i+1])
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("item %d (%s): Go blocks and templates differ:\n%s", i, items[i].Kind, firstDiff(string(want), string(got)))
		}
	}
}

// firstDiff shows where two renderings part.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-120)
	return fmt.Sprintf("template: …%q…\nGo:       …%q…", want[from:min(len(want), i+120)], got[from:min(len(got), i+120)])
}

// TestFastOverride: a theme's block runs from its template inside the Go
// blocks, and the blocks the file does not define stay Go code.
func TestFastOverride(t *testing.T) {
	var files []File
	for _, n := range []string{"layout.html", "items.html", "lists.html", "search.html", "session.html", "tools.html"} {
		data, err := templates.FS.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Name: "templates/" + n, Data: data})
	}
	files = append(files, File{Name: "templates/mine.html", Data: []byte(`{{define "terminal"}}<div class="my-terminal">{{.Size}}</div>{{end}}`)})
	ts, err := LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if ts.fast["terminal"] || !ts.fast["tool/bash"] || !ts.fast["item"] {
		t.Fatalf("Go blocks after overriding terminal: terminal %v, tool/bash %v, item %v", ts.fast["terminal"], ts.fast["tool/bash"], ts.fast["item"])
	}
	tv := ToolView{Kind: "bash", Status: "ok", Name: "Bash", Data: BashView{Command: "<code>ls</code>", Out: Shell{Size: "3 lines <&>"}}}
	got, err := ts.items([]Item{{Kind: "answer", Data: Answer{Parts: []Part{{"tool", tv}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `<div class="my-terminal">3 lines &lt;&amp;&gt;</div>`) || strings.Contains(string(got), `class="terminal`) {
		t.Errorf("the theme's terminal is not used inside the Go tool/bash:\n%s", got)
	}
	// A file the same as the built-in one overrides nothing.
	ts2, err := LoadFiles(files[:6])
	if err != nil {
		t.Fatal(err)
	}
	if len(ts2.fast) != len(fastBlocks) {
		t.Errorf("built-in files alone: %d of %d Go blocks in use", len(ts2.fast), len(fastBlocks))
	}
}

// TestTextAsTemplate: the text block writes what html/template writes for
// a string in text, on random texts of the bytes it escapes and those
// next to them (a word-at-a-time search must not take them for one).
func TestTextAsTemplate(t *testing.T) {
	tmpl := template.Must(template.New("t").Parse(`{{.}}`))
	rng := rand.New(rand.NewPCG(7, 8))
	const alphabet = "ab<>&\"'+\x00é \n=?;%(!#*,\x01\x7f\x80\xbe\xff"
	texts := append([]string(nil), hostile...)
	for range 20000 {
		texts = append(texts, randtext.Of(rng, alphabet, rng.IntN(70)))
	}
	for _, s := range texts {
		var want bytes.Buffer
		if err := tmpl.Execute(&want, s); err != nil {
			t.Fatal(err)
		}
		w := &fastWriter{b: new(bytes.Buffer)}
		w.text(s)
		if got := w.b.String(); got != want.String() {
			t.Fatalf("text(%q) = %q, html/template %q", s, got, want.String())
		}
	}
}
