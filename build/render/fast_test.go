package render_test

import (
	"bytes"
	"testing"

	"ccsite/build/link"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/templates"
)

// TestFastMatchesTemplates renders whole session pages with the Go blocks
// (fast.go) and with every block from its template, and compares them byte
// for byte: the test cases, the hostile transcript, and with
// $CCSITE_CORPUS every session of the corpus.
func TestFastMatchesTemplates(t *testing.T) {
	slow, err := render.Load(templates.FS)
	if err != nil {
		t.Fatal(err)
	}
	slow.Slow()
	fast := templatesForTest(t)
	files := caseFiles(t)
	path, _ := hostileTranscript(t, t.TempDir())
	files = append(files, path)
	files = append(files, corpusSessions(t)...)
	pages := 0
	for _, file := range files {
		s := loadSession(t, file)
		for _, long := range []bool{false, true} {
			// DeferAfter 1 makes every page a very long one: turns and
			// tool bodies deferred.
			b := &render.Builder{MD: sharedBuilder.MD}
			if long {
				b.DeferAfter = 1
			}
			page := sessionPage(s)
			body := b.Session(s, "project", render.Links{Page: page, Project: link.Project(testProject),
				Agent: func(a *session.Session) string { return agentPage(s, a) }})
			p := &render.Page{Path: page, Title: s.Title, Kind: "session", Body: body}
			var want, got bytes.Buffer
			if err := slow.Page(&want, p); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if err := fast.Page(&got, p); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			pages++
			if !bytes.Equal(want.Bytes(), got.Bytes()) {
				w, g := want.String(), got.String()
				i := 0
				for i < len(w) && i < len(g) && w[i] == g[i] {
					i++
				}
				from := max(0, i-150)
				t.Errorf("%s (long %v): the page differs at byte %d:\ntemplates: …%q…\nGo:        …%q…", file, long, i,
					w[from:min(len(w), i+150)], g[from:min(len(g), i+150)])
			}
		}
	}
	t.Logf("%d pages the same both ways", pages)
}
