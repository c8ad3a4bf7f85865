package search

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

// writeIndex makes an index of docs in dir (without bleve's) and writes
// its static index.
func writeIndex(t *testing.T, dir string, docs []Doc) map[string][]byte {
	t.Helper()
	return writeAll(t, addIndex(t, dir, docs), nil)
}

// idOfLevel is a document id whose level is l.
func idOfLevel(l, from int) (string, int) {
	for k := from; ; k++ {
		id := fmt.Sprintf("p1/s3.html#m-new%05d", k)
		if level(id) == l {
			return id, k + 1
		}
	}
}

// TestSchedule: with a budget that publishes every merge at once, the
// layers served are layerCuts' and nothing is pending; with a small one,
// the layers served cover every document once, in order, each either a
// target layer or inside one that is pending, and a pending merge holds
// more than one of them.
func TestSchedule(t *testing.T) {
	defer func(b int64) { publishBudget = b }(publishBudget)
	var metas []meta
	for i := range 20000 {
		metas = append(metas, meta{id: fmt.Sprintf("d%d", i), text: int64(i % 700)})
	}
	publishBudget = 1 << 40
	if bounds, pending := schedule(metas); !slices.Equal(bounds, layerCuts(metas)) || len(pending) != 0 {
		t.Fatalf("budget without bound: served %v, pending %v; want %v", bounds, pending, layerCuts(metas))
	}
	publishBudget = 40 << 10
	sawPending := false
	for _, n := range []int{1, 2, 17, 300, 4096, 9000, 15000, 19999, 20000} {
		bounds, pending := schedule(metas[:n])
		target := layerCuts(metas[:n])
		if bounds[0] != 0 || bounds[len(bounds)-1] != n || !slices.IsSorted(bounds) {
			t.Fatalf("%d documents: served %v", n, bounds)
		}
		inPending := func(lo, hi int) bool {
			for _, p := range pending {
				if p.lo <= lo && hi <= p.hi {
					return true
				}
			}
			return false
		}
		for i := 0; i+1 < len(bounds); i++ {
			lo, hi := bounds[i], bounds[i+1]
			k := slices.Index(target, lo)
			if !(k >= 0 && k+1 < len(target) && target[k+1] == hi) && !inPending(lo, hi) {
				t.Fatalf("%d documents: served layer [%d,%d) is no target layer (%v) and in no pending merge %v", n, lo, hi, target, pending)
			}
		}
		for _, p := range pending {
			sawPending = true
			k := slices.Index(target, p.lo)
			if k < 0 || k+1 >= len(target) || target[k+1] != p.hi || p.done >= p.total {
				t.Fatalf("%d documents: pending %+v is no target layer %v, or is done", n, p, target)
			}
			inside := 0
			for i := 0; i+1 < len(bounds); i++ {
				if p.lo <= bounds[i] && bounds[i+1] <= p.hi {
					inside++
				}
			}
			if inside < 2 {
				t.Fatalf("%d documents: pending %+v replaces %d served layers", n, p, inside)
			}
		}
	}
	if !sawPending {
		t.Error("no merge pending at any point: the budget does not bind")
	}
}

