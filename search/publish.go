package search

import (
	"cmp"
	"errors"
	"path/filepath"
	"slices"
	"unicode/utf8"
)

// Merges published a part at a time. The layers layerCuts gives are the
// index's target: a new document of level L turns the layers after the
// last document of level L+1 or more into one. Written at once, that
// merge rewrote several MB one message in 256 and the whole index one in
// thousands. Instead, a merged layer is made and published a part at a
// time: each document added publishes the next of its files (merge.go
// says which), up to publishBudget of its documents' text, shared by the
// pending merges, smallest first. Until all its files are in the site,
// the manifest serves the layers it replaces; then it serves the merged
// layer, and those layers' files go.
//
// What is served and what is published depends on the documents alone:
// schedule replays them in their numbers as if added one at a time. So an
// updated index is still the one made anew (which makes the same part of
// a pending merge, from nothing).
//
// A file of a pending merge is made once its place (merge.go) is at most
// twice the units published. On the corpus tree the display shards come
// to 0.8 bytes a unit and the term shards to 0.39, so a document added
// publishes about 0.6 MB of display shards while they are made (the first
// half of the units), then about 0.4 MB of term shards: with the newest
// layer and the manifest (a few hundred bytes), under 1 MB. Measured at
// 1 GB over a merge of the whole index: 0.53 MB a message in the median,
// at most 0.90 (the largest term shard, one common word's postings, made
// alone). That merge is published over ~500 additions.
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

// stagingPath is the folder earlier builds made pending merges in,
// beside the index folder: removed.
func stagingPath(dir string) string { return filepath.Clean(dir) + "-staged" }

// pend makes the files of a pending merge's layer whose place is within
// what its schedule has published (merge.go), from where the last build
// left it, out of the layers it replaces: the layers served, bounds.
func (w *staticWriter) pend(p pendingMerge, bounds []int) error {
	docs := w.metas[p.lo:p.hi]
	key := shardKey(docs)
	st := w.kept.resume(key)
	st.Sources = nil
	for i := 0; i+1 < len(bounds); i++ {
		if bounds[i] >= p.lo && bounds[i+1] <= p.hi {
			st.Sources = append(st.Sources, mergeSource{bounds[i] - p.lo, bounds[i+1] - p.lo,
				shardKey(w.metas[bounds[i]:bounds[i+1]])})
		}
	}
	var layers map[string]keptLayer
	if w.kept != nil {
		layers = w.kept.next
	}
	// Not counted in the stats, which are the served index's.
	if err := w.makeFrom(docs, &st, 2*p.done, layers); err != nil {
		return err
	}
	if !utf8.ValidString(st.After) {
		// Not kept as JSON: the next build makes its part from nothing
		// (the same files).
		return nil
	}
	w.kept.pend(key, st)
	return nil
}

// makeFrom makes docs' layer from where st is to the place upto (< 0: the
// whole layer) out of st's sources, found in layers, or, when they cannot
// be read as written, from the documents' texts.
func (w *staticWriter) makeFrom(docs []meta, st *mergeState, upto int64, layers map[string]keptLayer) error {
	src := &shardSource{read: w.read}
	ok := w.read != nil && len(st.Sources) > 0
	at := 0
	for _, s := range st.Sources {
		kl, found := layers[s.Key]
		if !found || s.From != at || kl.Entry.N != s.To-s.From {
			ok = false
			break
		}
		src.srcs = append(src.srcs, srcLayer{s.From, kl})
		at = s.To
	}
	if ok && at == len(docs) {
		err := w.makeLayer(docs, src, st, upto)
		if !errors.As(err, new(sourceError)) {
			w.merged.shards++
			return err
		}
	}
	w.merged.texts++
	return w.makeLayer(docs, &analysedSource{w: w, docs: docs}, st, upto)
}

// resume is the made part of the pending merge of key, as the last build
// left it, when the site still holds its files (which it keeps); else
// nothing made.
func (k *keptShards) resume(key string) mergeState {
	if k == nil || k.keep == nil {
		return mergeState{}
	}
	st, ok := k.pendPrev[key]
	if !ok {
		return mergeState{}
	}
	for _, f := range st.Layer.Files {
		if !k.keep(f) {
			return mergeState{}
		}
	}
	return st
}

// pend records the made part of the pending merge of key.
func (k *keptShards) pend(key string, st mergeState) {
	if k == nil {
		return
	}
	if k.pendNext == nil {
		k.pendNext = map[string]mergeState{}
	}
	k.pendNext[key] = st
}
