package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"ccsite/build/archive"
	"ccsite/build/gitsrc"
	"ccsite/build/keep"
	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/omit"
	"ccsite/build/pricing"
	"ccsite/build/redact"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"ccsite/search"
	"ccsite/theme"
)

// Config configures a site build.
type Config struct {
	Paths []string
	Out   string
	// State is the folder of the site's build state (manifest, journal,
	// lock, search index): never inside Out, whose files are all
	// published. "" means DefaultStateDir(Out).
	State   string
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
	// Pricing, when set, is a pricing file (build/pricing's format) laid
	// over the embedded prices.
	Pricing string
	// Agents limits the build to these agents' sessions, by key
	// (build/agents: claude, codex); nil: every agent.
	Agents []string
	// SourceLabels names input roots on pages: a source file under a root
	// (a key) is shown as the label and its path below the root, not by
	// its own path (a folder extracted from a git repository into the
	// state folder would otherwise show where that folder is).
	SourceLabels map[string]string
	// Home is the home folder of whoever builds the site (os.UserHomeDir
	// for the CLI; "" for none): a path under it a page shows (a source
	// file, a project, the resume line's folder) is written ~/…, so the
	// builder's account name is on no page.
	Home string
	// Demo marks a build of the built-in demo archive: every page says so,
	// and how to build one's own.
	Demo bool
	// History, when set, is what the git repository the transcripts were
	// read from says (--git): its commits, each linked to the turn that
	// made it, and Entire's checkpoints. Read only.
	History *gitsrc.History
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
	// deferAfter, set by tests, lowers the tool calls past which a page
	// waits to make its turns (render.Builder.DeferAfter).
	deferAfter int
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

// Summary counts what a build wrote.
type Summary struct {
	// listsRendered counts the list pages rendered (not kept), for tests.
	listsRendered int

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
	// Archived counts the sessions whose source file is gone, built from
	// the archive's copy; Archive is the archive's size.
	Archived int
	Archive  keep.Stats
	// Redacting is set when a redactor ran; Redactions are then its
	// counts per session, most first.
	Redacting  bool
	Redactions []SessionRedactions
}

// Phase is a step of a build and its time. The steps that run together
// as sessions stream through (load, render, publish) are timed by the
// time spent in each, summed over the goroutines doing it.
type Phase struct {
	Name string        `json:"name"`
	Took time.Duration `json:"-"`
	Ms   int64         `json:"ms"`
}

// Run builds the static site of the archive at cfg.Paths into cfg.Out: a
// page per session and per sub-agent, a page per project, an index, the
// assets and the search index. It reads as its phases, in order; each
// hands the next what it made, each is timed, and an error says in which
// phase it happened.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	r := &runner{cfg: cfg, start: time.Now(), progress: cfg.Progress}
	r.last = r.start
	if r.progress == nil {
		r.progress = &Progress{}
	}
	r.cfg.Out = filepath.Clean(cfg.Out)
	ours := r.cfg.State == ""
	if ours {
		var err error
		if r.cfg.State, err = StateDir(r.cfg.Out, os.Getenv); err != nil {
			return r.sum, err
		}
	}
	// Before anything is kept in the state folder: never in the site.
	if err := checkStatePlace(r.cfg.Out, r.cfg.State); err != nil {
		return r.sum, err
	}
	if err := makeStateDir(r.cfg.State, ours); err != nil {
		return r.sum, err
	}
	src, err := phase(r, "discover", func() (*sources, error) { return r.discover(ctx) })
	if err != nil {
		return r.sum, err
	}
	defer src.kept.store.Close()
	// Planning opens the output folder (locked, its journal started),
	// reads the last build's manifest and fixes every page's path.
	type opened struct {
		out  *output
		plan *planned
	}
	op, err := phase(r, "plan", func() (opened, error) {
		out, err := r.open(ctx, src)
		if err != nil {
			return opened{}, err
		}
		plan, err := r.plan(src, out)
		if err != nil {
			out.close()
			return opened{}, err
		}
		return opened{out, plan}, nil
	})
	if err != nil {
		return r.sum, err
	}
	out, plan := op.out, op.plan
	defer out.close()
	defer plan.release()
	col, err := phase(r, "pages", func() (*collector, error) { return r.pages(ctx, src, out, plan) })
	if err != nil {
		return r.sum, err
	}
	afterPages(plan.hl, plan.cache)
	r.sum.Phases = append(r.sum.Phases, col.busy...)
	if _, err := phase(r, "search index", func() (struct{}, error) { return struct{}{}, r.index(col, out) }); err != nil {
		return r.sum, err
	}
	if _, err := phase(r, "lists", func() (struct{}, error) { return struct{}{}, r.lists(src, out, plan, col) }); err != nil {
		return r.sum, err
	}
	if _, err := phase(r, "prune", func() (struct{}, error) { return struct{}{}, r.prune(out) }); err != nil {
		return r.sum, err
	}
	if _, err := phase(r, "save", func() (struct{}, error) { return struct{}{}, r.save(src, out, plan, col) }); err != nil {
		return r.sum, err
	}
	r.summarise(plan, out, col)
	return r.sum, nil
}