// TestStaticPublished: documents added one at a time, with a budget that
// leaves merges pending for many additions: at every step the site is
// the one made anew from the same documents, its postings are those of
// the plain layers (every document served once), and the largest rewrite
// of a step is a fraction of what merging at once rewrites, a document
// numbered among the first ones too; once the merges are published, the
// layers are layerCuts'.
func TestStaticPublished(t *testing.T) {
	defer func(b int64) { publishBudget = b }(publishBudget)
	docs := testDocs(t, 1500, 4)
	base := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	// The added documents: a level 2 one (it merges the layers after the
	// last document of level 3), one of level 3 (the layers after the
	// last of level 4: most of the index), then enough of level 0 for
	// the merges to be published.
	var added []Doc
	from := 0
	for k, l := range append([]int{0, 2, 0, 0, 1, 3}, make([]int, 54)...) {
		var id string
		id, from = idOfLevel(l, from)
		added = append(added, Doc{ID: id, Project: "proj1", Session: "s3", Title: "Session 3", Role: "prompt",
			Time: base.Add(time.Duration(k) * time.Minute), Text: fmt.Sprintf("message %d: run the tests again and fix whatever fails", k)})
	}
	// And, while a merge is pending, one of an older session synced late:
	// numbered among the first documents, not after the others.
	added[9].Time = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	pendingSeen, stagedMidway := 0, false
	run := func(budget int64, check bool) (maxStep int, final map[string][]byte) {
		publishBudget = budget
		dir := filepath.Join(t.TempDir(), "idx")
		before := writeIndex(t, dir, docs)
		all := slices.Clone(docs)
		for k, d := range added {
			all = append(all, d)
			w, err := OpenWriter(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Add([]Doc{d}); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			after := writeAll(t, w, before)
			step := 0
			for p, data := range after {
				if old, ok := before[p]; (!ok || string(old) != string(data)) && p != ManifestPath {
					step += len(data)
				}
			}
			if k != 9 { // the late one rewrites the layer of its time, as it must
				maxStep = max(maxStep, step)
			}
			before = after
			if check && (k%4 == 1 || k == 9 || k == len(added)-1) {
				anew := writeIndex(t, filepath.Join(t.TempDir(), "anew"), all)
				if !reflect.DeepEqual(mapKeys(anew), mapKeys(after)) {
					t.Fatalf("step %d: %d files, made anew %d", k, len(after), len(anew))
				}
				for p, data := range anew {
					if string(after[p]) != string(data) {
						t.Fatalf("step %d: %s differs from the index made anew", k, p)
					}
				}
				// What the layers served hold is what the plain
				// layers hold: every document once, numbered alike.
				publishBudget = 1 << 40
				plainNow := writeIndex(t, filepath.Join(t.TempDir(), "plain"), all)
				publishBudget = budget
				got, gotLens := staticPostings(t, after)
				want, wantLens := staticPostings(t, plainNow)
				if !reflect.DeepEqual(got, want) || !slices.Equal(gotLens, wantLens) {
					t.Fatalf("step %d: the layers served hold other postings than the plain layers", k)
				}
				if len(readManifest(t, after).Layers) != len(readManifest(t, plainNow).Layers) {
					pendingSeen++ // served by the layers a pending merge replaces
					if made := pendingMade(t, dir); made > 0 {
						stagedMidway = true
					}
				}
			}
		}
		if check {
			// The merges published, nothing is left pending; the
			// index's removal takes the staging folder of earlier
			// builds too.
			if made := pendingMade(t, dir); made != 0 {
				t.Errorf("merges published, %d files still recorded pending", made)
			}
			if !stagedMidway {
				t.Error("no merge had made part of its layer at any check")
			}
			os.MkdirAll(stagingPath(dir), 0o755)
			os.WriteFile(filepath.Join(stagingPath(dir), "t-x.js"), []byte("x"), 0o644)
			if err := Remove(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(stagingPath(dir)); !os.IsNotExist(err) {
				t.Errorf("the index removed, its staging folder is still there (%v)", err)
			}
		}
		return maxStep, before
	}
	atOnce, plain := run(1<<40, false)
	// Small enough that merging most of the index takes tens of steps.
	bounded, published := run(24<<10, true)
	t.Logf("largest step: %d bytes merged at once, %d published a part at a time; %d checks with a merge pending", atOnce, bounded, pendingSeen)
	if pendingSeen < 3 {
		t.Errorf("a merge was pending at %d of the checks, want several", pendingSeen)
	}
	if bounded*4 > atOnce {
		t.Errorf("largest step: %d bytes published a part at a time, %d merged at once", bounded, atOnce)
	}
	// Published whole by the end: the same index as merging at once.
	if !reflect.DeepEqual(mapKeys(plain), mapKeys(published)) {
		t.Fatalf("after the merges: %d files, %d merging at once", len(published), len(plain))
	}
	for p, data := range plain {
		if string(published[p]) != string(data) {
			t.Errorf("after the merges: %s differs", p)
		}
	}
}

// pendingMade is how many files of pending merges the index in dir
// records made.
func pendingMade(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(shardsPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	var kf keptFile
	if err := json.Unmarshal(data, &kf); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range kf.Pending {
		n += len(st.Layer.Files)
	}
	return n
}

func mapKeys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
