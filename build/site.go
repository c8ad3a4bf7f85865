package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"ccsite/build/archive"
	"ccsite/build/export"
	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/search"
	"ccsite/theme"
	"golang.org/x/sync/errgroup"
)

// SiteConfig configures a site build.
type SiteConfig struct {
	Paths   []string
	Out     string
	Workers int
	// Theme names a built-in theme ("" for the default); ThemeDir, when
	// set, is a folder whose templates and assets override it.
	Theme    string
	ThemeDir string
	// BaseURL, when set, is where the site will be published: pages get
	// canonical links and the site a sitemap.xml.
	BaseURL string
	// JSON also writes each session's model as <session>.json.
	JSON bool
	// NoSearch leaves out the search index, page and boxes.
	NoSearch bool
	// Redact, when set, rewrites every line before it is parsed (secrets,
	// the user's strings, paths) and anonymises project paths.
	Redact *redact.Redactor
	// Exclude leaves projects and sessions out; Omit leaves out thinking
	// or tool output.
	Exclude Exclude
	Omit    omit.Options
	// Force rebuilds every page, whatever the previous build left.
	Force bool
}

// SessionRedactions counts what was redacted in one session (its
// sub-agents included), by rule: never the values.
type SessionRedactions struct {
	Project string         `json:"project"`
	Session string         `json:"session"`
	Title   string         `json:"title"`
	Page    string         `json:"page"`
	Total   int            `json:"total"`
	ByRule  map[string]int `json:"byRule"`
	Files   []string       `json:"files"`
}

// SiteSummary counts what a build wrote.
type SiteSummary struct {
	Projects, Sessions, Agents, Orphans int
	Pages                               int
	Problems                            int
	Bytes                               int64
	Written                             int64
	Elapsed                             time.Duration
	Highlighted, HighlightHits, Plain   int64
	// Docs counts the search index's documents; Search describes the
	// static index derived from it.
	Docs   int
	Search search.StaticStats
	// Unreadable lists the files that could not be read, with why.
	Unreadable []string
	// ProblemList holds every problem, by file and line.
	ProblemList []session.Problem
	// Excluded says what the exclusions left out.
	Excluded ExcludeStats
	// Redacting is set when a redactor ran; Redactions are then its
	// counts per session, most first.
	Redacting  bool
	Redactions []SessionRedactions
}

// marker marks a folder as a ccsite output, so a build never writes over a
// folder of something else.
const marker = ".ccsite-site"

// ErrNotSite is returned when the output folder holds files but no marker.
var ErrNotSite = errors.New("output folder is not empty and was not written by ccsite")

