package build

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"ccsite/build/archive"
	"ccsite/build/export"
	"ccsite/build/keep"
	"ccsite/build/link"
	"ccsite/build/pricing"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/search"
)

// renderer turns a loaded session into files, search documents and a
// summary: a pure function of its input (it writes nothing and takes no
// lock; the highlight cache it shares guards itself).
type renderer struct {
	cfg  Config
	plan *sitePlan
	keys keyer
	ts   *render.Templates
	md   *render.Builder
	// origin maps the restored path of a source read from the archive
	// (its file is gone) to what the archive kept of it.
	origin map[string]*keep.Entry
	// prices are the embedded prices, or those of --pricing over them.
	prices *pricing.Table
	// prevUnits are the last build's units, when its search index is
	// updated: a unit whose key is the one it had there has the documents
	// it had (a --force build, or pages rewritten because they were gone).
	prevUnits map[string]*unit
}

// rendered is what rendering one session (its sub-agents included) or one
// orphan agent gives, for the collector to write.
type rendered struct {
	seq   int
	l     Loaded
	page  string
	pp    *projectPlan
	unit  *unit
	files []outFile
	docs  []search.Doc
	// docsKept holds the documents' hash when they are the last build's
	// (see prevUnits): they were not made again.
	docsKept string
	// failed says why the session gave no page (it could not be read, or
	// rendering it panicked).
	failed string
}

// outFile is a file of the site a render made.
type outFile struct {
	path  string
	data  []byte
	page  bool // a page (counted, and listed in the sitemap)
	media bool // a medium, named by its content: written once
	// buf, when set, is the pooled buffer data is in: given back
	// (release) once the file is written.
	buf *bytes.Buffer
}

// release gives f's buffer back to the pool; f.data is not used after.
func (f *outFile) release() {
	if f.buf != nil {
		putBuf(f.buf)
		f.buf, f.data = nil, nil
	}
}

// render renders l, a panic included: a bug ccsite has on one session's
// data is reported against its file while the rest of the site is built.
func (r *renderer) render(l Loaded, seq int) (res *rendered) {
	res = &rendered{seq: seq, l: l}
	defer func() {
		if p := recover(); p != nil {
			*res = rendered{seq: seq, l: l, failed: fmt.Sprintf("%s: %v", r.cfg.Redact.NameOnly(sourceOf(l)), panicError(p))}
		}
	}()
	if l.Cached != nil {
		return res
	}
	if l.Err != nil || l.Session == nil {
		// A file that could not be read at all: reported, the rest goes on.
		res.failed = fmt.Sprintf("%s: %v", sourceOf(l), l.Err)
		return res
	}
	if r.cfg.panicOn != nil && l.File != nil {
		r.cfg.panicOn("render", l.File.Path)
	}
	res.pp = r.plan.projectOf(l.Project)
	if res.pp == nil {
		res.failed = fmt.Sprintf("%s: its project was not planned (a bug; please report it)", sourceOf(l))
		return res
	}
	if s := l.Session; s.Agent != nil && s.Agent.Orphan {
		r.orphan(res)
	} else {
		r.session(res)
	}
	return res
}

// docsHook, when set (by tests), sees each page whose documents are made.
var docsHook func(page string)

// keptDocs notes in res that unit u at page has the last build's search
// documents: its key and claims are the ones the last build's unit there
// had, and the key covers all a page and its documents are made from.
func (r *renderer) keptDocs(res *rendered, page string, u *unit) {
	if old := r.prevUnits[page]; old != nil && u.Key != "" && old.DocsHash != "" && old.Key == u.Key && old.ClaimK == u.ClaimK {
		res.docsKept = old.DocsHash
	}
}

func sourceOf(l Loaded) string {
	switch {
	case l.File != nil:
		return l.File.Path
	case l.Agent != nil:
		return l.Agent.Path
	}
	return ""
}

// mediaOf is a Builder storing media as files of res.
func (r *renderer) mediaOf(res *rendered) *render.Builder {
	rb := *r.md
	rb.Home = r.cfg.Home
	rb.Media = func(ext string, data []byte) string {
		sum := sha256.Sum256(data)
		p := link.Media(hex.EncodeToString(sum[:12]) + "." + ext)
		res.files = append(res.files, outFile{path: p, data: data, media: true})
		return p
	}
	return &rb
}