// runner carries what every phase reports to: the summary, the progress
// and the phase clock. Phases pass their products as values.
type runner struct {
	cfg      Config
	start    time.Time
	last     time.Time
	progress *Progress
	sum      Summary
}

// phase runs one phase: it times it, marks the progress, and names the
// phase in its error (errors.Is still sees the cause).
func phase[T any](r *runner, name string, f func() (T, error)) (T, error) {
	v, err := f()
	now := time.Now()
	r.sum.Phases = append(r.sum.Phases, Phase{Name: name, Took: now.Sub(r.last), Ms: now.Sub(r.last).Milliseconds()})
	r.last = now
	r.progress.phase.Store(name)
	if err != nil {
		return v, &PhaseError{Phase: name, Err: err}
	}
	return v, nil
}

// PhaseError is an error of a build phase: it names the phase.
type PhaseError struct {
	Phase string
	Err   error
}

func (e *PhaseError) Error() string { return e.Phase + ": " + e.Err.Error() }
func (e *PhaseError) Unwrap() error { return e.Err }

// UserFacing tells whether the error is about the build's input or
// output folder (discover, plan), whose message says all a user needs:
// the command prints it without the phase.
func (e *PhaseError) UserFacing() bool { return e.Phase == "discover" || e.Phase == "plan" }

// busy is a streaming phase's time (summed over goroutines).
func busy(name string, d time.Duration) Phase {
	return Phase{Name: name, Took: d, Ms: d.Milliseconds()}
}

// sources is the discover phase's product: the archive, the theme and its
// templates.
type sources struct {
	a       *archive.Archive
	th      *theme.Theme
	ts      *render.Templates
	options string // hash of every option that changes a page
	kept    *kept  // the archive, and the vanished sources read from it
	prices  *pricing.Table
}

