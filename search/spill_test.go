package search

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpillSameStatic: the static index written from the spill file is
// the one written from the index alone, file for file: for a new index
// (every document spilled) and for an updated one (the update's documents
// spilled, one of them a new text of an indexed one, the others read from
// the texts file). The spill file is gone after, and its records were used
// (a spill that reads nothing would pass the rest). Some documents repeat
// others' texts (sharing their records), one as a tool's, whose display
// keeps the Markdown (a record of its own).
func TestSpillSameStatic(t *testing.T) {
	docs := testDocs(t, 3000, 9)
	docs = append(docs, Doc{ID: "z.html#cjk", Project: "p", Session: "z", Role: "answer",
		Text: "日本語のテキスト 中文分词 Word WORD word ÉTÉ été " + strings.Repeat("x ", 3000), Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)})
	for i := 0; i < 300; i += 7 {
		d := docs[i]
		d.ID, d.Session = "copy/"+d.ID, "copy"
		if i%2 == 0 {
			d.Role, d.Tool, d.Text = "tool", "Bash", "**"+d.Text+"**"
			docs = append(docs, d, Doc{ID: "md/" + docs[i].ID, Project: "p", Session: "md", Role: "prompt", Time: d.Time, Text: d.Text})
			continue
		}
		docs = append(docs, d)
	}
	build := func(spilled bool, docs []Doc, update []Doc, drop []string) map[string][]byte {
		spillDocs = spilled
		defer func() { spillDocs = true }()
		dir := filepath.Join(t.TempDir(), "idx")
		w := buildIndex(t, dir, docs)
		files := writeAll(t, w, nil)
		if _, err := os.Stat(spillPath(dir)); !os.IsNotExist(err) {
			t.Errorf("spill file left after WriteStatic: %v", err)
		}
		if update == nil {
			return files
		}
		w, err := OpenWriter(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Delete(drop); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Add(update); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return writeAll(t, w, nil)
	}
	same := func(what string, got, want map[string][]byte) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d files, want %d", what, len(got), len(want))
		}
		for p, data := range want {
			if string(got[p]) != string(data) {
				t.Fatalf("%s: %s differs", what, p)
			}
		}
	}
	ids := map[string]bool{}
	for _, d := range docs {
		ids[d.ID] = true
	}
	var reads int // counted by the static writer's workers
	var mu sync.Mutex
	spillHook = func() { mu.Lock(); reads++; mu.Unlock() }
	defer func() { spillHook = nil }()
	same("new index", build(true, docs, nil, nil), build(false, docs, nil, nil))
	if reads != len(ids) {
		t.Errorf("new index: %d documents read from the spill, want %d", reads, len(ids))
	}
	// The update: 200 documents new, one replaced by another text.
	base, added := docs[:2800], slices.Clone(docs[2800:])
	changed := base[5]
	changed.Text = "an edited text, not the one first indexed"
	added = append(added, changed)
	reads = 0
	same("updated index", build(true, base, added, []string{changed.ID}), build(false, base, added, []string{changed.ID}))
	if want := len(base) + len(added); reads != want {
		t.Errorf("updated index: %d documents read from the spill, want %d (the first build's and the update's)", reads, want)
	}
}

