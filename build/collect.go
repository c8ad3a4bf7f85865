package build

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"ccsite/build/archive"
	"ccsite/build/session"
	"golang.org/x/sync/errgroup"
)

// collector takes rendered sessions in archive order and is the only one
// to act on them: it writes their files, hands their documents to the
// index, and records their units, counts and problems.
type collector struct {
	r   *runner
	pl  *planned
	w   *siteWriter
	sum *Summary

	sessions, agents, orphans int
	rendered                  int // units rendered (not kept)
	archived                  int // units built from the archive (source gone)
	listPages                 int // project pages, index, search page
	problems                  []session.Problem
	unreadable                []string
	urls                      []string // pages, for the sitemap
	// owners maps each source file to the unit showing it, for the
	// redaction counts per session.
	owners  map[string]*unit
	publish time.Duration
	// busy times the streaming phases: load (the pipeline's time not spent
	// rendering or publishing), render (summed over workers), publish.
	busy []Phase
}

// pages is the streaming part of the build: Load parses sessions in
// parallel and hands them on in archive order; workers render them (a
// pure function); the collector writes what they made, in archive order.
// At most a window of sessions is between Load and the collector, so
// memory follows the largest sessions, not the archive.
func (r *runner) pages(ctx context.Context, src *sources, out *output, pl *planned) (*collector, error) {
	workers := r.workers()
	col := &collector{r: r, pl: pl, w: out.w, sum: &r.sum, owners: map[string]*unit{}}
	rn := &renderer{cfg: r.cfg, plan: pl.plan, keys: pl.keys, ts: src.ts, md: newBuilder(pl.hl)}
	rn.md.DeferAfter = r.cfg.deferAfter
	rn.origin = src.kept.origin
	rn.prices = src.prices
	if pl.index != nil && pl.index.prev != nil {
		rn.prevUnits = pl.index.prev.Units
	}
	lopts := LoadOptions{Workers: workers, Redact: r.cfg.Redact, Omit: r.cfg.Omit, panicOn: r.cfg.panicOn, memo: pl.memo}
	if pl.prev != nil && !r.cfg.Force {
		lopts.Cache = func(l Loaded) *Cached { return cached(pl, out.w, l) }
	}
	type job struct {
		l   Loaded
		seq int
	}
	g, gctx := errgroup.WithContext(ctx)
	queue := make(chan job, workers)
	results := make(chan *rendered, workers)
	window := make(chan struct{}, 4*workers+4) // sessions loaded but not yet collected
	var renderBusy time.Duration
	var busyMu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			for j := range queue {
				t := time.Now()
				res := rn.render(j.l, j.seq)
				busyMu.Lock()
				renderBusy += time.Since(t)
				busyMu.Unlock()
				select {
				case results <- res:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	go func() { wg.Wait(); close(results) }()
	loadStart := time.Now()
	g.Go(func() error {
		defer close(queue)
		seq := 0
		return Load(gctx, src.a, lopts, func(l Loaded) error {
			select {
			case window <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case queue <- job{l, seq}:
				seq++
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	g.Go(func() error { return col.run(results, window) })
	err := g.Wait()
	if err != nil {
		for range results { // let the workers end
		}
		return nil, err
	}
	col.busy = []Phase{busy("load", max(0, time.Since(loadStart)-renderBusy/time.Duration(workers)-col.publish)),
		busy("render", renderBusy), busy("publish", col.publish)}
	sort.Strings(col.unreadable)
	sort.SliceStable(col.problems, func(i, j int) bool {
		pi, pj := col.problems[i], col.problems[j]
		if pi.File != pj.File {
			return pi.File < pj.File
		}
		if pi.Line != pj.Line {
			return pi.Line < pj.Line
		}
		return pi.Kind+pi.Reason < pj.Kind+pj.Reason
	})
	return col, nil
}

// run collects results in sequence order, letting one more session into
// the window for each collected. An error ends it (and the build).
func (c *collector) run(results <-chan *rendered, window <-chan struct{}) error {
	pending := map[int]*rendered{}
	next := 0
	for res := range results {
		pending[res.seq] = res
		for p := pending[next]; p != nil; p = pending[next] {
			delete(pending, next)
			next++
			t := time.Now()
			err := c.take(p)
			c.publish += time.Since(t)
			if err != nil {
				return err
			}
			<-window
		}
	}
	return nil
}

// take acts on one rendered session or orphan agent.
func (c *collector) take(res *rendered) error {
	l := res.l
	switch {
	case res.failed != "":
		c.unreadable = append(c.unreadable, res.failed)
		c.r.progress.done.Add(1)
		return nil
	case l.Cached != nil:
		c.adopt(l)
		return nil
	}
	u := res.unit
	defer func() {
		for i := range res.files {
			res.files[i].release()
		}
	}()
	for _, f := range res.files {
		u.Files = append(u.Files, f.path)
		var err error
		switch {
		case f.media:
			err = c.w.writeMedium(f.path, f.data)
		case f.page:
			err = c.w.writePage(f.path, f.data)
			if c.r.cfg.BaseURL != "" {
				c.urls = append(c.urls, f.path)
			}
		default:
			_, err = c.w.write(f.path, f.data)
		}
		if err != nil {
			return err
		}
	}
	for _, f := range u.owns {
		if c.owners[f] == nil || f == u.owns[0] {
			c.owners[f] = u
		}
	}
	switch {
	case c.pl.index == nil:
	case res.docsKept != "":
		u.DocsHash = res.docsKept // in the index as they are
	default:
		c.pl.index.send(u, res.page, res.docs)
	}
	c.rendered++
	c.finish(res.page, u, l)
	return nil
}

// adopt keeps a unit the last build wrote: its files stay, its row and
// counts go to the lists and summary, its documents stay in the index.
func (c *collector) adopt(l Loaded) {
	u := l.Cached.Unit.(*unit)
	c.w.keep(u.Files)
	if c.r.cfg.BaseURL != "" {
		for _, f := range u.Files {
			if strings.HasSuffix(f, ".html") {
				c.urls = append(c.urls, f)
			}
		}
	}
	c.finish(c.pl.plan.pageOf(l), u, l)
}

// finish adds a unit to the summary and the manifest.
func (c *collector) finish(page string, u *unit, l Loaded) {
	if u.Orphan != nil {
		c.orphans++
	} else {
		c.sessions++
		c.agents += u.Agents
	}
	if u.Deleted != "" {
		c.archived++
	}
	c.problems = append(c.problems, u.Problems...)
	c.r.progress.done.Add(1)
	if l.File != nil {
		n := l.File.Size
		for _, ag := range l.File.Agents {
			n += ag.Size
		}
		c.r.progress.bytes.Add(n)
	} else if l.Agent != nil {
		c.r.progress.bytes.Add(l.Agent.Size)
	}
	c.pl.next.Units[page] = u
}

// cached tells Load which sessions and orphan agents the last build's
// pages still hold: same key (sources, options, neighbours), all files
// there. It runs on Load's workers: it only reads.
func cached(pl *planned, w *siteWriter, l Loaded) *Cached {
	pp := pl.plan.projectOf(l.Project)
	if pp == nil {
		return nil
	}
	page := pl.plan.pageOf(l)
	u := pl.prev.Units[page]
	if u == nil {
		return nil
	}
	var key string
	if l.File != nil {
		key = pl.keys.session(pp, pl.plan.byFile[l.File])
	} else {
		key = pl.keys.orphan(pp, page, l.Agent)
	}
	if key != u.Key || !w.exists(u.Files) {
		return nil
	}
	return &Cached{Refs: u.Refs, Claimed: u.Claimed, Unit: u,
		Still: func(got []*archive.AgentFile) bool { return pl.keys.claims(got) == u.ClaimK }}
}