func (r *runner) discover(ctx context.Context) (*sources, error) {
	th, err := theme.Open(r.cfg.Theme, r.cfg.ThemeDir)
	if err != nil {
		return nil, err
	}
	ts, err := loadTemplates(th)
	if err != nil {
		return nil, err
	}
	// What discovery read of each file is remembered beside the archive
	// (it holds what transcripts hold): files unchanged since are not
	// opened again.
	peeks := archive.OpenPeekCache(peekCachePath(r.cfg.State))
	only := agentSet(r.cfg.Agents)
	a, err := archive.DiscoverAgents(ctx, r.cfg.Paths, peeks, only)
	if err != nil && !errors.Is(err, archive.ErrNothing) {
		return nil, err
	}
	// Every source is kept in the archive; those it kept that have
	// vanished since (Claude Code's cleanup) are read from it.
	k, kerr := keepSources(ctx, r.cfg.State, r.cfg.Paths, a, r.workers())
	if kerr != nil {
		return nil, fmt.Errorf("archive: %w", kerr)
	}
	if len(k.roots) > 0 {
		a, err = archive.DiscoverAgents(ctx, append(append([]string(nil), r.cfg.Paths...), k.roots...), peeks, only)
		a.Roots = r.cfg.Paths
	}
	peeks.Save(peekCachePath(r.cfg.State)) // a cache: a failure only costs time
	if err != nil {
		k.store.Close()
		return nil, err
	}
	r.sum.Skipped = a.Skipped
	r.sum.Excluded = r.cfg.Exclude.Apply(a)
	if len(a.Projects) == 0 && len(a.Orphans) == 0 {
		return nil, fmt.Errorf("%w: the exclusions left nothing to build", archive.ErrNothing)
	}
	r.sum.Bytes = a.Bytes
	options, err := optionsID(r.cfg, th)
	if err != nil {
		k.store.Close()
		return nil, err
	}
	prices, err := pricing.Load(r.cfg.Pricing)
	if err != nil {
		k.store.Close()
		return nil, fmt.Errorf("--pricing: %w", err)
	}
	return &sources{a: a, th: th, ts: ts, options: options, kept: k, prices: prices}, nil
}

// output is the open phase's product: the output folder, locked, with its
// writer, and what the last build left.
type output struct {
	w        *siteWriter
	jr       *journal
	unlock   func()
	previous []string // files the last build wrote (its marker, its journal)
	left     bool     // the last build was interrupted
}

func (o *output) close() {
	o.jr.close()
	o.unlock()
}

func (r *runner) open(ctx context.Context, src *sources) (*output, error) {
	previous, err := prepareOut(r.cfg.Out)
	if err != nil {
		return nil, err
	}
	// One build at a time writes a folder: another waits for this one.
	unlock, err := lockOut(ctx, r.cfg.Out, r.cfg.State, r.cfg.LockWait, r.cfg.OnWait)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(removeTemps(r.cfg.Out), removeLegacyState(r.cfg.Out)); err != nil {
		unlock()
		return nil, err
	}
	jr, left, err := openJournal(r.cfg.State)
	if err != nil {
		unlock()
		return nil, err
	}
	if left != nil {
		// The last build was interrupted: start over, and remove what it
		// wrote that this one does not.
		r.sum.Recovered = true
		previous = append(previous, left...)
	}
	return &output{jr: jr, unlock: unlock, previous: previous, left: left != nil}, nil
}

// planned is the plan phase's product: every page's path, the last
// build's manifest when its pages can be kept, the sources' fingerprints,
// the highlighter and its cache, the index.
type planned struct {
	plan  *sitePlan
	prev  *buildState
	next  *buildState
	keys  keyer
	hl    *markup.Highlighter
	cache *diskCache
	index *indexer
	// memo remembers what redaction did to each file's lines (nil: no
	// cache, or nothing to redact).
	memo *lineMemo
}

