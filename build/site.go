package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	// Progress, when set, is kept up to date while the build runs.
	Progress *Progress
	// CacheDir, when set, keeps highlighted code between builds (see
	// DefaultCacheDir).
	CacheDir string
	// LockWait is how long to wait for another build writing Out;
	// OnWait, when set, is told once that this one waits.
	LockWait time.Duration
	OnWait   func()
	// panicOn, set by tests, is called as each session file is parsed
	// and rendered: it may panic, as a bug would.
	panicOn func(stage, path string)
}

// Progress is how far a build is: sessions and orphan agents done (kept
// or rendered) of all, and their bytes. Read it with Load.
type Progress struct {
	done, total, bytes, totalBytes atomic.Int64
	phase                          atomic.Value
}

// Load returns the counts so far and the current phase.
func (p *Progress) Load() (done, total, bytes, totalBytes int64, phase string) {
	ph, _ := p.phase.Load().(string)
	return p.done.Load(), p.total.Load(), p.bytes.Load(), p.totalBytes.Load(), ph
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
	// Skipped lists the paths discovery left out (a link loop, a pipe
	// named .jsonl, a file reached twice), with why.
	Skipped []archive.Skip
	// Rendered counts the pages written by this build, Kept the sessions
	// and orphan agents whose pages the last build wrote and this one kept;
	// Pages counts all the site's pages.
	Rendered, Kept int
	// Recovered is set when the last build had been interrupted: this one
	// started over.
	Recovered bool
	// Phases are the build's steps and their times.
	Phases []Phase
	// CacheErr says why the highlight cache could not be used or saved.
	CacheErr error
	// ProblemList holds every problem, by file and line.
	ProblemList []session.Problem
	// Excluded says what the exclusions left out.
	Excluded ExcludeStats
	// Redacting is set when a redactor ran; Redactions are then its
	// counts per session, most first.
	Redacting  bool
	Redactions []SessionRedactions
}

// Phase is a step of a build and its time.
type Phase struct {
	Name string        `json:"name"`
	Took time.Duration `json:"-"`
	Ms   int64         `json:"ms"`
}

// marker marks a folder as a ccsite output, so a build never writes over a
// folder of something else.
const marker = ".ccsite-site"

// markerHead starts the marker.
const markerHead = "# Written by ccsite: the files of its last build, removed by the next one\n# when it no longer writes them. Other files here are left alone.\n"

// ErrNotSite is returned when the output folder holds files but no marker.
var ErrNotSite = errors.New("output folder is not empty and was not written by ccsite")