// BuildSite discovers, parses and renders the archive at cfg.Paths into a
// static site in cfg.Out: a page per session and per sub-agent, a page per
// project, an index and the assets.
func BuildSite(ctx context.Context, cfg SiteConfig) (SiteSummary, error) {
	start := time.Now()
	var sum SiteSummary
	cfg.Out = filepath.Clean(cfg.Out)
	th, err := theme.Open(cfg.Theme, cfg.ThemeDir)
	if err != nil {
		return sum, err
	}
	ts, err := loadTemplates(th)
	if err != nil {
		return sum, err
	}
	a, err := archive.Discover(ctx, cfg.Paths)
	if err != nil {
		return sum, err
	}
	sum.Excluded = cfg.Exclude.Apply(a)
	if len(a.Projects) == 0 && len(a.Orphans) == 0 {
		return sum, fmt.Errorf("%w: the exclusions left nothing to build", archive.ErrNothing)
	}
	sum.Bytes = a.Bytes
	anonymize(a, cfg.Redact)
	previous, err := prepareOut(cfg.Out)
	if err != nil {
		return sum, err
	}
	hl := markup.NewHighlighter()
	b := &siteBuilder{cfg: cfg, ts: ts, theme: th, plan: planSite(a), media: map[string]bool{}, files: map[string]bool{}}
	if !cfg.NoSearch {
		b.index, err = search.Create(filepath.Join(cfg.Out, filepath.FromSlash(search.Dir)))
		if err != nil {
			return sum, err
		}
		b.startIndexer()
		defer b.abortIndex()
	}
	b.rb = &render.Builder{MD: markup.New(hl), Media: b.writeMedia}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	queue := make(chan Loaded, workers)
	for w := 0; w < workers; w++ {
		g.Go(func() error {
			for l := range queue {
				if err := b.renderSession(l); err != nil {
					return err
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(queue)
		return Load(gctx, a, LoadOptions{Workers: workers, Redact: cfg.Redact, Omit: cfg.Omit}, func(l Loaded) error {
			select {
			case queue <- l:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	if err := g.Wait(); err != nil {
		return sum, err
	}
	if b.mediaErr != nil {
		return sum, b.mediaErr
	}
	if b.index != nil {
		if sum.Docs, err = b.closeIndex(); err != nil {
			return sum, err
		}
		if sum.Search, err = b.index.WriteStatic(b.writeOut); err != nil {
			return sum, fmt.Errorf("static search index: %w", err)
		}
	}
	if err := b.writeLists(a); err != nil {
		return sum, err
	}
	if err := b.writeAssets(); err != nil {
		return sum, err
	}
	if cfg.BaseURL != "" {
		if err := b.writeSitemap(); err != nil {
			return sum, err
		}
	}
	// What the last build wrote and this one did not (a deleted session, an
	// option turned off) goes; files someone else put there (CNAME,
	// .nojekyll) stay.
	if err := b.prune(previous); err != nil {
		return sum, err
	}
	if err := b.writeMarker(); err != nil {
		return sum, err
	}
	sum.Projects = len(b.plan.projects)
	sum.Sessions, sum.Agents, sum.Orphans = b.sessions, b.agents, b.orphans
	sum.Pages, sum.Problems, sum.Written = b.pages, b.problems, b.written
	sort.Strings(b.unreadable)
	sum.Unreadable = b.unreadable
	sum.HighlightHits, sum.Highlighted, sum.Plain = hl.Stats()
	sum.Redacting, sum.Redactions = cfg.Redact.Active(), b.redactions()
	sort.SliceStable(b.problemList, func(i, j int) bool {
		pi, pj := b.problemList[i], b.problemList[j]
		if pi.File != pj.File {
			return pi.File < pj.File
		}
		return pi.Line < pj.Line
	})
	sum.ProblemList = b.problemList
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// anonymize writes the projects' paths (and names) without the home folder
// and user name, when the redactor is asked to.
func anonymize(a *archive.Archive, red *redact.Redactor) {
	for _, p := range a.Projects {
		p.Path = red.Path(p.Path)
		p.Name = red.Path(p.Name)
	}
}

// anonymizeSources anonymises the source file paths a page shows, once
// the redaction counts have been tied to the real ones.
func anonymizeSources(s *session.Session, red *redact.Redactor) {
	s.Path = red.Path(s.Path)
	for i := range s.Problems {
		s.Problems[i].File = red.Path(s.Problems[i].File)
	}
	for _, a := range s.Agents {
		anonymizeSources(a, red)
	}
}

// prepareOut makes the output folder, refusing a non-empty folder that is
// not a previous site. It returns the files the previous build wrote, as
// its marker lists them.
func prepareOut(out string) ([]string, error) {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, os.MkdirAll(out, 0o755)
	}
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
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

// sitePlan fixes every page's path before anything is parsed.
type sitePlan struct {
	projects []*projectPlan
	byFile   map[*archive.SessionFile]*sessionPlan
	byProj   map[*archive.Project]*projectPlan
}

type projectPlan struct {
	p        *archive.Project
	slug     string
	sessions []*sessionPlan // by start time

	mu      sync.Mutex
	rows    map[string]render.SessionRow // by session path
	orphans []render.Nav
	first   time.Time
	last    time.Time
	tokens  int64
	tools   int
	days    map[time.Time]int // sessions started per day (UTC)
}

type sessionPlan struct {
	file       *archive.SessionFile
	page       string
	prev, next *sessionPlan
}

func planSite(a *archive.Archive) *sitePlan {
	pl := &sitePlan{byFile: map[*archive.SessionFile]*sessionPlan{}, byProj: map[*archive.Project]*projectPlan{}}
	taken := map[string]bool{}
	for _, p := range a.Projects {
		slug := link.ProjectSlug(p.Path)
		for n := 2; taken[slug]; n++ {
			slug = fmt.Sprintf("%s-%d", link.ProjectSlug(p.Path), n)
		}
		taken[slug] = true
		pp := &projectPlan{p: p, slug: slug, rows: map[string]render.SessionRow{}}
		files := append([]*archive.SessionFile(nil), p.Sessions...)
		sort.SliceStable(files, func(i, j int) bool {
			ti, tj := files[i].FirstTime, files[j].FirstTime
			if !ti.Equal(tj) {
				return ti.Before(tj)
			}
			return files[i].Path < files[j].Path
		})
		for i, f := range files {
			sp := &sessionPlan{file: f, page: link.Session(slug, f.ID)}
			if i > 0 {
				sp.prev = pp.sessions[i-1]
				pp.sessions[i-1].next = sp
			}
			pp.sessions = append(pp.sessions, sp)
			pl.byFile[f] = sp
		}
		pl.projects = append(pl.projects, pp)
		pl.byProj[p] = pp
	}
	// Orphan agents may name a project no session has: plan it now, so its
	// slug is fixed (and unique) whatever order pages are rendered in.
	for _, ag := range a.Orphans {
		op := orphanProject(a, ag)
		if pl.byPath(op.Path) != nil {
			continue
		}
		slug := link.ProjectSlug(op.Path)
		for n := 2; taken[slug]; n++ {
			slug = fmt.Sprintf("%s-%d", link.ProjectSlug(op.Path), n)
		}
		taken[slug] = true
		pp := &projectPlan{p: op, slug: slug, rows: map[string]render.SessionRow{}}
		pl.projects = append(pl.projects, pp)
		pl.byProj[op] = pp
	}
	return pl
}

func (pl *sitePlan) byPath(path string) *projectPlan {
	for _, pp := range pl.projects {
		if pp.p.Path == path {
			return pp
		}
	}
	return nil
}

// projectOf finds or adds the plan of a project (orphans may name a
// project no session has).
func (pl *sitePlan) projectOf(p *archive.Project) *projectPlan {
	if pp := pl.byProj[p]; pp != nil {
		return pp
	}
	if pp := pl.byPath(p.Path); pp != nil {
		return pp
	}
	// Not planned (cannot happen: every orphan's project is): keep going
	// with a fresh, numbered slug rather than fail.
	pp := &projectPlan{p: p, slug: link.ProjectSlug(p.Path) + "-extra", rows: map[string]render.SessionRow{}}
	pl.projects = append(pl.projects, pp)
	pl.byProj[p] = pp
	return pp
}

type siteBuilder struct {
	cfg   SiteConfig
	ts    *render.Templates
	theme *theme.Theme
	rb    *render.Builder
	plan  *sitePlan

	mu                               sync.Mutex
	sessions, agents, orphans, pages int
	problems                         int
	problemList                      []session.Problem
	unreadable                       []string
	written                          int64
	planMu                           sync.Mutex
	mediaMu                          sync.Mutex
	media                            map[string]bool
	mediaErr                         error
	urls                             []string
	writtenMu                        sync.Mutex
	files                            map[string]bool
	index                            *search.Writer
	docs                             chan []search.Doc
	indexDone                        chan error
	// owners maps each source file to the session page showing it, for
	// the redaction counts per session.
	owners map[string]*SessionRedactions
}

// own records which session shows the files of s (its sub-agents' too).
func (b *siteBuilder) own(s *session.Session, project, page string) {
	if !b.cfg.Redact.Active() {
		return
	}
	o := &SessionRedactions{Project: project, Session: s.ID, Title: s.Title, Page: page}
	b.count(func() {
		if b.owners == nil {
			b.owners = map[string]*SessionRedactions{}
		}
		b.owners[s.Path] = o
		for _, a := range s.Agents {
			if b.owners[a.Path] == nil {
				b.owners[a.Path] = o
			}
		}
	})
}

// redactions turns the redactor's counts by file into counts by session.
func (b *siteBuilder) redactions() []SessionRedactions {
	if !b.cfg.Redact.Active() {
		return nil
	}
	_, byFile := b.cfg.Redact.Counts()
	var out []SessionRedactions
	by := map[*SessionRedactions]*SessionRedactions{}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		o := b.owners[f]
		if o == nil { // a file no page shows (it failed to parse): itself
			o = &SessionRedactions{Session: filepath.Base(f)}
			b.owners[f] = o
		}
		r := by[o]
		if r == nil {
			c := *o
			c.ByRule = map[string]int{}
			r = &c
			by[o] = r
		}
		r.Files = append(r.Files, f)
		for rule, n := range byFile[f] {
			r.ByRule[rule] += n
			r.Total += n
		}
	}
	for _, r := range by {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Page+out[i].Session < out[j].Page+out[j].Session
	})
	return out
}

// addDocs hands a page's search documents to the indexer goroutine, so
// rendering never waits for the index to write a batch.
func (b *siteBuilder) addDocs(s *session.Session, page, project string) error {
	if b.docs == nil {
		return nil
	}
	if docs := search.Docs(s, page, project); len(docs) > 0 {
		b.docs <- docs
	}
	return nil
}

// abortIndex stops the indexer when a build fails before closeIndex.
func (b *siteBuilder) abortIndex() {
	if b.docs == nil {
		return
	}
	close(b.docs)
	<-b.indexDone
	b.docs = nil
	b.index.Close()
}

// startIndexer indexes what addDocs sends until closeIndex.
func (b *siteBuilder) startIndexer() {
	b.docs = make(chan []search.Doc, 64)
	b.indexDone = make(chan error, 1)
	go func() {
		var err error
		for docs := range b.docs {
			if err == nil {
				err = b.index.Add(docs)
			}
		}
		b.indexDone <- err
	}()
}

// closeIndex finishes the search index and records its files as the
// build's.
func (b *siteBuilder) closeIndex() (int, error) {
	close(b.docs)
	addErr := <-b.indexDone
	b.docs = nil
	n, err := b.index.Close()
	if addErr != nil {
		err = addErr
	}
	if err != nil {
		return n, fmt.Errorf("search index: %w", err)
	}
	dir := filepath.Join(b.cfg.Out, filepath.FromSlash(search.Dir))
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b.writtenMu.Lock()
			b.files[filepath.Clean(p)] = true
			b.writtenMu.Unlock()
		}
		return err
	})
	return n, err
}

// writeMedia stores an image once under media/, named by its content hash.
func (b *siteBuilder) writeMedia(ext string, data []byte) string {
	sum := sha256.Sum256(data)
	p := link.Media(hex.EncodeToString(sum[:12]) + "." + ext)
	b.mediaMu.Lock()
	defer b.mediaMu.Unlock()
	if b.media[p] {
		return p
	}
	if err := b.writeOut(p, data); err != nil {
		b.mediaErr = err
		return ""
	}
	b.media[p] = true
	return p
}

func navTo(from string, sp *sessionPlan, label string) *render.Nav {
	if sp == nil {
		return nil
	}
	t := render.MkTime(sp.file.FirstTime)
	title := label
	if !t.Zero {
		title += " · " + sp.file.FirstTime.UTC().Format("2006-01-02 15:04")
	}
	return &render.Nav{Title: title, URL: link.Rel(from, sp.page), Time: t}
}

// renderSession writes a session's page and its sub-agents' pages, or an
// orphan agent's page.
func (b *siteBuilder) renderSession(l Loaded) error {
	if l.Err != nil || l.Session == nil {
		// A file that could not be read at all: reported, the rest goes on.
		path := ""
		if l.File != nil {
			path = l.File.Path
		}
		b.count(func() { b.unreadable = append(b.unreadable, fmt.Sprintf("%s: %v", path, l.Err)) })
		return nil
	}
	s := l.Session
	b.planMu.Lock()
	pp := b.plan.projectOf(l.Project)
	b.planMu.Unlock()
	project := l.Project.Path
	if s.Agent != nil && s.Agent.Orphan {
		page := link.Agent(pp.slug, "orphans", s.Agent.AgentID)
		b.own(s, project, page)
		anonymizeSources(s, b.cfg.Redact)
		body := b.rb.Session(s, project, render.Links{Page: page, Project: link.Project(pp.slug), Agent: func(*session.Session) string { return "" }})
		if err := b.writePage(page, "agent", s.Title, pp, nil, body); err != nil {
			return err
		}
		if err := b.addDocs(s, page, project); err != nil {
			return err
		}
		pp.mu.Lock()
		pp.orphans = append(pp.orphans, render.Nav{Title: s.Title, URL: link.Rel(link.Project(pp.slug), page), Time: render.MkTime(s.Start)})
		pp.mu.Unlock()
		b.count(func() {
			b.orphans++
			b.problems += len(s.Problems)
			b.problemList = append(b.problemList, s.Problems...)
		})
		return nil
	}
	sp := b.plan.byFile[l.File]
	page := sp.page
	b.own(s, project, page)
	anonymizeSources(s, b.cfg.Redact)
	agentPage := func(a *session.Session) string {
		if a.Agent == nil || a.Agent.Warmup {
			return ""
		}
		return link.Agent(pp.slug, s.ID, a.Agent.AgentID)
	}
	links := render.Links{Page: page, Project: link.Project(pp.slug), Agent: agentPage,
		Prev: navTo(page, sp.prev, "Previous session"), Next: navTo(page, sp.next, "Next session"),
		Markdown: link.Export(page, ".md")}
	if b.cfg.JSON {
		links.JSON = link.Export(page, ".json")
		if err := b.writeExport(links.JSON, func(w io.Writer) error { return export.JSON(w, s) }); err != nil {
			return err
		}
	}
	if err := b.writeExport(links.Markdown, func(w io.Writer) error { return export.Markdown(w, s, project) }); err != nil {
		return err
	}
	body := b.rb.Session(s, project, links)
	if err := b.writePage(page, "session", s.Title, pp, nil, body); err != nil {
		return err
	}
	if err := b.addDocs(s, page, project); err != nil {
		return err
	}
	for _, a := range s.Agents {
		ap := agentPage(a)
		if ap == "" {
			continue
		}
		al := render.Links{Page: ap, Project: link.Project(pp.slug), Agent: func(*session.Session) string { return "" },
			Parent: page, ParentTitle: s.Title, Markdown: link.Export(ap, ".md")}
		if err := b.writeExport(al.Markdown, func(w io.Writer) error { return export.Markdown(w, a, project) }); err != nil {
			return err
		}
		ab := b.rb.Session(a, project, al)
		if err := b.addDocs(a, ap, project); err != nil {
			return err
		}
		crumb := []render.Crumb{{Label: s.Title, URL: link.Rel(ap, page)}}
		if err := b.writePage(ap, "agent", a.Title, pp, crumb, ab); err != nil {
			return err
		}
		b.count(func() {
			b.agents++
			b.problems += len(a.Problems)
			b.problemList = append(b.problemList, a.Problems...)
		})
	}
	pp.mu.Lock()
	pp.rows[l.File.Path] = render.Row(s, link.Rel(link.Project(pp.slug), page))
	if s.End.After(pp.last) {
		pp.last = s.End
	}
	if !s.Start.IsZero() {
		if pp.first.IsZero() || s.Start.Before(pp.first) {
			pp.first = s.Start
		}
		if pp.days == nil {
			pp.days = map[time.Time]int{}
		}
		y, m, d := s.Start.UTC().Date()
		pp.days[time.Date(y, m, d, 0, 0, 0, 0, time.UTC)]++
	}
	t := s.Stats.Tokens
	pp.tokens += t.Input + t.Output + t.CacheRead + t.CacheWrite
	pp.tools += s.Stats.ToolCalls
	pp.mu.Unlock()
	b.count(func() {
		b.sessions++
		b.problems += len(s.Problems)
		b.problemList = append(b.problemList, s.Problems...)
	})
	return nil
}

func (b *siteBuilder) count(f func()) {
	b.mu.Lock()
	f()
	b.mu.Unlock()
}

func (b *siteBuilder) writePage(page, kind, title string, pp *projectPlan, extra []render.Crumb, body any) error {
	crumbs := []render.Crumb{{Label: pp.p.Name, URL: link.Rel(page, link.Project(pp.slug))}}
	crumbs = append(crumbs, extra...)
	crumbs = append(crumbs, render.Crumb{Label: title})
	return b.write(page, &render.Page{Path: page, Title: title, Kind: kind, Crumbs: crumbs, Body: body})
}

// writeExport writes one of a session's other forms.
func (b *siteBuilder) writeExport(path string, fn func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fn(&buf); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	return b.writeOut(path, buf.Bytes())
}

// writeOut writes a file of the site (a slash path from its root) and
// records it as this build's.
func (b *siteBuilder) writeOut(path string, data []byte) error {
	full := filepath.Join(b.cfg.Out, filepath.FromSlash(path))
	if err := writeFile(full, data); err != nil {
		return err
	}
	b.writtenMu.Lock()
	b.files[filepath.Clean(full)] = true
	b.writtenMu.Unlock()
	return nil
}

func (b *siteBuilder) write(page string, p *render.Page) error {
	p.Search = !b.cfg.NoSearch
	if b.cfg.BaseURL != "" {
		p.Canonical = b.cfg.BaseURL + page
		if p.Kind != "search" { // a page with no content of its own
			b.count(func() { b.urls = append(b.urls, page) })
		}
	}
	var buf bytes.Buffer
	if err := b.ts.Page(&buf, p); err != nil {
		return fmt.Errorf("render %s: %w", page, err)
	}
	if err := b.writeOut(page, buf.Bytes()); err != nil {
		return err
	}
	b.count(func() { b.pages++; b.written += int64(buf.Len()) })
	return nil
}

// prune removes the files the previous build wrote and this one did not,
// then the folders that leaves empty.
func (b *siteBuilder) prune(previous []string) error {
	dirs := map[string]bool{}
	for _, rel := range previous {
		if strings.Contains(rel, "..") || filepath.IsAbs(rel) {
			continue // a marker edited by hand: never leave the site
		}
		full := filepath.Join(b.cfg.Out, filepath.FromSlash(rel))
		if b.wrote(full) {
			continue
		}
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("clean %s: %w", b.cfg.Out, err)
		}
		for d := filepath.Dir(full); d != b.cfg.Out && strings.HasPrefix(d, b.cfg.Out); d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	var list []string
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	for _, d := range list {
		os.Remove(d) // fails, harmlessly, when not empty
	}
	return nil
}

// writeMarker writes the marker: it names the folder as ccsite's and lists
// what this build wrote, sorted.
func (b *siteBuilder) writeMarker() error {
	var files []string
	b.writtenMu.Lock()
	for full := range b.files {
		if rel, err := filepath.Rel(b.cfg.Out, full); err == nil {
			files = append(files, filepath.ToSlash(rel))
		}
	}
	b.writtenMu.Unlock()
	sort.Strings(files)
	var buf bytes.Buffer
	buf.WriteString("# Written by ccsite: the files of its last build, removed by the next one\n# when it no longer writes them. Other files here are left alone.\n")
	for _, f := range files {
		buf.WriteString(f + "\n")
	}
	return writeFile(filepath.Join(b.cfg.Out, marker), buf.Bytes())
}

func (b *siteBuilder) wrote(path string) bool {
	b.writtenMu.Lock()
	defer b.writtenMu.Unlock()
	return b.files[filepath.Clean(path)]
}

// writeFile writes through a temporary file and a rename, so a reader never
// sees half a page.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeLists writes the project pages and the index.
func (b *siteBuilder) writeLists(a *archive.Archive) error {
	idx := &render.IndexView{}
	projects := append([]*projectPlan(nil), b.plan.projects...)
	sort.SliceStable(projects, func(i, j int) bool {
		if !projects[i].last.Equal(projects[j].last) {
			return projects[i].last.After(projects[j].last)
		}
		return projects[i].p.Path < projects[j].p.Path
	})
	for _, pp := range projects {
		page := link.Project(pp.slug)
		pv := &render.ProjectView{Name: pp.p.Name, Path: pp.p.Path, Orphans: pp.orphans, Timeline: markup.Timeline(pp.days),
			First: render.MkTime(pp.first), Last: render.MkTime(pp.last), Tokens: pp.tokens, ToolCalls: pp.tools}
		for i := len(pp.sessions) - 1; i >= 0; i-- { // newest first
			if row, ok := pp.rows[pp.sessions[i].file.Path]; ok {
				pv.Sessions = append(pv.Sessions, row)
			}
		}
		sort.SliceStable(pv.Orphans, func(i, j int) bool { return pv.Orphans[i].URL < pv.Orphans[j].URL })
		if len(pv.Sessions) == 0 && len(pv.Orphans) == 0 {
			continue
		}
		p := &render.Page{Path: page, Title: pp.p.Name, Kind: "project", Crumbs: []render.Crumb{{Label: pp.p.Name}}, Body: pv}
		if err := b.write(page, p); err != nil {
			return err
		}
		idx.Projects = append(idx.Projects, render.ProjectRow{Name: pp.p.Name, Path: pp.p.Path, URL: page,
			Sessions: len(pv.Sessions), Last: render.MkTime(pp.last), Tokens: pp.tokens, ToolCalls: pp.tools})
		idx.Sessions += len(pv.Sessions)
	}
	if !b.cfg.NoSearch {
		if err := b.write(link.Search(), &render.Page{Path: link.Search(), Title: "Search", Kind: "search",
			Crumbs: []render.Crumb{{Label: "Search"}}}); err != nil {
			return err
		}
	}
	return b.write(link.Index(), &render.Page{Path: link.Index(), Title: "All projects", Kind: "index", Body: idx})
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
func (b *siteBuilder) writeAssets() error {
	for _, name := range b.theme.Assets() {
		data, err := b.theme.Asset(name)
		if err != nil {
			return err
		}
		if name == "style.css" {
			data = withCodeStyles(data)
		}
		if err := b.writeOut("assets/"+name, data); err != nil {
			return err
		}
	}
	return nil
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

// writeSitemap lists every page under the base URL, sorted.
func (b *siteBuilder) writeSitemap() error {
	sort.Strings(b.urls)
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	buf.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, u := range b.urls {
		buf.WriteString("  <url><loc>")
		xml.EscapeText(&buf, []byte(b.cfg.BaseURL+u))
		buf.WriteString("</loc></url>\n")
	}
	buf.WriteString("</urlset>\n")
	return b.writeOut("sitemap.xml", buf.Bytes())
}
