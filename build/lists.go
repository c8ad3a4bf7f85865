package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"ccsite/build/archive"
	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/redact"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/theme"
	"github.com/go-json-experiment/json"
)

// marker marks a folder as a ccsite output, so a build never writes over a
// folder of something else.
const marker = ".ccsite-site"

// markerHead starts the marker.
const markerHead = "# Written by ccsite: the files of its last build, removed by the next one\n# when it no longer writes them. Other files here are left alone.\n"

// ErrNotSite is returned when the output folder holds files but no marker.
var ErrNotSite = errors.New("output folder is not empty and was not written by ccsite")

// newBuilder is the page-body builder sharing one highlighter.
func newBuilder(hl *markup.Highlighter) *render.Builder {
	return &render.Builder{MD: markup.New(hl)}
}

// projectView is a project's page, made from its units: the rows of its
// sessions (newest first), those with no conversation apart, its orphan
// agents, its totals and timeline.
func projectView(pp *projectPlan, units map[string]*unit) *render.ProjectPage {
	pv := &render.ProjectView{Name: pp.p.Name, Path: pp.p.Path}
	page := &render.ProjectPage{ProjectView: pv}
	var first, last time.Time
	days := map[time.Time]int{}
	var tally render.CostTally
	for i := len(pp.sessions) - 1; i >= 0; i-- { // newest first
		sp := pp.sessions[i]
		u := units[sp.page]
		if u == nil || u.Orphan != nil {
			continue
		}
		o := u.Overview
		row := render.RowOf(o, link.Rel(link.Project(pp.slug), sp.page))
		if o.NoConversation() {
			page.Empty = append(page.Empty, row)
		} else {
			pv.Sessions = append(pv.Sessions, row)
		}
		if o.End.After(last) {
			last = o.End
		}
		if !o.Start.IsZero() {
			if first.IsZero() || o.Start.Before(first) {
				first = o.Start
			}
			y, m, d := o.Start.UTC().Date()
			days[time.Date(y, m, d, 0, 0, 0, 0, time.UTC)]++
		}
		pv.Tokens += o.Tokens.Total()
		pv.ToolCalls += o.ToolCalls
		pv.CostUSD += o.Cost
		pv.CostUnknown = pv.CostUnknown || o.CostUnknown
		pv.CostPartial = pv.CostPartial || o.CostPartial
		tally.Add(o)
	}
	for _, page := range pp.orphanPages {
		if u := units[page]; u != nil && u.Orphan != nil {
			pv.Orphans = append(pv.Orphans, *u.Orphan)
		}
	}
	sort.SliceStable(pv.Orphans, func(i, j int) bool { return pv.Orphans[i].URL < pv.Orphans[j].URL })
	if len(days) == 0 {
		days = nil
	}
	pv.Timeline = markup.Timeline(days)
	pv.CostDays, pv.CostModels = tally.Charts()
	pv.First, pv.Last = render.MkTime(first), render.MkTime(last)
	pv.Tags = render.Tags(append(append([]render.SessionRow(nil), pv.Sessions...), page.Empty...))
	return page
}

