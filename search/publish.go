package search

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
)

// Merges published a part at a time. The layers layerCuts gives are the
// index's target: a new document of level L turns the layers after the
// last document of level L+1 or more into one. Written at once, that
// merge rewrote several MB one message in 256 and the whole index one in
// thousands. Instead, a merged layer is made once, into a staging folder
// beside the index (not the site), and published a part at a time: each
// document added publishes the next of its files, up to publishBudget of
// its documents' text, shared by the pending merges, smallest first. Until
// all its files are in the site, the manifest serves the layers it
// replaces; then it serves the merged layer, and those layers' files go.
//
// What is served and what is published depends on the documents alone:
// schedule replays them in their numbers as if added one at a time. So an
// updated index is still the one made anew (which makes a pending merge
// into the staging folder too, and publishes the same part of it).
//
// On the corpus tree a document's units (docUnits) come to 0.8 of the
// bytes of the shards made of it (18 MB of units, 22.5 MB of shards), so
// a document added publishes about 0.5 MB of a pending merge: with the
// newest layer and the manifest (0.11 MB at 1 GB), under 1 MB. The 1 GB
// tree's largest merge, the whole index, is published over ~480 additions.
var publishBudget int64 = 384 << 10

// docUnits is what publishing a document's files counts against
// publishBudget: its text, and as much again for what every document
// carries (its metas, display row and postings' headers).
func docUnits(m *meta) int64 { return m.text + 256 }

// pendingMerge is a merged layer not yet published whole: its documents
// are metas[lo:hi]; done of its total units are published.
type pendingMerge struct {
	lo, hi      int
	done, total int64
}

// schedule returns the layers served, as bounds (metas[bounds[i]:
// bounds[i+1]] is layer i, as layerCuts gives them), and the merges
// pending, in number order.
func schedule(metas []meta) (bounds []int, pending []pendingMerge) {
	type span struct{ lo, hi int }
	levels := make([]int, len(metas))
	prefix := make([]int64, len(metas)+1) // units of metas[:i]
	for i := range metas {
		levels[i] = level(metas[i].id)
		prefix[i+1] = prefix[i] + docUnits(&metas[i])
	}
	var last [maxLevel + 1]int // last document of level ≥ L, 0 when none
	var served []span          // a partition of the documents added so far
	merges := map[span]int64{} // pending: units done
	var cuts []int
	for i := range metas {
		for l := levels[i]; l >= 1; l-- {
			last[l] = i
		}
		if levels[i] == 0 && i > 0 {
			// The newest layer grows by this document: nothing else
			// changes but the pending merges' share of the budget.
			served[len(served)-1].hi = i + 1
		} else {
			cuts = appendCuts(cuts[:0], &last)
			// Every target layer but the newest is served as it is
			// when it was (it is a served span), or by the spans it
			// replaces, pending.
			var next []span
			at := 0
			target := map[span]bool{}
			for k := 0; k+1 < len(cuts); k++ {
				t := span{cuts[k], cuts[k+1]}
				target[t] = true
				first := at
				for at < len(served) && served[at].hi <= t.hi {
					at++
				}
				if at-first == 1 && served[first] == t {
					next = append(next, t)
					continue
				}
				next = append(next, served[first:at]...)
				if _, ok := merges[t]; !ok {
					merges[t] = 0
				}
			}
			next = append(next, span{cuts[len(cuts)-1], i + 1})
			for m := range merges {
				if !target[m] {
					delete(merges, m) // taken into a larger merge
				}
			}
			served = next
		}
		if len(merges) == 0 {
			continue
		}
		// The budget, smallest merge first (then the oldest).
		order := make([]span, 0, len(merges))
		for m := range merges {
			order = append(order, m)
		}
		slices.SortFunc(order, func(a, b span) int {
			if c := cmp.Compare(a.hi-a.lo, b.hi-b.lo); c != 0 {
				return c
			}
			return cmp.Compare(a.lo, b.lo)
		})
		budget := publishBudget
		for _, m := range order {
			if budget <= 0 {
				break
			}
			total := prefix[m.hi] - prefix[m.lo]
			use := min(total-merges[m], budget)
			merges[m] += use
			budget -= use
			if merges[m] < total {
				continue
			}
			// Published whole: served in place of what it replaces.
			delete(merges, m)
			k := slices.IndexFunc(served, func(s span) bool { return s.lo == m.lo })
			e := k
			for e < len(served) && served[e].hi <= m.hi {
				e++
			}
			served = slices.Replace(served, k, e, m)
		}
	}
	for _, s := range served {
		bounds = append(bounds, s.lo)
	}
	if len(metas) > 0 {
		bounds = append(bounds, len(metas))
	} else {
		bounds = []int{0}
	}
	for m, done := range merges {
		pending = append(pending, pendingMerge{m.lo, m.hi, done, prefix[m.hi] - prefix[m.lo]})
	}
	slices.SortFunc(pending, func(a, b pendingMerge) int { return cmp.Compare(a.lo, b.lo) })
	return bounds, pending
}

