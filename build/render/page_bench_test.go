package render_test

import (
	"bytes"
	"testing"

	"ccsite/build/link"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/templates"
)

// BenchmarkPage executes the templates of whole session pages: the test
// cases, and with $CCSITE_CORPUS every corpus session. The views are built
// once, outside the timing: this is what a --force build spends in the
// templates.
func BenchmarkPage(b *testing.B) {
	ts, err := render.Load(templates.FS)
	if err != nil {
		b.Fatal(err)
	}
	var pages []*render.Page
	files := corpusSessions(b)
	if len(files) == 0 {
		files = caseFiles(b)
	}
	for _, file := range files {
		s := loadSession(b, file)
		page := sessionPage(s)
		body := sharedBuilder.Session(s, "project", render.Links{Page: page, Project: link.Project(testProject),
			Agent: func(a *session.Session) string { return agentPage(s, a) }})
		pages = append(pages, &render.Page{Path: page, Title: s.Title, Kind: "session", Body: body})
	}
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, p := range pages {
			buf.Reset()
			if err := ts.Page(&buf, p); err != nil {
				b.Fatal(err)
			}
			n += buf.Len()
		}
		b.SetBytes(int64(n))
	}
}