// tagGroups lists the archive's tagged sessions under their tags, tags by
// name, sessions newest first.
func tagGroups(list []recentSession) []render.TagGroup {
	sort.SliceStable(list, func(i, j int) bool { return list[i].o.Start.After(list[j].o.Start) })
	byTag := map[string]*render.TagGroup{}
	var out []*render.TagGroup
	for _, r := range list {
		g := byTag[r.o.Tag]
		if g == nil {
			g = &render.TagGroup{Name: r.o.Tag}
			byTag[r.o.Tag] = g
			out = append(out, g)
		}
		g.Sessions = append(g.Sessions, render.TagSession{Title: r.o.Title, URL: link.Rel(link.Index(), r.page), Project: r.pp.p.Name})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	groups := make([]render.TagGroup, len(out))
	for i, g := range out {
		groups[i] = *g
	}
	return groups
}

// recentMax is how many sessions the index lists as the most recent.
const recentMax = 20

// recentSession is a session with a conversation, for the index's list of
// the most recent ones.
type recentSession struct {
	page string
	o    session.Overview
	pp   *projectPlan
}

// recentRows are the recentMax sessions with a conversation active last,
// across projects: newest end first, then by page.
func recentRows(list []recentSession) []render.RecentRow {
	sort.Slice(list, func(i, j int) bool {
		if !list[i].o.End.Equal(list[j].o.End) {
			return list[i].o.End.After(list[j].o.End)
		}
		return list[i].page < list[j].page
	})
	var rows []render.RecentRow
	for _, r := range list[:min(len(list), recentMax)] {
		rows = append(rows, render.RecentOf(r.o, link.Rel(link.Index(), r.page), r.pp.p.Name, link.Rel(link.Index(), link.Project(r.pp.slug))))
	}
	return rows
}

// writeLists writes the project pages, the search page and the index; it
// returns the pages with content of their own (the search page has none).
//
// A page whose listHash is the one prev gives it (the last build's, nil
// for none) and that is still in the site is kept as it is, not rendered:
// a build that changed one session renders its project's page and the
// index, not every project's. lists gets each page's hash.
func writeLists(cfg Config, ts *render.Templates, w *siteWriter, pl *sitePlan, units map[string]*unit, prev, lists map[string]string) (pages []string, rendered int, err error) {
	idx := &render.IndexView{}
	home := &render.HomeView{IndexView: idx}
	var archiveCost render.CostTally
	var recent, tagged []recentSession
	type proj struct {
		pp   *projectPlan
		pv   *render.ProjectPage
		last time.Time
	}
	var projects []proj
	for _, pp := range pl.projects {
		pv := projectView(pp, units)
		projects = append(projects, proj{pp, pv, lastOf(pp, units)})
	}
	sort.SliceStable(projects, func(i, j int) bool {
		if !projects[i].last.Equal(projects[j].last) {
			return projects[i].last.After(projects[j].last)
		}
		return projects[i].pp.p.Path < projects[j].pp.p.Path
	})
	write := func(p *render.Page) error {
		pages = append(pages, p.Path)
		h, err := listHash(cfg, p)
		if err != nil {
			return err
		}
		lists[p.Path] = h
		if prev[p.Path] == h && w.exists([]string{p.Path}) {
			w.keep([]string{p.Path})
			return nil
		}
		rendered++
		data, err := renderPage(ts, cfg, p)
		if err != nil {
			return err
		}
		return w.writePage(p.Path, data)
	}
	for _, pr := range projects {
		pp, pv := pr.pp, pr.pv
		if len(pv.Sessions) == 0 && len(pv.Empty) == 0 && len(pv.Orphans) == 0 {
			continue
		}
		page := link.Project(pp.slug)
		hp, hist := historyListPage(pp, units, pl.hist)
		if hist != nil {
			pv.History = link.Rel(page, hp)
		}
		if err := write(&render.Page{Path: page, Title: pp.p.Name, Kind: "project", Crumbs: []render.Crumb{{Label: pp.p.Name}}, Body: pv}); err != nil {
			return pages, rendered, err
		}
		if hist != nil {
			if err := write(hist); err != nil {
				return pages, rendered, err
			}
		} else {
			hp = ""
		}
		n := len(pv.Sessions) + len(pv.Empty)
		idx.Projects = append(idx.Projects, render.ProjectRow{Name: pp.p.Name, Path: pp.p.Path, URL: page,
			Sessions: n, Last: pv.Last, Tokens: pv.Tokens, ToolCalls: pv.ToolCalls,
			Cost: pv.Cost(), CostMicros: int64(pv.CostUSD*1e6 + 0.5), History: hp})
		idx.Sessions += n
		home.Totals.Projects++
		for _, sp := range pp.sessions {
			u := units[sp.page]
			if u == nil || u.Orphan != nil {
				continue
			}
			home.Totals.Add(u.Overview)
			archiveCost.Add(u.Overview)
			if !u.Overview.NoConversation() {
				recent = append(recent, recentSession{sp.page, u.Overview, pp})
			}
			if u.Overview.Tag != "" {
				tagged = append(tagged, recentSession{sp.page, u.Overview, pp})
			}
		}
	}
	home.Recent = recentRows(recent)
	home.Tags = tagGroups(tagged)
	home.CostDays, home.CostModels = archiveCost.Charts()
	if !cfg.NoSearch {
		if err := write(&render.Page{Path: link.Search(), Title: "Search", Kind: "search", Crumbs: []render.Crumb{{Label: "Search"}}}); err != nil {
			return pages, rendered, err
		}
	}
	if err := writeCompare(cfg, ts, w, pl, units); err != nil {
		return pages, rendered, err
	}
	err = write(&render.Page{Path: link.Index(), Title: "All projects", Kind: "index", Body: home})
	return pages, rendered, err
}

// listHash hashes what a list page is rendered from: the page, its view
// (every field of it: a view's fields are all exported) and the options
// renderPage adds. The templates and the other options are the build
// state's (a new ccsite or other options start it anew).
func listHash(cfg Config, p *render.Page) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "search=%v base=%q\n", !cfg.NoSearch, cfg.BaseURL)
	if err := json.MarshalWrite(h, p, stateJSON); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// lastOf is the end of a project's last session.
