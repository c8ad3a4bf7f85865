package render

import (
	"bytes"
	"fmt"
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/build/session"
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
			item("answer", Answer{Model: n(1), Synthetic: i%2 == 0, Error: i%3 == 0, Parts: parts, Cost: n(2)}),
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

// hostileSession is a session view with every field the header prints
// set, its strings taken from hostile from k on.
func hostileSession(k int, embedded, deferred bool) *SessionView {
	n := func(j int) string { return hostile[(k+j)%len(hostile)] }
	tm := Time{ISO: n(1), UTC: n(2), Clock: n(3)}
	nav := func(j int) *Nav { return &Nav{Title: n(j), URL: n(j + 1)} }
	v := &SessionView{
		Title: n(0), ID: n(1), Project: n(2), ProjectURL: n(3), IsAgent: true,
		Agent:  &session.AgentInfo{AgentType: n(4)},
		Parent: nav(5), ParentCall: n(6), Prev: nav(7), Next: nav(8), ContinuedIn: nav(9), ContinuedFrom: nav(10),
		Start: tm, End: Time{Zero: true}, Active: n(11), Branches: []string{n(12), n(13)},
		Models: []string{n(14), n(15)}, Versions: []string{n(16)},
		Stats: session.Stats{Messages: 12, ToolCalls: k, Tokens: session.Tokens{Input: 1234567, Output: int64(k), CacheRead: 0, CacheWrite: 99999}},
		Tools: []NameCount{{Name: n(17), Count: 3}, {Name: n(18), Count: 1}},
		PRs:   []session.PRLink{{Number: 7, URL: "https://example.com/" + n(19), Repository: n(20)}, {Number: 8, URL: n(0)}},
		Agents: []AgentLink{{Title: n(1), URL: n(2), Type: n(3), Workflow: n(4), Messages: 1, ToolCalls: 2, CallAnchor: n(5)},
			{Title: n(6), Messages: 3}},
		Exports:  []ExportLink{{Name: n(7), Type: n(8), URL: n(9)}, {Name: "md", Type: "text/markdown", URL: n(10)}},
		Embedded: embedded, Deferred: deferred, EmptyThinking: k % 3, Resume: n(11), SourceName: n(12), Deleted: n(13),
		Cost: n(14), CostAgents: n(15), CostWithAgents: n(16), RecordedCost: n(17),
		Charts: &Charts{Turns: template.HTML(`<svg class="chart"></svg>`), Tools: template.HTML(`<svg>t</svg>`),
			TurnCols: []ChartCol{{Name: n(18), Class: n(19)}, {Name: "out", Class: "c-out"}},
			TurnRows: []ChartRow{{Label: n(20), Anchor: n(0), Cells: []string{n(1), n(2)}}}},
		Turns: []TurnView{
			{Index: 1, Anchor: n(3), Start: tm, Excerpt: n(4), HasPrompt: true, Quiet: true, Tools: 2, Took: n(5), TimeTop: n(6), OutTokens: 12345, Cost: n(7)},
			{Index: 2, Anchor: n(8), Start: Time{Zero: true}, HasPrompt: true, Tools: 1},
			{Index: 0, Anchor: n(9), Took: n(10)},
		},
	}
	if k%2 == 1 {
		// The other side of every with and if.
		v.IsAgent, v.Agent, v.Parent, v.ParentCall = false, nil, nil, ""
		v.ProjectURL, v.Deleted, v.SourceName, v.Resume, v.Cost, v.CostAgents, v.RecordedCost = "", "", "", "", "", "", ""
		v.Models, v.Versions, v.Tools, v.PRs, v.Exports, v.ContinuedIn, v.Prev = nil, nil, nil, nil, nil, nil, nil
		v.Agents = append(v.Agents, AgentLink{}, AgentLink{})
		v.Charts.Turns, v.Charts.Tools = "", ""
		if k%4 == 3 {
			v.Charts, v.Turns, v.Agents, v.ContinuedFrom, v.Next = nil, nil, nil, nil, nil
		}
	}
	return v
}

// TestFastSessionHeadEscapes writes session headers with hostile values
// in every field through the Go block and through the template: the bytes
// must be the same.
func TestFastSessionHeadEscapes(t *testing.T) {
	fast, slow := fastAndSlow(t)
	for k := range hostile {
		for _, embedded := range []bool{false, true} {
			v := hostileSession(k, embedded, k%3 == 0)
			var got bytes.Buffer
			w := &fastWriter{ts: fast, b: &got}
			if !w.sessionHead(v) || w.err != nil {
				t.Fatalf("session-head not written from Go: %v", w.err)
			}
			want, err := slow.partial("session-head", v)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("session %d (embedded %v): Go block and template differ:\n%s", k, embedded, firstDiff(string(want), got.String()))
			}
		}
	}
}