func (r *runner) plan(src *sources, out *output) (*planned, error) {
	tool := toolID()
	var prev *buildState
	if !out.left {
		// With --force every page is made again; the last build's
		// manifest still tells which search documents are unchanged and
		// which files already hold what this build writes.
		prev = readState(r.cfg.State, tool, src.options)
		if prev != nil && r.cfg.Force && prev.IndexUpdated && !r.cfg.NoSearch {
			// An index that had documents deleted ranks (in bleve, not
			// in the static index) a little unlike a new one: --force
			// gives exactly what a first build gives.
			prev = nil
		}
	}
	var prevSources map[string]source
	if prev != nil {
		prevSources = prev.Sources
	}
	fp := fingerprint(src.a, prevSources, r.workers(), src.kept.store.Hash)
	changed := r.cfg.Force || changedSources(fp, prevSources)
	// The build redacts with a Redactor of its own, the Config's left as
	// it is. An update scans only the lines no earlier build scanned
	// (found clean, or redacted and kept as redacted): a line or two, for
	// a message appended; none, for --force with the last build's cache.
	r.cfg.Redact = r.cfg.Redact.Fresh(changed && prev != nil)
	if changed {
		// Something will be redacted: the secret rules are made beside
		// the rest of the plan (a no-op build never makes them).
		r.cfg.Redact.Prepare()
	}
	var units, total int64
	for _, p := range src.a.Projects {
		units += int64(len(p.Sessions))
	}
	for _, s := range fp {
		total += s.Size
	}
	r.progress.total.Store(units + int64(len(src.a.Orphans)))
	r.progress.totalBytes.Store(total)
	pl := &planned{hl: markup.NewHighlighter(), keys: keyer{options: tool + " " + src.options, fp: fp, history: r.cfg.History.SessionDigests()},
		next: &buildState{Format: stateFormat, Tool: tool, Options: src.options, Sources: keyed(fp), Units: map[string]*unit{}}}
	if r.cfg.CacheDir != "" {
		var err error
		if pl.cache, err = openDiskCache(r.cfg.CacheDir, tool); err == nil {
			pl.hl.Store = pl.cache
			if r.cfg.Redact.Active() {
				// Lines found clean by an earlier build, or redacted by it
				// (kept as redacted, with their counts), and names found
				// clean (just below) are not scanned again.
				rfp := r.cfg.Redact.Fingerprint()
				r.cfg.Redact.Remember(newCleanLines(pl.cache, rfp, cleanKind), newCleanLines(pl.cache, rfp, namesKind))
				lo := LoadOptions{Redact: r.cfg.Redact, Omit: r.cfg.Omit}
				pl.memo = newLineMemo(pl.cache, rfp, fmt.Sprintf("%+v", r.cfg.Omit), lo.filterOnce(), lo.filter())
			}
		} else {
			r.sum.CacheErr = err
		}
	}
	labelProjects(src.a, r.cfg.SourceLabels, r.cfg.Home)
	redactNames(src.a, r.cfg.Redact)
	pl.plan = planSite(src.a)
	pl.plan.hist = newHistoryIndex(r.cfg.History, r.cfg.Redact)
	pl.keys.hist = pl.plan.hist
	if r.cfg.NoSearch {
		search.Remove(IndexPath(r.cfg.State))
	} else {
		x, err := openIndexer(IndexPath(r.cfg.State), prev == nil)
		if err != nil {
			pl.closeCache()
			return nil, err
		}
		if x.index.Fresh() {
			prev = nil // the kept pages' documents are not in a new index
		}
		x.prev = prev
		pl.index = x
	}
	pl.prev = prev
	out.w = newSiteWriter(r.cfg.Out, out.jr, prev != nil)
	return pl, nil
}

// release aborts the index and closes the cache when a build stops before
// the phases that finish them.
func (pl *planned) release() {
	pl.index.abort()
	pl.closeCache()
}

func (pl *planned) closeCache() error {
	if pl.cache == nil {
		return nil
	}
	err := pl.cache.Close()
	pl.cache = nil
	return err
}