func lastOf(pp *projectPlan, units map[string]*unit) time.Time {
	var last time.Time
	for _, sp := range pp.sessions {
		if u := units[sp.page]; u != nil && u.Orphan == nil && u.Overview.End.After(last) {
			last = u.Overview.End
		}
	}
	return last
}

// writeSitemap lists every page under the base URL, sorted.
func writeSitemap(base string, w *siteWriter, urls []string) error {
	sort.Strings(urls)
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	buf.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, u := range urls {
		buf.WriteString("  <url><loc>")
		xml.EscapeText(&buf, []byte(base+u))
		buf.WriteString("</loc></url>\n")
	}
	buf.WriteString("</urlset>\n")
	_, err := w.write("sitemap.xml", buf.Bytes())
	return err
}

// redactions turns the redactor's counts by file into counts by session,
// with those of the units kept from the last build.
func redactions(red *redact.Redactor, owners map[string]*unit, units map[string]*unit) []SessionRedactions {
	if !red.Active() {
		return nil
	}
	_, byFile := red.Counts()
	var out []SessionRedactions
	for f, rules := range byFile {
		u := owners[f]
		if u == nil { // a file no page shows (it failed to parse): itself
			r := SessionRedactions{Session: red.NameOnly(filepath.Base(f)), Files: []string{red.NameOnly(f)}, ByRule: rules}
			for _, n := range rules {
				r.Total += n
			}
			out = append(out, r)
			continue
		}
		if u.Redacted == nil {
			u.Redacted = map[string]map[string]int{}
		}
		u.Redacted[red.NameOnly(f)] = rules
	}
	for page, u := range units {
		if len(u.Redacted) == 0 {
			continue
		}
		r := SessionRedactions{Project: u.Project, Session: u.Session, Title: u.Title, Page: page, ByRule: map[string]int{}}
		for f, rules := range u.Redacted {
			r.Files = append(r.Files, f)
			for rule, n := range rules {
				r.ByRule[rule] += n
				r.Total += n
			}
		}
		sort.Strings(r.Files)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Page+out[i].Session < out[j].Page+out[j].Session
	})
	return out
}