// orphan renders an orphan agent's page.
func (r *renderer) orphan(res *rendered) {
	l, s, pp := res.l, res.l.Session, res.pp
	page := r.plan.orphanPage[l.Agent]
	project := l.Project.Path
	u := &unit{Session: s.ID, Title: s.Title, Project: project, owns: owns(s, r.cfg.Redact.Active())}
	if l.Agent != nil {
		u.Key = r.keys.orphan(pp, page, l.Agent)
	}
	u.Deleted = restoreOrigins(s, r.origin)[s]
	anonymizeSources(s, r.cfg.Redact, r.cfg.SourceLabels, r.cfg.Home)
	setPrices(s, r.prices)
	body := r.mediaOf(res).Session(s, project, render.Links{Page: page, Project: link.Project(pp.slug), Agent: func(*session.Session) string { return "" }, Deleted: u.Deleted})
	r.page(res, u, page, "agent", s.Title, nil, body, sizeHint(s, ""))
	r.keptDocs(res, page, u)
	r.docs(res, s, page, project)
	u.Orphan = &render.Nav{Title: s.Title, URL: link.Rel(link.Project(pp.slug), page), Time: render.MkTime(s.Start)}
	u.Problems = append(u.Problems, s.Problems...)
	res.page, res.unit = page, u
}

// session renders a session's page, its exports and its sub-agents' pages.
func (r *renderer) session(res *rendered) {
	l, s, pp := res.l, res.l.Session, res.pp
	sp := r.plan.byFile[l.File]
	page, project := sp.page, l.Project.Path
	u := &unit{Key: r.keys.session(pp, sp), Session: s.ID, Title: s.Title, Project: project,
		Refs: AgentRefIDs(s), ClaimK: r.keys.claims(l.Claimed), owns: owns(s, r.cfg.Redact.Active())}
	for _, ag := range l.Claimed {
		u.Claimed = append(u.Claimed, pathKey(ag.Path))
	}
	r.keptDocs(res, page, u)
	deleted := restoreOrigins(s, r.origin)
	u.Deleted = deleted[s]
	anonymizeSources(s, r.cfg.Redact, r.cfg.SourceLabels, r.cfg.Home)
	setPrices(s, r.prices)
	rb := r.mediaOf(res)
	agentPage := func(a *session.Session) string {
		if a.Agent == nil || a.Agent.Warmup {
			return ""
		}
		return link.Agent(pp.slug, sp.dir, a.Agent.AgentID)
	}
	links := render.Links{Page: page, Project: link.Project(pp.slug), Agent: agentPage,
		Prev: navTo(page, sp.prev, "Previous session"), Next: navTo(page, sp.next, "Next session"), Deleted: u.Deleted}
	links.ContinuedIn, links.ContinuedFrom = continuationLinks(page, sp)
	links.Related = relatedLinks(page, sp)
	r.exports(res, u, s, page, project, false, &links)
	body := rb.Session(treeView(s, nil), project, links)
	u.Git = r.plan.hist.gitOf(s)
	r.withCommits(body, u.Git, page, pp)
	body.Compare = link.Rel(page, link.Compare())
	res.files = append(res.files, outFile{path: link.Facts(page), data: render.FactsJS(render.SessionFacts(s, body, page))})
	r.page(res, u, page, "session", s.Title, nil, body, sizeHint(s, ""))
	r.docs(res, s, page, project)
	r.commitDocs(res, u, page, project)
	u.Problems = append(u.Problems, s.Problems...)
	for _, a := range s.Agents {
		ap := agentPage(a)
		if ap == "" {
			continue
		}
		al := render.Links{Page: ap, Project: link.Project(pp.slug), Agent: agentPage,
			Parent: page, ParentTitle: s.Title, Deleted: deleted[a]}
		crumbs := []render.Crumb{{Label: s.Title, URL: link.Rel(ap, page)}}
		// A nested agent's parent is the agent that started it.
		if pa := session.ParentAgent(s, a); pa != nil && agentPage(pa) != "" {
			al.Parent, al.ParentTitle = agentPage(pa), pa.Title
			crumbs = append(crumbs, agentCrumbs(s, pa, ap, agentPage)...)
		}
		r.exports(res, u, a, ap, project, true, &al)
		ab := rb.Session(treeView(s, a), project, al)
		r.docs(res, a, ap, project)
		r.page(res, u, ap, "agent", a.Title, crumbs, ab, sizeHint(a, ""))
		u.Agents++
		u.Problems = append(u.Problems, a.Problems...)
	}
	u.Overview = s.Overview()
	res.page, res.unit = page, u
}

// exports renders the session's other forms (export.Formats) and links
// them from its page.
func (r *renderer) exports(res *rendered, u *unit, s *session.Session, page, project string, agent bool, links *render.Links) {
	for _, f := range export.Formats() {
		if (agent && !f.Agents) || (f.Optional && !r.cfg.JSON) {
			continue
		}
		path := link.Export(page, f.Ext)
		buf := scratchBuf(sizeHint(s, f.Ext))
		if err := f.Write(buf, s, project); err != nil {
			panic(fmt.Errorf("export %s: %w", path, err)) // a bug: reported against the session
		}
		res.files = append(res.files, outFile{path: path, data: buf.Bytes(), buf: buf})
		links.Exports = append(links.Exports, render.ExportLink{Name: f.Name, Type: f.Type, URL: path})
	}
}