// stagingPath is the folder pending merges are made in, beside the index
// folder.
func stagingPath(dir string) string { return filepath.Clean(dir) + "-staged" }

// stagedFile is where a file of a staged layer is (its site path's name,
// which holds its content's hash, in the staging folder).
func (w *staticWriter) stagedFile(path string) string {
	return filepath.Join(w.staging, filepath.Base(path))
}

// staged returns the staged layer of key, made by this update or the last
// one, when its files are all in the staging folder.
func (w *staticWriter) staged(key string) (keptLayer, bool) {
	k := w.kept
	if k == nil {
		return keptLayer{}, false
	}
	l, ok := k.stagedNext[key]
	if !ok {
		l, ok = k.stagedPrev[key]
	}
	if !ok || len(l.Files) == 0 {
		return keptLayer{}, false
	}
	for _, f := range l.Files {
		if fi, err := os.Stat(w.stagedFile(f)); err != nil || !fi.Mode().IsRegular() {
			return keptLayer{}, false
		}
	}
	return l, true
}

// publish puts the first n files of the staged layer of key in the site
// (n < 0: all of them): those the site holds are kept, the others copied
// from the staging folder. ok is false when no such layer is staged.
func (w *staticWriter) publish(key string, n int) (kl keptLayer, ok bool, err error) {
	kl, ok = w.staged(key)
	if !ok {
		return kl, false, nil
	}
	if n < 0 || n > len(kl.Files) {
		n = len(kl.Files)
	}
	return kl, true, w.publishFiles(kl.Files[:n])
}

// publishFiles puts staged files in the site: those it holds are kept, the
// others copied from the staging folder.
func (w *staticWriter) publishFiles(files []string) error {
	for _, f := range files {
		if w.kept != nil && w.kept.keep != nil && w.kept.keep(f) {
			continue
		}
		data, err := os.ReadFile(w.stagedFile(f))
		if err != nil {
			return err
		}
		if err := w.write(f, data); err != nil {
			return err
		}
	}
	return nil
}

// pend makes the layer of a pending merge into the staging folder (unless
// it is there) and publishes its share of its files, in the order they
// were made.
func (w *staticWriter) pend(p pendingMerge) error {
	docs := w.metas[p.lo:p.hi]
	key := shardKey(docs)
	kl, ok := w.staged(key)
	if !ok {
		if err := os.MkdirAll(w.staging, 0o755); err != nil {
			return err
		}
		site := w.write
		w.write = func(path string, data []byte) error { return writeAtomic(w.stagedFile(path), data) }
		var err error
		kl, err = w.layer(docs)
		w.write = site
		if err != nil {
			return err
		}
	}
	if w.kept != nil {
		if w.kept.stagedNext == nil {
			w.kept.stagedNext = map[string]keptLayer{}
		}
		w.kept.stagedNext[key] = kl
	}
	n := int(int64(len(kl.Files)) * p.done / p.total)
	// Not counted in the stats, which are the served index's.
	return w.publishFiles(kl.Files[:n])
}

// cleanStaging removes the staging folder's files no pending merge holds.
func (w *staticWriter) cleanStaging() {
	want := map[string]bool{}
	if w.kept != nil {
		for _, l := range w.kept.stagedNext {
			for _, f := range l.Files {
				want[filepath.Base(f)] = true
			}
		}
	}
	names, err := os.ReadDir(w.staging)
	if err != nil {
		return
	}
	for _, d := range names {
		if !want[d.Name()] {
			os.Remove(filepath.Join(w.staging, d.Name()))
		}
	}
	if len(want) == 0 {
		os.Remove(w.staging)
	}
}
