package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// segments lists the segments in the index's root (not the files in its
// folder: one a merge replaced may be there a while), by id, with their
// live documents.
func segments(t *testing.T, dir string) map[uint64]int64 {
	t.Helper()
	idx, err := bleve.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.(*scorch.Scorch).Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[uint64]int64{}
	for _, seg := range r.(*scorch.IndexSnapshot).Segments() {
		out[seg.Id()] = seg.LiveSize()
	}
	return out
}

// largest is the id of the largest segment.
func largest(segs map[uint64]int64) uint64 {
	var id uint64
	most := int64(-1)
	for k, n := range segs {
		if n > most {
			id, most = k, n
		}
	}
	return id
}

// TestMergeLeavesLargest: updates of a few documents each add a segment;
// past the limit (maxSegments in a build) they are merged among
// themselves, and the index's large segment (the whole archive) is not
// written again. An update as
// large as an eighth of the index merges everything into one segment.
// Search finds every document throughout.
func TestMergeLeavesLargest(t *testing.T) {
	docs := testDocs(t, 3000, 5)
	dir := filepath.Join(t.TempDir(), "idx")
	buildIndex(t, dir, docs)
	segs := segments(t, dir)
	if len(segs) != 1 {
		t.Fatalf("a new index has %d segments, want 1", len(segs))
	}
	big := largest(segs)
	// update adds docs, then brings the bleve index up to them as Sync
	// does, leaving at most most segments.
	update := func(k int, add []Doc, most uint64) {
		t.Helper()
		w, err := OpenWriter(dir, false)
		if err != nil || w.Fresh() {
			t.Fatalf("update %d: %v (fresh %v)", k, err, w.Fresh())
		}
		if _, err := w.Add(add); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := syncIndex(dir, most, nil); err != nil {
			t.Fatal(err)
		}
	}
	// At 2 segments: the merge comes with every other update.
	for k := range 3 * maxSegments {
		update(k, []Doc{{ID: fmt.Sprintf("p/s.html#m-zq%02d", k), Project: "p", Session: "s", Title: "S",
			Role: "prompt", Time: time.Date(2026, 11, 27, 12, k, 0, 0, time.UTC), Text: fmt.Sprintf("quokkamerge%02d appended", k)}}, 2)
		segs = segments(t, dir)
		if len(segs) > 2 {
			t.Fatalf("update %d: %d segments, want at most 2", k, len(segs))
		}
		if _, ok := segs[big]; !ok {
			t.Fatalf("update %d: the large segment %d was merged (segments now %v)", k, big, segs)
		}
	}
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 * maxSegments {
		res, err := idx.Search(context.Background(), Query{Text: fmt.Sprintf("quokkamerge%02d", k)})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("quokkamerge%02d: %d hits, %v", k, len(res.Hits), err)
		}
	}
	idx.Close()
	// A large update: the small segments outgrow an eighth of the large
	// one, and a merge takes them all.
	var many []Doc
	for k := range len(docs)/smallShare + 10 {
		many = append(many, Doc{ID: fmt.Sprintf("p/t.html#m-%04d", k), Project: "p", Session: "t", Title: "T",
			Role: "answer", Time: time.Date(2026, 11, 27, 13, 0, k, 0, time.UTC), Text: strings.Repeat("bulk words ", 5)})
	}
	update(-1, many, 1)
	if segs := segments(t, dir); len(segs) != 1 {
		t.Errorf("after a large update, %d segments: want all merged into one", len(segs))
	}
}