// page renders a page of about hint bytes into res.
func (r *renderer) page(res *rendered, u *unit, page, kind, title string, extra []render.Crumb, body any, hint int) {
	pp := res.pp
	crumbs := []render.Crumb{{Label: pp.p.Name, URL: link.Rel(page, link.Project(pp.slug))}}
	crumbs = append(crumbs, extra...)
	crumbs = append(crumbs, render.Crumb{Label: title})
	u.Pages++
	buf, err := renderPageBuf(r.ts, r.cfg, &render.Page{Path: page, Title: title, Kind: kind, Crumbs: crumbs, Body: body}, hint)
	if err != nil {
		panic(err) // a template failing on one session's data: a bug, reported against it
	}
	res.files = append(res.files, outFile{path: page, data: buf.Bytes(), page: true, buf: buf})
}

// renderPage executes the page template.
func renderPage(ts *render.Templates, cfg Config, p *render.Page) ([]byte, error) {
	buf, err := renderPageBuf(ts, cfg, p, 0)
	if err != nil {
		return nil, err
	}
	return doneBuf(buf), nil
}

// renderPageBuf is renderPage into a pooled buffer (for about hint bytes),
// for the caller to give back (putBuf) when it no longer needs the page.
func renderPageBuf(ts *render.Templates, cfg Config, p *render.Page, hint int) (*bytes.Buffer, error) {
	p.Search = !cfg.NoSearch
	p.Demo = cfg.Demo
	if cfg.BaseURL != "" {
		p.Canonical = cfg.BaseURL + p.Path
	}
	buf := scratchBuf(hint)
	if err := ts.Page(buf, p); err != nil {
		putBuf(buf)
		return nil, fmt.Errorf("render %s: %w", p.Path, err)
	}
	return buf, nil
}

// Pages and exports are written into buffers kept for the next (the
// result copied out at its size): grown from nothing each time, a page's
// buffer was allocated, cleared and copied over a dozen times, in fresh
// memory (0.19 CPU-s of a warm --force build of the corpus tree). A
// session's pages and exports stay in their buffers until the collector
// has written them (outFile.release): copied out, they cost another
// 0.1 CPU-s.
//
// They are kept in a list of their own, not a sync.Pool, which drops what
// it holds at every other collection: a build collects every few hundred
// milliseconds, and each page then grew a new buffer from nothing again, in
// fresh memory the runtime clears (a tenth of a warm --force build's
// clearing and copying). The list keeps at most bufKeep bytes of them,
// ordered by capacity, and hands out the largest: given the last one put
// back, a large page often got a small list page's buffer and grew it again.
var bufFree struct {
	sync.Mutex
	list  []*bytes.Buffer
	bytes int
}

// bufKeep bounds the bytes of the buffers kept for the next page.
const bufKeep = 64 << 20

// scratchBuf returns a buffer for a page or an export of about hint bytes
// (0: unknown): the smallest kept one that holds hint, else the largest,
// grown to hint at once rather than doubled as the page is written (a
// warm --force build of the corpus tree cleared and copied about 50 MB
// more that way).
func scratchBuf(hint int) *bytes.Buffer {
	bufFree.Lock()
	var b *bytes.Buffer
	if n := len(bufFree.list); n > 0 {
		i, _ := slices.BinarySearchFunc(bufFree.list, hint, func(x *bytes.Buffer, c int) int { return cmp.Compare(x.Cap(), c) })
		i = min(i, n-1)
		b = bufFree.list[i]
		bufFree.list = slices.Delete(bufFree.list, i, i+1)
		bufFree.bytes -= b.Cap()
	}
	bufFree.Unlock()
	if b == nil {
		b = new(bytes.Buffer)
	}
	b.Grow(hint)
	return b
}

// dropBufs lets the kept buffers go, when no more pages are to be made.
func dropBufs() {
	bufFree.Lock()
	defer bufFree.Unlock()
	bufFree.list, bufFree.bytes = nil, 0
}

// sizeHint is about the size of a session's page (each: the turns of its
// own file, not its sub-agents'), or of its export of the given
// extension, from the bytes of its transcript: the page is a fifth to
// four fifths of them for most sessions, the Markdown a tenth to a third.
// It is at most 4 MB: a buffer held that much larger than its page while
// the page waits to be written would raise the build's peak memory.
func sizeHint(s *session.Session, ext string) int {
	n := int(min(s.Stats.Bytes, 64<<20))
	switch ext {
	case "":
		n = n * 4 / 5
	case ".md":
		n /= 3
	}
	return min(n, 4<<20)
}