// TestSpillShares: documents of one text share a record, unless their
// displays differ (a tool's keeps its Markdown).
func TestSpillShares(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	w, err := OpenWriter(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	text := "Use **retry** with `backoff`"
	if _, err := w.Add([]Doc{{ID: "a#1", Role: "prompt", Text: text}, {ID: "b#1", Role: "answer", Text: text},
		{ID: "c#1", Role: "tool", Tool: "Bash", Text: text}, {ID: "d#1", Role: "tool", Tool: "Grep", Text: text},
		{ID: "e#1", Role: "prompt", Text: text + "."}}); err != nil {
		t.Fatal(err)
	}
	at := map[string]spillLoc{}
	for _, id := range []string{"a#1", "b#1", "c#1", "d#1", "e#1"} {
		loc, ok := w.spill.loc(id)
		if !ok {
			t.Fatalf("no record of %s", id)
		}
		at[id] = loc
	}
	if at["a#1"].off != at["b#1"].off || at["c#1"].off != at["d#1"].off {
		t.Errorf("one text, one display, two records: %v", at)
	}
	if at["a#1"].off == at["c#1"].off || at["a#1"].off == at["e#1"].off {
		t.Errorf("a record shared by other displays or texts: %v", at)
	}
	if at["a#1"].hash == at["b#1"].hash {
		t.Errorf("documents sharing a record keep their own hashes: %v", at)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := writeAll(t, w, nil)
	if len(files) == 0 {
		t.Fatal("no static index")
	}
}

// TestSpillRecord: a record reads back as written; a cut or lengthened
// record is refused (its document is then read from the index).
func TestSpillRecord(t *testing.T) {
	var sc scratchAnalyzer
	text := "Alpha beta ALPHA 日本語 gamma alpha"
	toks := sc.analyze(text)
	slot := map[string]int32{}
	var ts, uniq []int32
	var n []int
	for i, tk := range toks {
		at, ok := slot[string(tk.Term)]
		if !ok {
			at = int32(len(uniq))
			slot[string(tk.Term)] = at
			uniq = append(uniq, int32(i))
			n = append(n, 0)
		}
		n[at]++
		ts = append(ts, at)
	}
	rec, _ := appendRecord(nil, "display", toks, ts, uniq, n, nil)
	a, err := decodeAnalysed(slices.Clone(rec))
	if err != nil {
		t.Fatal(err)
	}
	if a.display != "display" || a.length != len(toks) || len(a.terms) != len(uniq) {
		t.Fatalf("read %q %d %d terms", a.display, a.length, len(a.terms))
	}
	for j, tp := range a.terms {
		if string(tp.term) != string(toks[uniq[j]].Term) {
			t.Fatalf("term %d: %q, want %q", j, tp.term, toks[uniq[j]].Term)
		}
		var want []uint32
		for i, tk := range toks {
			if ts[i] == int32(j) {
				want = append(want, uint32(tk.Position))
			}
		}
		if !slices.Equal(tp.pos, want) {
			t.Fatalf("term %q: positions %v, want %v", tp.term, tp.pos, want)
		}
	}
	for k := 0; k < len(rec); k++ {
		if _, err := decodeAnalysed(slices.Clone(rec[:k])); err == nil {
			t.Fatalf("a record cut to %d bytes of %d was read", k, len(rec))
		}
	}
	if _, err := decodeAnalysed(append(slices.Clone(rec), 0)); err == nil {
		t.Fatal("a record with a byte more was read")
	}
}

// TestSpillUnwritable: when the spill file cannot be made (here a folder
// holds its name), the documents are read from the index: the static
// index is the same, and the build does not fail.
func TestSpillUnwritable(t *testing.T) {
	docs := testDocs(t, 500, 4)
	want := func() map[string][]byte {
		spillDocs = false
		defer func() { spillDocs = true }()
		return writeAll(t, buildIndex(t, filepath.Join(t.TempDir(), "idx"), docs), nil)
	}()
	dir := filepath.Join(t.TempDir(), "idx")
	if err := os.MkdirAll(filepath.Join(spillPath(dir), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	var reads int
	var mu sync.Mutex
	spillHook = func() { mu.Lock(); reads++; mu.Unlock() }
	defer func() { spillHook = nil }()
	got := writeAll(t, buildIndex(t, dir, docs), nil)
	if reads != 0 {
		t.Errorf("%d records read from a spill that could not be written", reads)
	}
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for p, data := range want {
		if string(got[p]) != string(data) {
			t.Fatalf("%s differs", p)
		}
	}
}
