package render_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/link"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The golden tests render every transcript of testdata/sessions (one case
// per file, hand-written after the shapes of real transcripts) and compare
// the conversation part of its page with testdata/golden/<case>.golden.
// CCSITE_UPDATE=1 re-records them, CCSITE_DUMP=dir writes the whole pages:
//
//	CCSITE_UPDATE=1 go test ./build/render -run TestGolden
//
// Each golden was read by hand against what a reader of the transcript
// needs (numbers, line numbers, states, links): read the diff before
// keeping a re-recorded one. TestReader states those needs as checks, so a
// wrong golden cannot be recorded unnoticed.
//
// Cases listed in knownBugs render wrongly today: they are skipped and have
// no golden; record it once the bug is fixed and TestReader passes.

// knownBugs maps a case to the bug that makes its page wrong.
var knownBugs = map[string]string{}

func update() bool { return os.Getenv("CCSITE_UPDATE") == "1" }

func caseFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "sessions", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/sessions/*.jsonl")
	}
	return files
}

func caseName(file string) string { return strings.TrimSuffix(filepath.Base(file), ".jsonl") }

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, file := range caseFiles(t) {
		name := caseName(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := loadSession(t, file)
			page := renderSession(t, s, "/home/dev/shop")
			if dir := os.Getenv("CCSITE_DUMP"); dir != "" {
				// Whole pages to look at in a browser (with the site's assets).
				if err := os.WriteFile(filepath.Join(dir, name+".html"), []byte(page), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if reason := knownBugs[name]; reason != "" {
				t.Skip(reason)
			}
			got := conversation(t, page)
			golden := filepath.Join("testdata", "golden", name+".golden")
			if update() {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with CCSITE_UPDATE=1, then read the golden)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the page (-want +got):\n%s", golden, lineDiff(string(want), got))
			}
		})
	}
}

// TestPagesWellFormed checks every case's whole page: ids are unique and
// every in-page link has its target.
func TestPagesWellFormed(t *testing.T) {
	t.Parallel()
	for _, file := range caseFiles(t) {
		name := caseName(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := loadSession(t, file)
			page := renderSession(t, s, "/home/dev/shop")
			probs := idProblems(parseHTML(t, page))
			if len(probs) > 0 && knownBugs[name] != "" {
				t.Skip(knownBugs[name])
			}
			for _, p := range probs {
				t.Error(p)
			}
			for _, a := range s.Agents {
				if agentPage(s, a) == "" {
					continue
				}
				for _, p := range idProblems(parseHTML(t, renderAgent(t, s, a, "/home/dev/shop"))) {
					t.Errorf("agent %s: %s", a.Agent.AgentID, p)
				}
			}
		})
	}
}

// lineDiff is a small line diff: the lines of want and got around the
// first difference.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	from := max(0, i-2)
	for k := from; k < i; k++ {
		b.WriteString("  " + w[k] + "\n")
	}
	for k := i; k < min(len(w), i+8); k++ {
		b.WriteString("- " + w[k] + "\n")
	}
	for k := i; k < min(len(g), i+8); k++ {
		b.WriteString("+ " + g[k] + "\n")
	}
	return b.String()
}

// TestAgentLinks follows the links between a session and its sub-agents'
// pages, both ways: the Task card and the header list open the agent's
// page, and the agent's page leads back to the exact call.
func TestAgentLinks(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tool-task", "tool-task-inline"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := loadSession(t, filepath.Join("testdata", "sessions", name+".jsonl"))
			main := sessionPage(s)
			doc := parseHTML(t, renderSession(t, s, "/home/dev/shop"))
			ids := map[string]bool{}
			walk(doc, func(n *html.Node) {
				if id, ok := attr(n, "id"); ok {
					ids[id] = true
				}
			})
			pages := 0
			for _, a := range s.Agents {
				ap := agentPage(s, a)
				if ap == "" {
					continue
				}
				pages++
				want := link.Rel(main, ap)
				cards := find(doc, func(n *html.Node) bool {
					href, _ := attr(n, "href")
					return hasClass(n, "agent-link") && href == want
				})
				if len(cards) != 1 {
					t.Errorf("agent %s: %d Task cards link to %s, want 1", a.Agent.AgentID, len(cards), want)
				}
				// The card sits in the section of the call that ran it.
				if len(cards) == 1 {
					sec := cards[0]
					for sec != nil && !hasClass(sec, "tool") {
						sec = sec.Parent
					}
					if id, _ := attr(sec, "id"); sec == nil || id != link.Tool(a.Agent.ToolUseID) {
						t.Errorf("agent %s: the link is not in the card of call %s", a.Agent.AgentID, a.Agent.ToolUseID)
					}
				}
				back := parseHTML(t, renderAgent(t, s, a, "/home/dev/shop"))
				found := false
				for _, n := range find(back, func(n *html.Node) bool { return n.DataAtom == atom.A }) {
					href, _ := attr(n, "href")
					page, frag, ok := strings.Cut(href, "#")
					if !ok || textOf(n) != "the call that ran it" {
						continue
					}
					found = true
					if page != link.Rel(ap, main) {
						t.Errorf("agent %s: back link to page %q, want %q", a.Agent.AgentID, page, link.Rel(ap, main))
					}
					if !ids[frag] {
						t.Errorf("agent %s: back link to #%s, which is not on the session page", a.Agent.AgentID, frag)
					}
				}
				if !found {
					t.Errorf("agent %s: its page has no link back to the call that ran it", a.Agent.AgentID)
				}
			}
			if pages != 1 {
				t.Errorf("%d sub-agent pages, want 1", pages)
			}
		})
	}
}

// TestGoldenFiles: every golden belongs to a case, and no known-bug case
// keeps a golden of its wrong page.
func TestGoldenFiles(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{}
	for _, f := range caseFiles(t) {
		cases[caseName(f)] = true
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "golden", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		name := strings.TrimSuffix(filepath.Base(g), ".golden")
		switch {
		case !cases[name]:
			t.Errorf("%s has no testdata/sessions/%s.jsonl", g, name)
		case knownBugs[name] != "":
			t.Errorf("%s: case %s is a known bug; its golden would freeze the wrong page", g, name)
		}
	}
	for name := range knownBugs {
		if !cases[name] {
			t.Errorf("knownBugs names %s, which has no testdata/sessions/%s.jsonl", name, name)
		}
	}
}