// doneBuf returns b's content and gives b back (unless it grew past
// 16 MB: a rare giant is not kept).
func doneBuf(b *bytes.Buffer) []byte {
	out := append([]byte(nil), b.Bytes()...)
	putBuf(b)
	return out
}

// putBuf gives b back for the next page (unless it grew past 16 MB, or the
// list holds bufKeep bytes already).
func putBuf(b *bytes.Buffer) {
	if b.Cap() > 16<<20 {
		return
	}
	b.Reset()
	bufFree.Lock()
	defer bufFree.Unlock()
	if bufFree.bytes+b.Cap() <= bufKeep {
		i, _ := slices.BinarySearchFunc(bufFree.list, b.Cap(), func(x *bytes.Buffer, c int) int { return cmp.Compare(x.Cap(), c) })
		bufFree.list = slices.Insert(bufFree.list, i, b)
		bufFree.bytes += b.Cap()
	}
}

// docs adds a page's search documents to res.
func (r *renderer) docs(res *rendered, s *session.Session, page, project string) {
	if !r.cfg.NoSearch && res.docsKept == "" {
		if docsHook != nil {
			docsHook(page)
		}
		res.docs = append(res.docs, search.Docs(s, page, project)...)
	}
}

// setPrices prices s and its sub-agents with t.
func setPrices(s *session.Session, t *pricing.Table) {
	s.Pricing = t
	for _, a := range s.Agents {
		setPrices(a, t)
	}
}

// owns lists the source files whose redactions count for s's unit.
func owns(s *session.Session, redacting bool) []string {
	if !redacting {
		return nil
	}
	out := []string{s.Path}
	for _, a := range s.Agents {
		out = append(out, a.Path)
	}
	return out
}

func navTo(from string, sp *sessionPlan, label string) *render.Nav {
	if sp == nil {
		return nil
	}
	// The time is the template's <time>, shown in the reader's zone as
	// every other time of the page.
	return &render.Nav{Title: label, URL: link.Rel(from, sp.page), Time: render.MkTime(sp.file.FirstTime)}
}

// anonymizeSources passes the source file paths a page shows through
// the redactor (anonymised, secrets in file names replaced), once the
// redaction counts have been tied to the real ones; a path under home
// (the builder's home folder, "" for none) is shown as ~/… (homeLabelled).
func anonymizeSources(s *session.Session, red interface{ Name(file, s string) string }, labels map[string]string, home string) {
	s.Path = red.Name(s.Path, homeLabelled(labelled(s.Path, labels), home))
	for i := range s.Problems {
		s.Problems[i].File = red.Name(s.Problems[i].File, homeLabelled(labelled(s.Problems[i].File, labels), home))
	}
	for _, a := range s.Agents {
		anonymizeSources(a, red, labels, home)
	}
}

// labelProjects names a project known only by its folder (its sessions
// have no cwd) under a root of labels as labelled does its files: its
// path, shown and made into its pages' folder, is not the folder's. A
// project under home (the builder's home folder, "" for none) is named
// ~/… (homeLabelled), and so is the folder an orphan agent's records name.
func labelProjects(a *archive.Archive, labels map[string]string, home string) {
	for _, p := range a.Projects {
		if l := homeLabelled(labelled(p.Path, labels), home); l != p.Path {
			p.Path, p.Name = l, archive.ShortName(l)
		}
	}
	for _, ag := range a.Orphans {
		ag.FirstCWD = homeLabelled(ag.FirstCWD, home)
	}
}

// homeLabelled is path as a page shows it when it lies under home, the
// home folder of whoever builds the site: "~" and the path below it (with
// slashes), a folder named from a path under home as Claude Code names
// project folders (-home-kim-app) with "~" for home's part (~-app). The
// account name on the builder's machine is no page's business. Other paths
// (and every path when home is "") are as they are.
func homeLabelled(path, home string) string {
	home = strings.TrimRight(home, `/\`)
	if home == "" || path == "" {
		return path
	}
	rel, err := filepath.Rel(home, path)
	if err != nil || rel != "." && !filepath.IsLocal(rel) {
		return path
	}
	if rel == "." {
		return "~"
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	slug := archive.Slug(home)
	for i, p := range parts {
		if p == slug || strings.HasPrefix(p, slug+"-") {
			parts[i] = "~" + p[len(slug):]
		}
	}
	return "~/" + strings.Join(parts, "/")
}

// labelled is path as a page shows it: under a root of labels, the root's
// label and the path below it (with slashes).
func labelled(path string, labels map[string]string) string {
	for root, label := range labels {
		if rel, err := filepath.Rel(root, path); err == nil && rel != "." && filepath.IsLocal(rel) {
			return label + "/" + filepath.ToSlash(rel)
		}
	}
	return path
}