// TestFastLayoutHeadEscapes writes the head of pages of every kind, with
// and without search, hostile values in every field, through the Go block
// and through the template: the bytes must be the same. A shared file's
// head (Single) is the template's.
func TestFastLayoutHeadEscapes(t *testing.T) {
	fast, slow := fastAndSlow(t)
	for k := range hostile {
		n := func(j int) string { return hostile[(k+j)%len(hostile)] }
		sv := hostileSession(k, false, false)
		if k%2 == 0 {
			sv.Agent = &session.AgentInfo{ParentID: n(5)}
		}
		bodies := map[string]any{
			"session": sv, "agent": *sv, "project": &ProjectView{Name: n(1), Path: n(2)},
			"index": nil, "search": nil, n(3): nil,
		}
		for kind, body := range bodies {
			for _, search := range []bool{false, true} {
				p := &Page{Path: "p/" + n(4) + "/x.html", Title: n(0), Kind: kind, Search: search, Body: body,
					Crumbs: []Crumb{{Label: n(6), URL: n(7)}, {Label: n(8)}}}
				if k%3 == 0 {
					p.Canonical, p.Crumbs = n(9), nil
				}
				var got bytes.Buffer
				w := &fastWriter{ts: fast, b: &got}
				if !w.layoutHead(p) || w.err != nil {
					t.Fatalf("layout-head not written from Go: %v", w.err)
				}
				want, err := slow.partial("layout-head", p)
				if err != nil {
					t.Fatal(err)
				}
				if got.String() != string(want) {
					t.Errorf("%s page %d (search %v): Go block and template differ:\n%s", kind, k, search, firstDiff(string(want), got.String()))
				}
			}
		}
		var b bytes.Buffer
		if (&fastWriter{ts: fast, b: &b}).layoutHead(&Page{Single: true, Kind: "session", Body: sv}) || b.Len() > 0 {
			t.Error("a shared file's head written from Go")
		}
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

// TestFastLayoutFoot: the page's foot is the template's.
func TestFastLayoutFoot(t *testing.T) {
	fast, slow := fastAndSlow(t)
	p := &Page{Title: hostile[1], Kind: "session"}
	var got bytes.Buffer
	if w := (&fastWriter{ts: fast, b: &got}); !w.layoutFoot(p) {
		t.Fatal("layout-foot not written from Go")
	}
	want, err := slow.partial("layout-foot", p)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("layout-foot: Go %q, template %q", got.String(), want)
	}
}

// TestFastSessionTailEscapes writes what follows a session's turns
// (abandoned branches, warmups, problems, unknown records, embedded
// sub-agents, source) with hostile values in every field through the Go
// blocks and through the templates: the bytes must be the same.
func TestFastSessionTailEscapes(t *testing.T) {
	fast, slow := fastAndSlow(t)
	items := hostileItems()
	for k := range hostile {
		n := func(j int) string { return hostile[(k+j)%len(hostile)] }
		v := hostileSession(k, k%2 == 0, false)
		tm := Time{ISO: n(1), UTC: n(2), Clock: n(3), Zero: k%3 == 0}
		v.Abandoned = []BranchView{
			{Index: k, Anchor: n(4), ForkAnchor: n(5), Leaf: tm, Start: tm, Label: n(6), Items: items[k%len(items) : k%len(items)+1]},
			{Index: 1, Anchor: n(7), Leaf: Time{Zero: true}, Start: Time{Zero: true}},
		}
		v.Warmups = []*SessionView{{Title: n(8), Turns: []TurnView{{Items: items[:2]}, {}}}, {Title: n(9)}}
		v.Problems = []session.Problem{{File: n(10) + `\dir/` + n(11), Line: k, Kind: n(12), Reason: n(13)}, {File: n(14)},
			{File: `C:\Users\dev\` + n(15) + `.jsonl`, Line: 1}}
		v.Unknown = []NameCount{{Name: n(15), Count: 1234}, {Name: n(16), Count: k}}
		v.Embeds = []Embed{{Anchor: n(17), Body: hostileSession(k+1, true, false)}}
		v.Source = n(18)
		if k%4 == 1 {
			// The other side of every with, if and range.
			v.Abandoned, v.Warmups, v.Problems, v.Unknown, v.Embeds = nil, nil, nil, nil, nil
		} else if k%4 == 3 {
			v.Problems, v.Unknown = nil, v.Unknown[:1]
		}
		var got bytes.Buffer
		w := &fastWriter{ts: fast, b: &got}
		if !w.sessionTail(v) || w.err != nil {
			t.Fatalf("session-tail not written from Go: %v", w.err)
		}
		want, err := slow.partial("session-tail", v)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("session %d: Go block and template differ:\n%s", k, firstDiff(string(want), got.String()))
		}
	}
	var b bytes.Buffer
	if (&fastWriter{ts: fast, b: &b}).sessionTail(&SessionView{Embeds: []Embed{{Anchor: "a"}}}) || b.Len() > 0 {
		t.Error("an embed without a body written from Go (the template reports it)")
	}
}