// redactNames passes the names the archive's folders and files give
// (project paths and names, session and agent ids taken from file names,
// the first cwd, worktree paths) through the redactor, which also
// anonymises them when asked: they become titles, page names and search
// documents. The paths the build reads from stay as they are.
func redactNames(a *archive.Archive, red *redact.Redactor) {
	if !red.Active() {
		return
	}
	agent := func(ag *archive.AgentFile) {
		ag.ID = red.Name(ag.Path, ag.ID)
		ag.ParentID = red.Name(ag.Path, ag.ParentID)
		ag.FirstCWD = red.Name(ag.Path, ag.FirstCWD)
		if ag.Meta != nil {
			ag.Meta.WorktreePath = red.Name(ag.Path, ag.Meta.WorktreePath)
		}
	}
	for _, p := range a.Projects {
		file := ""
		if len(p.Sessions) > 0 {
			file = p.Sessions[0].Path
		}
		p.Path = red.Name(file, p.Path)
		p.Name = red.Name(file, p.Name)
		for _, sf := range p.Sessions {
			sf.ID = red.Name(sf.Path, sf.ID)
			sf.SessionID = red.Name(sf.Path, sf.SessionID)
			sf.FirstCWD = red.Name(sf.Path, sf.FirstCWD)
			for _, ag := range sf.Agents {
				agent(ag)
			}
		}
	}
	for _, ag := range a.Orphans {
		agent(ag)
	}
}

// prepareOut makes the output folder, refusing a non-empty folder that is
// not a previous site. It returns the files the previous build wrote, as
// its marker lists them.
func prepareOut(out string) ([]string, error) {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		// Marked at once: a first build stopped halfway still leaves a
		// folder the next build may write into (and repair).
		return nil, writeInside(out, filepath.Join(out, marker), []byte(markerHead))
	}
	data, err := os.ReadFile(filepath.Join(out, marker))
	if err != nil {
		return nil, fmt.Errorf("%w: %s (choose another -o, or empty it)", ErrNotSite, out)
	}
	var files []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			files = append(files, line)
		}
	}
	return files, nil
}

// loadTemplates parses a theme's templates in override order.
func loadTemplates(th *theme.Theme) (*render.Templates, error) {
	files, err := th.Templates()
	if err != nil {
		return nil, err
	}
	rf := make([]render.File, len(files))
	for i, f := range files {
		rf[i] = render.File{Name: f.Name, Data: f.Data}
	}
	return render.LoadFiles(rf)
}

// writeAssets copies the theme's assets, with chroma's light and dark
// styles appended to the stylesheet.
func writeAssets(th *theme.Theme, w *siteWriter) error {
	for _, name := range th.Assets() {
		data, err := th.Asset(name)
		if err != nil {
			return err
		}
		if name == "style.css" {
			data = withCodeStyles(data)
		}
		if _, err := w.write("assets/"+name, data); err != nil {
			return err
		}
	}
	// GitHub Pages runs Jekyll on a site without it: Jekyll would turn
	// each session's .md export into an .html page over the real one, and
	// leave out files and folders whose names start with "_" or ".".
	_, err := w.write(".nojekyll", nil)
	return err
}

// withCodeStyles appends chroma's light and dark styles to a stylesheet:
// each applies only in its own mode, so no light colour leaks into dark.
func withCodeStyles(css []byte) []byte {
	// The code backgrounds of the built-in themes (--bg-soft), light and
	// dark: every token colour is made readable on all of them.
	light := []string{"#f6f8fa", "#f3eee2", "#f7f7f7"}
	dark := []string{"#151b23", "#26221c", "#0d1117"}
	var buf bytes.Buffer
	buf.Write(css)
	buf.WriteString("\n/* Code highlighting (chroma): light, then dark. */\n")
	buf.WriteString(markup.CSS(markup.LightStyle, `[data-theme="light"]`, light...))
	buf.WriteString("@media not (prefers-color-scheme: dark) {\n")
	buf.WriteString(markup.CSS(markup.LightStyle, `[data-theme="auto"]`, light...))
	buf.WriteString("}\n")
	buf.WriteString(markup.CSS(markup.DarkStyle, `[data-theme="dark"]`, dark...))
	buf.WriteString("@media (prefers-color-scheme: dark) {\n")
	buf.WriteString(markup.CSS(markup.DarkStyle, `[data-theme="auto"]`, dark...))
	buf.WriteString("}\n")
	return buf.Bytes()
}