// BuildSite discovers, parses and renders the archive at cfg.Paths into a
// static site in cfg.Out: a page per session and per sub-agent, a page per
// project, an index and the assets.
func BuildSite(ctx context.Context, cfg SiteConfig) (SiteSummary, error) {
	start := time.Now()
	var sum SiteSummary
	last := start
	progress := cfg.Progress
	if progress == nil {
		progress = &Progress{}
	}
	phase := func(name string) {
		progress.phase.Store(name)
		now := time.Now()
		sum.Phases = append(sum.Phases, Phase{Name: name, Took: now.Sub(last)})
		last = now
	}
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
	sum.Skipped = a.Skipped
	sum.Excluded = cfg.Exclude.Apply(a)
	if len(a.Projects) == 0 && len(a.Orphans) == 0 {
		return sum, fmt.Errorf("%w: the exclusions left nothing to build", archive.ErrNothing)
	}
	sum.Bytes = a.Bytes
	phase("discover")
	options, err := optionsID(cfg, th)
	if err != nil {
		return sum, err
	}
	previous, err := prepareOut(cfg.Out)
	if err != nil {
		return sum, err
	}
	// One build at a time writes a folder: another waits for this one.
	unlock, err := lockOut(ctx, cfg.Out, cfg.LockWait, cfg.OnWait)
	if err != nil {
		return sum, err
	}
	defer unlock()
	if err := removeTemps(cfg.Out); err != nil {
		return sum, err
	}
	jr, left, err := openJournal(cfg.Out)
	if err != nil {
		return sum, err
	}
	defer jr.close()
	tool := toolID()
	var prev *buildState
	switch {
	case left != nil:
		// The last build was interrupted: start over, and remove what it
		// wrote that this one does not.
		sum.Recovered = true
		previous = append(previous, left...)
	default:
		// With --force every page is made again; the last build's
		// manifest still tells which search documents are unchanged and
		// which files already hold what this build writes.
		prev = readState(cfg.Out, tool, options)
		if prev != nil && cfg.Force && prev.IndexUpdated && !cfg.NoSearch {
			// An index that had documents deleted ranks (in bleve, not
			// in the static index) a little unlike a new one: --force
			// gives exactly what a first build gives.
			prev = nil
		}
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var prevSources map[string]source
	if prev != nil {
		prevSources = prev.Sources
	}
	fp := fingerprint(a, prevSources, workers)
	phase("fingerprint")
	var units, total int64
	for _, p := range a.Projects {
		units += int64(len(p.Sessions))
	}
	for _, s := range fp {
		total += s.Size
	}
	progress.total.Store(units + int64(len(a.Orphans)))
	progress.totalBytes.Store(total)
	hl := markup.NewHighlighter()
	var dc *diskCache
	if cfg.CacheDir != "" {
		if dc, err = openDiskCache(cfg.CacheDir, tool); err == nil {
			hl.Store = dc
			if cfg.Redact.Active() {
				cfg.Redact.Remember(newCleanLines(dc, cfg.Redact.Fingerprint()))
				defer cfg.Redact.Remember(nil)
			}
			defer func() {
				if dc != nil {
					dc.Close()
				}
			}()
		} else {
			sum.CacheErr = err
		}
	}
	redactNames(a, cfg.Redact)
	b := &siteBuilder{cfg: cfg, progress: progress, ts: ts, theme: th, plan: planSite(a), media: map[string]bool{}, files: map[string]bool{},
		jr: jr, keys: keyer{options: tool + " " + options, fp: fp},
		next: &buildState{Format: stateFormat, Tool: tool, Options: options, Sources: keyed(fp), Units: map[string]*unit{}}}
	if cfg.NoSearch {
		if dir := filepath.Join(cfg.Out, filepath.FromSlash(search.Dir)); !linkInPath(cfg.Out, dir) {
			search.Remove(dir)
		}
	} else {
		if err := safeMkdirAll(cfg.Out, filepath.Join(cfg.Out, filepath.FromSlash(search.Dir))); err != nil {
			return sum, err
		}
		b.index, err = search.OpenWriter(filepath.Join(cfg.Out, filepath.FromSlash(search.Dir)), prev == nil)
		if err != nil {
			return sum, err
		}
		if b.index.Fresh() {
			prev = nil // the kept pages' documents are not in a new index
		}
		b.startIndexer()
		defer b.abortIndex()
	}
	b.prev = prev
	if prev != nil {
		b.visited = map[string]bool{}
	}
	b.rb = &render.Builder{MD: markup.New(hl), Media: b.writeMedia}
	lopts := LoadOptions{Workers: workers, Redact: cfg.Redact, Omit: cfg.Omit, panicOn: cfg.panicOn}
	if prev != nil && !cfg.Force {
		lopts.Cache = b.cached
	}
	g, gctx := errgroup.WithContext(ctx)
	queue := make(chan Loaded, workers)
	for w := 0; w < workers; w++ {
		g.Go(func() error {
			for l := range queue {
				if err := b.renderIsolated(l); err != nil {
					return err
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(queue)
		return Load(gctx, a, lopts, func(l Loaded) error {
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
	phase("pages")
	// What rendering held (highlighted blocks, pages' buffers) goes back
	// to the system before the index is merged and read through: the
	// peak is then the index's, not the sum of both.
	hl.Forget()
	if os.Getenv("GOGC") == "" {
		// The index's phases allocate little that lives: collect more
		// often, so the heap leaves room for the index's mapped files.
		defer debug.SetGCPercent(debug.SetGCPercent(100))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(min(debug.SetMemoryLimit(-1), 320<<20)))
	}
	debug.FreeOSMemory()
	if b.index != nil {
		// The documents of sessions gone since the last build go too.
		if prev != nil {
			var gone []string
			for _, page := range slices.Sorted(maps.Keys(prev.Units)) {
				if !b.visited[page] {
					gone = append(gone, prev.Units[page].Docs...)
				}
			}
			if len(gone) > 0 {
				b.searchChanged.Store(true)
				b.deleted.Store(true)
				b.docs <- indexOp{del: gone}
			}
		}
		if sum.Docs, err = b.closeIndex(); err != nil {
			return sum, err
		}
		phase("search index")
		if err := b.writeStatic(&sum); err != nil {
			return sum, err
		}
		phase("static search")
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
	// robots.txt) stay.
	if err := b.prune(previous); err != nil {
		return sum, err
	}
	if err := b.writeMarker(); err != nil {
		return sum, err
	}
	sum.Redacting, sum.Redactions = cfg.Redact.Active(), b.redactions()
	b.next.IndexUpdated = b.deleted.Load() || (prev != nil && prev.IndexUpdated)
	if err := writeState(cfg.Out, b.next); err != nil {
		return sum, err
	}
	if err := jr.done(); err != nil {
		return sum, err
	}
	phase("lists")
	sum.Projects = len(b.plan.projects)
	sum.Sessions, sum.Agents, sum.Orphans = b.sessions, b.agents, b.orphans
	sum.Rendered, sum.Problems, sum.Written = b.pages, b.problems, b.written
	sum.Kept = len(b.next.Units) - b.rendered
	for _, u := range b.next.Units {
		sum.Pages += u.Pages
	}
	sum.Pages += b.listPages
	sort.Strings(b.unreadable)
	sum.Unreadable = b.unreadable
	sum.HighlightHits, sum.Highlighted, sum.Plain = hl.Stats()
	sort.SliceStable(b.problemList, func(i, j int) bool {
		pi, pj := b.problemList[i], b.problemList[j]
		if pi.File != pj.File {
			return pi.File < pj.File
		}
		if pi.Line != pj.Line {
			return pi.Line < pj.Line
		}
		return pi.Kind+pi.Reason < pj.Kind+pj.Reason
	})
	sum.ProblemList = b.problemList
	if dc != nil {
		sum.CacheErr = dc.Close()
		dc = nil
	}
	sum.Elapsed = time.Since(start)
	for i := range sum.Phases {
		sum.Phases[i].Ms = sum.Phases[i].Took.Milliseconds()
	}
	return sum, nil
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

// anonymizeSources passes the source file paths a page shows through
// the redactor (anonymised, secrets in file names replaced), once the
// redaction counts have been tied to the real ones.
func anonymizeSources(s *session.Session, red *redact.Redactor) {
	s.Path = red.Name(s.Path, s.Path)
	for i := range s.Problems {
		s.Problems[i].File = red.Name(s.Problems[i].File, s.Problems[i].File)
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

// sitePlan fixes every page's path before anything is parsed.
type sitePlan struct {
	projects   []*projectPlan
	orphanPage map[*archive.AgentFile]string
	byFile     map[*archive.SessionFile]*sessionPlan
	byProj     map[*archive.Project]*projectPlan
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
	file *archive.SessionFile
	page string
	// dir names the folder of its sub-agents' pages: the session's id,
	// made unique in its project (two files of one id, or two names a
	// redaction made alike, must not share pages).
	dir        string
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
		used := map[string]bool{}
		for i, f := range files {
			dir := f.ID
			page := link.Session(slug, dir)
			for n := 2; used[page] || used[link.Agent(slug, dir, "")]; n++ {
				dir = fmt.Sprintf("%s-%d", f.ID, n)
				page = link.Session(slug, dir)
			}
			used[page], used[link.Agent(slug, dir, "")] = true, true
			sp := &sessionPlan{file: f, page: page, dir: dir}
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
	// Each orphan agent's page, unique in its project: two agent files of
	// one id (copies in two folders of a project) get two pages. Those a
	// session claims later leave theirs unused, so no name depends on
	// which are claimed.
	pl.orphanPage = map[*archive.AgentFile]string{}
	used := map[string]bool{}
	for _, ag := range a.Orphans {
		slug := pl.byPath(orphanProject(a, ag).Path).slug
		page := link.Agent(slug, "orphans", ag.ID)
		for n := 2; used[page]; n++ {
			page = link.Agent(slug, "orphans", fmt.Sprintf("%s-%d", ag.ID, n))
		}
		used[page] = true
		pl.orphanPage[ag] = page
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
	cfg      SiteConfig
	progress *Progress
	ts       *render.Templates
	theme    *theme.Theme
	rb       *render.Builder
	plan     *sitePlan

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
	docs                             chan indexOp
	indexDone                        chan error
	searchChanged                    atomic.Bool
	deleted                          atomic.Bool // documents deleted from the index
	// prev is the last build's manifest when its pages can be kept; next
	// the one this build writes.
	prev, next *buildState
	nextMu     sync.Mutex
	keys       keyer
	jr         *journal
	visited    map[string]bool // pages of prev's units this build reached
	rendered   int             // units rendered (not kept) this build
	listPages  int             // project pages, index, search page
	// owners maps each source file to the unit showing it, for the
	// redaction counts per session.
	owners map[string]*unit
}

// own records which unit shows the files of s (its sub-agents' too), for
// the redaction counts per session.
func (b *siteBuilder) own(u *unit, s *session.Session) {
	if !b.cfg.Redact.Active() {
		return
	}
	u.Owns = append(u.Owns, s.Path)
	for _, a := range s.Agents {
		u.Owns = append(u.Owns, a.Path)
	}
	b.count(func() {
		if b.owners == nil {
			b.owners = map[string]*unit{}
		}
		b.owners[s.Path] = u
		for _, a := range s.Agents {
			if b.owners[a.Path] == nil {
				b.owners[a.Path] = u
			}
		}
	})
}

// redactions turns the redactor's counts by file into counts by session,
// with those of the units kept from the last build.
func (b *siteBuilder) redactions() []SessionRedactions {
	if !b.cfg.Redact.Active() {
		return nil
	}
	_, byFile := b.cfg.Redact.Counts()
	var out []SessionRedactions
	for f, rules := range byFile {
		u := b.owners[f]
		if u == nil { // a file no page shows (it failed to parse): itself
			r := SessionRedactions{Session: b.cfg.Redact.NameOnly(filepath.Base(f)), Files: []string{b.cfg.Redact.NameOnly(f)}, ByRule: rules}
			for _, n := range rules {
				r.Total += n
			}
			out = append(out, r)
			continue
		}
		if u.Redacted == nil {
			u.Redacted = map[string]map[string]int{}
		}
		u.Redacted[b.cfg.Redact.NameOnly(f)] = rules
	}
	for page, u := range b.next.Units {
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

// indexOp is work for the indexer: documents to delete, then to add.
type indexOp struct {
	del  []string
	docs []search.Doc
}

// addDocs collects a page's search documents in the unit; sendDocs hands
// them to the indexer.
func (b *siteBuilder) addDocs(u *unit, s *session.Session, page, project string) error {
	if b.docs == nil {
		return nil
	}
	u.docs = append(u.docs, search.Docs(s, page, project)...)
	return nil
}

// sendDocs hands a unit's documents to the indexer goroutine (so rendering
// never waits for the index to write a batch), after deleting those of the
// last build's unit at page; or, when the documents are the same as that
// unit's, does nothing at all.
func (b *siteBuilder) sendDocs(u *unit, page string) {
	if b.docs == nil {
		return
	}
	u.DocsHash = docsHash(u.docs)
	var old *unit
	if b.prev != nil {
		old = b.prev.Units[page]
	}
	if old != nil && old.DocsHash == u.DocsHash {
		u.Docs, u.docs = old.Docs, nil
		return
	}
	u.Docs = make([]string, len(u.docs))
	for i, d := range u.docs {
		u.Docs[i] = d.ID
	}
	op := indexOp{docs: u.docs}
	if old != nil {
		op.del = old.Docs
		b.deleted.Store(true)
	}
	u.docs = nil
	if len(op.del) > 0 || len(op.docs) > 0 {
		b.searchChanged.Store(true)
		b.docs <- op
	}
}

// docsHash hashes documents, every field the index holds.
func docsHash(docs []search.Doc) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for i := range docs {
		enc.Encode(&docs[i])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
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
	b.docs = make(chan indexOp, 64)
	b.indexDone = make(chan error, 1)
	go func() {
		var err error
		for op := range b.docs {
			if err == nil && len(op.del) > 0 {
				err = b.index.Delete(op.del)
			}
			if err == nil && len(op.docs) > 0 {
				_, err = b.index.Add(op.docs)
			}
		}
		b.indexDone <- err
	}()
}

// writeStatic writes the static search index, or keeps the last build's
// when no document changed.
func (b *siteBuilder) writeStatic(sum *SiteSummary) error {
	if p := b.prev; p != nil && !b.searchChanged.Load() && len(p.Static) > 0 {
		keep := true
		for _, f := range p.Static {
			if _, err := os.Stat(filepath.Join(b.cfg.Out, filepath.FromSlash(f))); err != nil {
				keep = false
				break
			}
		}
		if keep {
			b.writtenMu.Lock()
			for _, f := range p.Static {
				b.files[filepath.Join(b.cfg.Out, filepath.FromSlash(f))] = true
			}
			b.writtenMu.Unlock()
			b.next.Static, b.next.Search, b.next.Docs = p.Static, p.Search, p.Docs
			sum.Search, sum.Docs = p.Search, p.Docs
			return nil
		}
	}
	var files []string
	st, err := b.index.WriteStatic(func(path string, data []byte) error {
		files = append(files, path)
		// A shard's name holds its content's hash: one already there is
		// this one.
		if path != search.ManifestPath && path != search.APIPath {
			full := filepath.Join(b.cfg.Out, filepath.FromSlash(path))
			b.writtenMu.Lock()
			b.files[full] = true
			b.writtenMu.Unlock()
			if linkInPath(b.cfg.Out, full) {
				if err := safeMkdirAll(b.cfg.Out, filepath.Dir(full)); err != nil {
					return err
				}
			}
			fi, err := os.Lstat(full)
			if err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
				return nil
			}
			if err == nil && !fi.Mode().IsRegular() {
				os.Remove(full) // a link: replaced, never written through
			}
			// Written in place: no page names it until the manifest, which
			// goes last, and a half-written one has the wrong size, so the
			// next build writes it again.
			if err := b.jr.add(path); err != nil {
				return err
			}
			if err := os.WriteFile(full, data, 0o644); err == nil || !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			return os.WriteFile(full, data, 0o644)
		}
		return b.writeOut(path, data)
	})
	if err != nil {
		return fmt.Errorf("static search index: %w", err)
	}
	sort.Strings(files)
	sum.Search = st
	b.next.Static, b.next.Search, b.next.Docs = files, st, sum.Docs
	return nil
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
	// The index's own files are not listed in the marker: bleve names its
	// segments as it goes, and the marker must not differ between a full
	// and an updated build.
	return n, nil
}

// unitBuilder is b.rb with its media recorded in u.
func (b *siteBuilder) unitBuilder(u *unit) *render.Builder {
	rb := *b.rb
	rb.Media = func(ext string, data []byte) string {
		p := b.writeMedia(ext, data)
		if p != "" {
			u.addFile(p)
		}
		return p
	}
	return &rb
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

// renderIsolated is renderSession, with a panic in it (a bug ccsite has on
// one session's data) reported against that session's file while the rest
// of the site is built.
func (b *siteBuilder) renderIsolated(l Loaded) (err error) {
	defer func() {
		if r := recover(); r != nil {
			path := ""
			switch {
			case l.File != nil:
				path = l.File.Path
			case l.Agent != nil:
				path = l.Agent.Path
			}
			b.count(func() {
				b.unreadable = append(b.unreadable, fmt.Sprintf("%s: %v", b.cfg.Redact.NameOnly(path), panicError(r)))
			})
			b.progress.done.Add(1)
			err = nil
		}
	}()
	if b.cfg.panicOn != nil && l.File != nil {
		b.cfg.panicOn("render", l.File.Path)
	}
	return b.renderSession(l)
}

// renderSession writes a session's page and its sub-agents' pages, or an
// orphan agent's page; or keeps those the last build wrote.
func (b *siteBuilder) renderSession(l Loaded) error {
	if l.Cached != nil {
		b.adopt(l)
		return nil
	}
	if l.Err != nil || l.Session == nil {
		// A file that could not be read at all: reported, the rest goes on.
		path := ""
		if l.File != nil {
			path = l.File.Path
		} else if l.Agent != nil {
			path = l.Agent.Path
		}
		b.count(func() { b.unreadable = append(b.unreadable, fmt.Sprintf("%s: %v", path, l.Err)) })
		b.progress.done.Add(1)
		return nil
	}
	s := l.Session
	b.planMu.Lock()
	pp := b.plan.projectOf(l.Project)
	b.planMu.Unlock()
	project := l.Project.Path
	if s.Agent != nil && s.Agent.Orphan {
		page := b.plan.orphanPage[l.Agent]
		u := &unit{Session: s.ID, Title: s.Title, Project: project}
		if l.Agent != nil {
			u.Key = b.keys.orphan(pp, page, l.Agent)
		}
		b.own(u, s)
		anonymizeSources(s, b.cfg.Redact)
		body := b.unitBuilder(u).Session(s, project, render.Links{Page: page, Project: link.Project(pp.slug), Agent: func(*session.Session) string { return "" }})
		if err := b.writePage(u, page, "agent", s.Title, pp, nil, body); err != nil {
			return err
		}
		if err := b.addDocs(u, s, page, project); err != nil {
			return err
		}
		u.Orphan = &render.Nav{Title: s.Title, URL: link.Rel(link.Project(pp.slug), page), Time: render.MkTime(s.Start)}
		u.Problems = append(u.Problems, s.Problems...)
		b.sendDocs(u, page)
		b.finish(page, u, pp, l)
		return nil
	}
	sp := b.plan.byFile[l.File]
	page := sp.page
	u := &unit{Key: b.keys.session(pp, sp), Session: s.ID, Title: s.Title, Project: project,
		Refs: AgentRefIDs(s), ClaimK: b.keys.claims(l.Claimed)}
	for _, ag := range l.Claimed {
		u.Claimed = append(u.Claimed, pathKey(ag.Path))
	}
	b.own(u, s)
	anonymizeSources(s, b.cfg.Redact)
	rb := b.unitBuilder(u)
	agentPage := func(a *session.Session) string {
		if a.Agent == nil || a.Agent.Warmup {
			return ""
		}
		return link.Agent(pp.slug, sp.dir, a.Agent.AgentID)
	}
	links := render.Links{Page: page, Project: link.Project(pp.slug), Agent: agentPage,
		Prev: navTo(page, sp.prev, "Previous session"), Next: navTo(page, sp.next, "Next session"),
		Markdown: link.Export(page, ".md")}
	if b.cfg.JSON {
		links.JSON = link.Export(page, ".json")
		if err := b.writeExport(u, links.JSON, func(w io.Writer) error { return export.JSON(w, s) }); err != nil {
			return err
		}
	}
	if err := b.writeExport(u, links.Markdown, func(w io.Writer) error { return export.Markdown(w, s, project) }); err != nil {
		return err
	}
	body := rb.Session(s, project, links)
	if err := b.writePage(u, page, "session", s.Title, pp, nil, body); err != nil {
		return err
	}
	if err := b.addDocs(u, s, page, project); err != nil {
		return err
	}
	u.Problems = append(u.Problems, s.Problems...)
	for _, a := range s.Agents {
		ap := agentPage(a)
		if ap == "" {
			continue
		}
		al := render.Links{Page: ap, Project: link.Project(pp.slug), Agent: func(*session.Session) string { return "" },
			Parent: page, ParentTitle: s.Title, Markdown: link.Export(ap, ".md")}
		if err := b.writeExport(u, al.Markdown, func(w io.Writer) error { return export.Markdown(w, a, project) }); err != nil {
			return err
		}
		ab := rb.Session(a, project, al)
		if err := b.addDocs(u, a, ap, project); err != nil {
			return err
		}
		crumb := []render.Crumb{{Label: s.Title, URL: link.Rel(ap, page)}}
		if err := b.writePage(u, ap, "agent", a.Title, pp, crumb, ab); err != nil {
			return err
		}
		u.Agents++
		u.Problems = append(u.Problems, a.Problems...)
	}
	u.Row = render.Row(s, link.Rel(link.Project(pp.slug), page))
	u.Start, u.End = s.Start, s.End
	t := s.Stats.Tokens
	u.Tokens = t.Input + t.Output + t.CacheRead + t.CacheWrite
	u.Tools = s.Stats.ToolCalls
	b.sendDocs(u, page)
	b.finish(page, u, pp, l)
	return nil
}

// adopt keeps a unit the last build wrote: its files stay, its rows and
// counts go to the lists and summary, its documents stay in the index.
func (b *siteBuilder) adopt(l Loaded) {
	u := l.Cached.Unit.(*unit)
	b.planMu.Lock()
	pp := b.plan.projectOf(l.Project)
	b.planMu.Unlock()
	b.writtenMu.Lock()
	for _, f := range u.Files {
		b.files[filepath.Join(b.cfg.Out, filepath.FromSlash(f))] = true
	}
	b.writtenMu.Unlock()
	if b.cfg.BaseURL != "" {
		b.count(func() {
			for _, f := range u.Files {
				if strings.HasSuffix(f, ".html") {
					b.urls = append(b.urls, f)
				}
			}
		})
	}
	b.mediaMu.Lock()
	for _, f := range u.Files {
		if strings.HasPrefix(f, "media/") {
			b.media[f] = true
		}
	}
	b.mediaMu.Unlock()
	b.finish(b.pageOf(l, pp), u, pp, l)
}

// pageOf is the page of a session or orphan agent.
func (b *siteBuilder) pageOf(l Loaded, pp *projectPlan) string {
	if l.File != nil {
		return b.plan.byFile[l.File].page
	}
	return b.plan.orphanPage[l.Agent]
}

// finish adds a unit to the project's list, the summary and the manifest.
func (b *siteBuilder) finish(page string, u *unit, pp *projectPlan, l Loaded) {
	pp.mu.Lock()
	if u.Orphan != nil {
		pp.orphans = append(pp.orphans, *u.Orphan)
	} else {
		pp.rows[l.File.Path] = u.Row
		if u.End.After(pp.last) {
			pp.last = u.End
		}
		if !u.Start.IsZero() {
			if pp.first.IsZero() || u.Start.Before(pp.first) {
				pp.first = u.Start
			}
			if pp.days == nil {
				pp.days = map[time.Time]int{}
			}
			y, m, d := u.Start.UTC().Date()
			pp.days[time.Date(y, m, d, 0, 0, 0, 0, time.UTC)]++
		}
		pp.tokens += u.Tokens
		pp.tools += u.Tools
	}
	pp.mu.Unlock()
	b.count(func() {
		if u.Orphan != nil {
			b.orphans++
		} else {
			b.sessions++
			b.agents += u.Agents
		}
		b.problems += len(u.Problems)
		b.problemList = append(b.problemList, u.Problems...)
		if l.Cached == nil {
			b.rendered++
		}
	})
	b.progress.done.Add(1)
	if l.File != nil {
		n := l.File.Size
		for _, ag := range l.File.Agents {
			n += ag.Size
		}
		b.progress.bytes.Add(n)
	} else if l.Agent != nil {
		b.progress.bytes.Add(l.Agent.Size)
	}
	b.nextMu.Lock()
	b.next.Units[page] = u
	if b.visited != nil {
		b.visited[page] = true
	}
	b.nextMu.Unlock()
}

// cached tells Load which sessions and orphan agents the last build's
// pages still hold: same key (sources, options, neighbours), all files
// there.
func (b *siteBuilder) cached(l Loaded) *Cached {
	b.planMu.Lock()
	pp := b.plan.projectOf(l.Project)
	b.planMu.Unlock()
	page := b.pageOf(l, pp)
	u := b.prev.Units[page]
	if u == nil {
		return nil
	}
	var key string
	if l.File != nil {
		key = b.keys.session(pp, b.plan.byFile[l.File])
	} else {
		key = b.keys.orphan(pp, page, l.Agent)
	}
	if key != u.Key {
		return nil
	}
	for _, f := range u.Files {
		if _, err := os.Stat(filepath.Join(b.cfg.Out, filepath.FromSlash(f))); err != nil {
			return nil
		}
	}
	return &Cached{Refs: u.Refs, Claimed: u.Claimed, Unit: u,
		Still: func(got []*archive.AgentFile) bool { return b.keys.claims(got) == u.ClaimK }}
}

func (b *siteBuilder) count(f func()) {
	b.mu.Lock()
	f()
	b.mu.Unlock()
}

func (b *siteBuilder) writePage(u *unit, page, kind, title string, pp *projectPlan, extra []render.Crumb, body any) error {
	crumbs := []render.Crumb{{Label: pp.p.Name, URL: link.Rel(page, link.Project(pp.slug))}}
	crumbs = append(crumbs, extra...)
	crumbs = append(crumbs, render.Crumb{Label: title})
	u.addFile(page)
	u.mu.Lock()
	u.Pages++
	u.mu.Unlock()
	return b.write(page, &render.Page{Path: page, Title: title, Kind: kind, Crumbs: crumbs, Body: body})
}

// writeExport writes one of a session's other forms.
func (b *siteBuilder) writeExport(u *unit, path string, fn func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fn(&buf); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	u.addFile(path)
	return b.writeOut(path, buf.Bytes())
}

// writeOut writes a file of the site (a slash path from its root) and
// records it as this build's.
func (b *siteBuilder) writeOut(path string, data []byte) error {
	_, err := b.writeOutNew(path, data)
	return err
}

// writeOutNew is writeOut telling whether it wrote: updating a site, a
// file already holding data is left alone (its time too, for rsync and
// static hosts).
func (b *siteBuilder) writeOutNew(path string, data []byte) (bool, error) {
	full := filepath.Join(b.cfg.Out, filepath.FromSlash(path))
	b.writtenMu.Lock()
	b.files[filepath.Clean(full)] = true
	b.writtenMu.Unlock()
	if b.prev != nil && sameContent(full, data) && !linkInPath(b.cfg.Out, full) {
		return false, nil
	}
	if err := b.jr.add(path); err != nil {
		return false, err
	}
	return true, writeInside(b.cfg.Out, full, data)
}

// sameContent tells whether the file at path holds data.
func sameContent(path string, data []byte) bool {
	st, err := os.Lstat(path)
	if err != nil || st.Size() != int64(len(data)) || !st.Mode().IsRegular() {
		return false
	}
	old, err := os.ReadFile(path)
	return err == nil && bytes.Equal(old, data)
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
	wrote, err := b.writeOutNew(page, buf.Bytes())
	if err != nil {
		return err
	}
	if wrote {
		b.count(func() { b.pages++; b.written += int64(buf.Len()) })
	}
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
		if strings.HasPrefix(rel, ".ccsite/") {
			continue // the build's own state, kept by its owners
		}
		full := filepath.Join(b.cfg.Out, filepath.FromSlash(rel))
		if b.wrote(full) || linkInPath(b.cfg.Out, full) {
			continue // (behind a link: not the site's, never removed)
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
	buf.WriteString(markerHead)
	for _, f := range files {
		buf.WriteString(f + "\n")
	}
	return writeInside(b.cfg.Out, filepath.Join(b.cfg.Out, marker), buf.Bytes())
}

func (b *siteBuilder) wrote(path string) bool {
	b.writtenMu.Lock()
	defer b.writtenMu.Unlock()
	return b.files[filepath.Clean(path)]
}

// writeInside is writeFile for a file of the site out: its folders are
// made without ever following a link (see safeMkdirAll), and the rename
// replaces a link at path itself.
func writeInside(out, path string, data []byte) error {
	if err := safeMkdirAll(out, filepath.Dir(path)); err != nil {
		return err
	}
	return writeFile(path, data)
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
		b.listPages++
		idx.Projects = append(idx.Projects, render.ProjectRow{Name: pp.p.Name, Path: pp.p.Path, URL: page,
			Sessions: len(pv.Sessions), Last: render.MkTime(pp.last), Tokens: pp.tokens, ToolCalls: pp.tools})
		idx.Sessions += len(pv.Sessions)
	}
	if !b.cfg.NoSearch {
		if err := b.write(link.Search(), &render.Page{Path: link.Search(), Title: "Search", Kind: "search",
			Crumbs: []render.Crumb{{Label: "Search"}}}); err != nil {
			return err
		}
		b.listPages++
	}
	b.listPages++
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
	// GitHub Pages runs Jekyll on a site without it: Jekyll would turn
	// each session's .md export into an .html page over the real one, and
	// leave out files and folders whose names start with "_" or ".".
	return b.writeOut(".nojekyll", nil)
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