func (r *runner) workers() int {
	if r.cfg.Workers > 0 {
		return r.cfg.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// index finishes the search index (the documents of sessions gone since
// the last build go too) and writes the static index.
func (r *runner) index(col *collector, out *output) error {
	x := col.pl.index
	if x == nil {
		return nil
	}
	defer func() { col.pl.index = nil }()
	historyDocs(x, col.pl.plan, col.pl.next.Units)
	x.dropGone(col.pl.next.Units)
	n, err := x.close()
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	r.sum.Docs = n
	st, err := x.writeStatic(out.w, n, col.pl.next)
	if err != nil {
		return err
	}
	r.sum.Search, r.sum.Docs = st, col.pl.next.Docs
	col.pl.next.IndexUpdated = x.deleted || (col.pl.prev != nil && col.pl.prev.IndexUpdated)
	return nil
}

// lists writes the project pages, the index, the assets and the sitemap.
func (r *runner) lists(src *sources, out *output, plan *planned, col *collector) error {
	var prev map[string]string
	if plan.prev != nil && !r.cfg.Force {
		prev = plan.prev.Lists
	}
	plan.next.Lists = map[string]string{}
	pages, rendered, err := writeLists(r.cfg, src.ts, out.w, plan.plan, plan.next.Units, prev, plan.next.Lists)
	r.sum.listsRendered = rendered
	if err != nil {
		return err
	}
	col.listPages = len(pages)
	for _, p := range pages {
		if p != link.Search() {
			col.urls = append(col.urls, p)
		}
	}
	if err := writeAssets(src.th, out.w); err != nil {
		return err
	}
	if r.cfg.BaseURL != "" {
		return writeSitemap(r.cfg.BaseURL, out.w, col.urls)
	}
	return nil
}

// prune removes what the last build wrote and this one did not (a deleted
// session, an option turned off), then writes the marker.
func (r *runner) prune(out *output) error {
	if err := out.w.prune(out.previous); err != nil {
		return err
	}
	return out.w.writeMarker()
}

// save writes the manifest to the state folder and ends the journal.
func (r *runner) save(src *sources, out *output, plan *planned, col *collector) error {
	r.sum.Redacting, r.sum.Redactions = r.cfg.Redact.Active(), redactions(r.cfg.Redact, col.owners, plan.next.Units)
	if err := writeState(r.cfg.State, plan.next); err != nil {
		return err
	}
	// Saved by a build alone, which holds the site's lock (the copies are
	// made before it, each under a name of its own): what a killed save
	// left can go.
	src.kept.store.RemoveTemps()
	st, err := src.kept.store.Save()
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	r.sum.Archive = st
	return out.jr.done()
}

// summarise fills the summary from the phases' products.
func (r *runner) summarise(plan *planned, out *output, col *collector) {
	r.sum.Projects = len(plan.plan.projects)
	r.sum.Sessions, r.sum.Agents, r.sum.Orphans = col.sessions, col.agents, col.orphans
	r.sum.Archived = col.archived
	r.sum.Rendered, r.sum.Written = out.w.pages, out.w.written
	r.sum.Kept = len(plan.next.Units) - col.rendered - historyUnits(plan.next.Units)
	for _, u := range plan.next.Units {
		r.sum.Pages += u.Pages
	}
	r.sum.Pages += col.listPages
	r.sum.Unreadable = col.unreadable
	r.sum.ProblemList = col.problems
	r.sum.Problems = len(col.problems)
	r.sum.HighlightHits, r.sum.Highlighted, r.sum.Plain = plan.hl.Stats()
	if err := plan.closeCache(); err != nil {
		r.sum.CacheErr = err
	}
	r.sum.Elapsed = time.Since(r.start)
}

// afterPages gives back what rendering held before the static index is
// written (the highlight cache, the page buffers and transcript buffers
// kept for the next page, the cache's batch of values not yet written):
// the peak is then the index's, not the sum of both. What pages leave held
// is room the index does not have under the process's soft memory limit
// (the CLI's, main.go): the 1 GB tree's cold build entered the index
// holding about 100 MB of it (a heap profile); letting it go took 3.4-3.7
// CPU-s off that build (eight of eight alternated pairs), none off one
// without search. The collector's settings are the process's: a build
// changes none.
//
// It no longer returns the freed memory to the system
// (debug.FreeOSMemory) as it did when bleve's segments were mapped files
// that had to fit beside the heap: the static index then touched those
// pages afresh, each a page fault, and the cold 1 GB build took 60-70
// thousand more of them (2-3 CPU-s, counted as search) for the same peak
// RSS (747 against 754 MB, measured in alternated pairs).
func afterPages(hl *markup.Highlighter, cache *diskCache) {
	hl.Forget()
	dropBufs()
	transcript.DropBuffers()
	cache.Flush()
}

// agentSet is the set of agent keys to read, nil for all.
func agentSet(keys []string) map[string]bool {
	if len(keys) == 0 {
		return nil
	}
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}
