package build

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/theme"
)

// comparePage is the page comparing two sessions: static, it reads
// compare.html?a=<session>&b=<session> in the browser and loads the two
// sessions' facts scripts through the compare index.
func comparePage() *render.Page {
	return &render.Page{Path: link.Compare(), Title: "Compare sessions", Kind: "compare",
		Crumbs: []render.Crumb{{Label: "Compare sessions"}},
		Body:   &render.CompareView{Index: link.CompareIndex(), Script: link.Asset("compare.js")}}
}

// compareIndex lists every session with a page, in the archive's order,
// for the compare page and the session pages' "Compare with…" control.
func compareIndex(pl *sitePlan, units map[string]*unit) []byte {
	var entries []render.CompareEntry
	for _, pp := range pl.projects {
		for _, sp := range pp.sessions {
			u := units[sp.page]
			if u == nil || u.Orphan != nil {
				continue
			}
			e := render.CompareEntry{ID: u.Session, Title: u.Overview.Title, Project: u.Project, Page: sp.page, Facts: link.Facts(sp.page)}
			if e.Title == "" {
				e.Title = u.Title
			}
			if t := render.MkTime(u.Overview.Start); !t.Zero {
				e.Start = t.ISO
			}
			entries = append(entries, e)
		}
	}
	return render.CompareIndexJS(entries)
}

// writeCompare writes the compare page and the compare index. The page
// is a tool of the site, as its assets are: not counted among its pages
// nor listed in the sitemap (without a query it compares nothing).
func writeCompare(cfg Config, ts *render.Templates, w *siteWriter, pl *sitePlan, units map[string]*unit) error {
	page, err := renderPage(ts, cfg, comparePage())
	if err != nil {
		return err
	}
	if _, err := w.write(link.Compare(), page); err != nil {
		return err
	}
	_, err = w.write(link.CompareIndex(), compareIndex(pl, units))
	return err
}

// CompareConfig configures a single-file comparison of two sessions.
type CompareConfig struct {
	// A and B are the sessions' .jsonl files.
	A, B     string
	Out      string
	Theme    string
	ThemeDir string
	// Redact, Omit and Home are as for Share.
	Redact *redact.Redactor
	Omit   omit.Options
	Home   string
}

// Compare writes two sessions' comparison as one self-contained HTML file:
// the compare page with its styles, script and both sessions' facts
// inlined. It opens offline.
func Compare(ctx context.Context, cfg CompareConfig) error {
	th, err := theme.Open(cfg.Theme, cfg.ThemeDir)
	if err != nil {
		return err
	}
	ts, err := loadTemplates(th)
	if err != nil {
		return err
	}
	rb := &render.Builder{MD: markup.New(markup.NewHighlighter()), Home: cfg.Home}
	var facts [2]render.Facts
	for i, file := range []string{cfg.A, cfg.B} {
		l, err := loadOne(ctx, "compare", file, cfg.Redact, cfg.Omit, cfg.Home)
		if err != nil {
			return err
		}
		s := l.Session
		v := rb.Session(s, l.Project.Path, render.Links{Page: link.Compare(), Agent: func(*session.Session) string { return "" }})
		facts[i] = render.SessionFacts(s, v, "")
	}
	css, err := th.Asset("style.css")
	if err != nil {
		return err
	}
	themeCSS, _ := th.Asset("theme.css")
	var js []byte
	for _, name := range []string{"app.js", "compare.js"} {
		b, err := th.Asset(name)
		if err != nil {
			return err
		}
		js = append(append(js, b...), '\n')
	}
	p := &render.Page{Path: link.Compare(), Title: facts[0].Title + " vs " + facts[1].Title, Kind: "compare", Single: true,
		Body:      &render.CompareView{Inline: render.InlineFacts(facts[0], facts[1])},
		InlineCSS: template.CSS(string(withCodeStyles(css)) + "\n" + string(themeCSS)),
		InlineJS:  template.JS(strings.ReplaceAll(string(js), "</script", `<\/script`))}
	var buf bytes.Buffer
	if err := ts.Page(&buf, p); err != nil {
		return fmt.Errorf("render the comparison: %w", err)
	}
	if dir := filepath.Dir(cfg.Out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return WriteFile(cfg.Out, buf.Bytes())
}
