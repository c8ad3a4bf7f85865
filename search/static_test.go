package search

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// testDocs makes n documents of varied text: words, accents, CJK runs,
// repeats, empty texts, documents without a time and documents sharing
// one; with CCSITE_CORPUS, lines of real transcripts as well.
func testDocs(t *testing.T, n int, seed uint64) []Doc {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	words := strings.Fields("the build fails when the test runs go vet gofmt README Crème brûlée ÉTÉ naïve " +
		"日本語のテキスト 中文分词 한국어 ｶﾀｶﾅ ＡＢＣ foo_bar x 42 ½ «quoted» deploy quokka error panic nil " +
		"function handler session agent tool Bash Read Edit Write grep ripgrep λ Ωmega Привет мир")
	var texts []string
	if dir := os.Getenv("CCSITE_CORPUS"); dir != "" {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || len(texts) > 3000 {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<24)
			for k := 0; sc.Scan() && k < 40; k++ {
				texts = append(texts, sc.Text())
			}
			return nil
		})
	}
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]Doc, n)
	for i := range docs {
		var b strings.Builder
		if len(texts) > 0 && i%3 == 0 {
			b.WriteString(texts[r.IntN(len(texts))])
		} else {
			for k := r.IntN(60); k > 0; k-- {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteByte(" ,.\n"[r.IntN(4)])
			}
		}
		d := Doc{ID: fmt.Sprintf("p%d/s%d.html#m-%04x", i%3, i%17, r.Uint32()), Project: fmt.Sprintf("proj%d", i%3),
			Session: fmt.Sprintf("s%d", i%17), Title: fmt.Sprintf("Session %d", i%17), Role: []string{"prompt", "answer", "tool", "thinking"}[i%4],
			Text: b.String(), Agent: []string{"claude", "codex", "gemini"}[i%17%3]}
		if d.Role == "tool" {
			d.Tool = "Bash"
		}
		switch i % 11 {
		case 0: // no time
		case 1: // the same time as another
			d.Time = base
		default:
			d.Time = base.Add(time.Duration(r.IntN(1e6)) * time.Second)
		}
		docs[i] = d
	}
	return docs
}

// writeAll builds the static index of an index's documents in memory.
func writeAll(t *testing.T, w *Writer, prev map[string][]byte) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	var keep func(string) bool
	if prev != nil {
		keep = func(p string) bool {
			data, ok := prev[p]
			if ok {
				files[p] = data
			}
			return ok
		}
	}
	read := func(p string) ([]byte, error) {
		data, ok := files[p]
		if !ok {
			return nil, os.ErrNotExist
		}
		return data, nil
	}
	if _, err := w.WriteStatic(func(p string, data []byte) error {
		files[p] = slices.Clone(data)
		return nil
	}, keep, read); err != nil {
		t.Fatal(err)
	}
	return files
}

var putRE = regexp.MustCompile(`(?s)^ccsiteSearch\.put\(("[^"]*"),(.*)\);\n$`)

// staticManifest is the manifest as the browser reads it.
type staticManifest struct {
	N      int          `json:"n"`
	AvgDL  float64      `json:"avgdl"`
	Layers []layerEntry `json:"layers"`
}

func readManifest(t *testing.T, files map[string][]byte) staticManifest {
	t.Helper()
	s := strings.TrimSuffix(strings.TrimPrefix(string(files[ManifestPath]), "ccsiteSearch.manifest("), ");\n")
	var m struct {
		staticManifest
		Layers []manifestLayer `json:"layers"`
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	// Each layer's entry is its layer file.
	for _, l := range m.Layers {
		args := shardData(t, files, l.File)
		var e layerEntry
		if len(args) != 1 || json.Unmarshal(args[0], &e) != nil || e.N != l.N {
			t.Fatalf("layer file %s: not the entry of a layer of %d documents", l.File, l.N)
		}
		m.staticManifest.Layers = append(m.staticManifest.Layers, e)
	}
	return m.staticManifest
}

// shardData is a shard's arguments after its name.
func shardData(t *testing.T, files map[string][]byte, name string) []json.RawMessage {
	t.Helper()
	m := putRE.FindSubmatch(files[StaticDir+"/"+name+".js"])
	if m == nil {
		t.Fatalf("shard %s: not a put call", name)
	}
	var args []json.RawMessage
	if err := json.Unmarshal([]byte("["+string(m[2])+"]"), &args); err != nil {
		t.Fatal(err)
	}
	return args
}

// posting is one document's entry in a term's postings.
type posting struct {
	doc, freq, len uint32
	pos            []uint32
}

func digitOf(c byte) int { return strings.IndexByte(digits, c) }

// decodeStatic decodes a term's postings as the browser does.
func decodeStatic(s string, base int) []posting {
	i := 0
	next := func() uint64 {
		var n uint64
		for {
			d := digitOf(s[i])
			i++
			if d < 32 {
				return n*32 + uint64(d)
			}
			n = n*32 + uint64(d-32)
		}
	}
	var out []posting
	doc := -1
	for i < len(s) {
		v := next()
		doc += int(v/2) + 1
		f := uint64(1)
		if v%2 == 1 {
			f = next() + 2
		}
		p := posting{doc: uint32(base + doc), freq: uint32(f), len: uint32(next())}
		last := uint32(0)
		for k := uint64(0); k < f; k++ {
			last += uint32(next())
			p.pos = append(p.pos, last)
		}
		out = append(out, p)
	}
	return out
}

// staticPostings reads every term's postings and every document's length
// (which every posting of it carries, the same) out of a static index, as
// the browser would.
func staticPostings(t *testing.T, files map[string][]byte) (map[string][]posting, []uint32) {
	t.Helper()
	man := readManifest(t, files)
	all := map[string][]posting{}
	base, metas := 0, 0
	for _, l := range man.Layers {
		for _, ts := range l.Terms {
			args := shardData(t, files, ts[1])
			var terms, posts []string
			json.Unmarshal(args[0], &terms)
			json.Unmarshal(args[1], &posts)
			for k, term := range terms {
				all[term] = append(all[term], decodeStatic(posts[k], base)...)
			}
		}
		for _, mf := range l.Meta {
			args := shardData(t, files, mf)
			var enc string
			json.Unmarshal(args[0], &enc)
			// the day: one number a document
			for i := range len(enc) {
				if digitOf(enc[i]) < 32 {
					metas++
				}
			}
		}
		base += l.N
	}
	lens := make([]uint32, base)
	for term, ps := range all {
		if isFilterTerm(term) {
			continue // they carry no length
		}
		for _, p := range ps {
			if int(p.doc) >= base {
				t.Fatalf("term %q: document %d of %d", term, p.doc, base)
			}
			if lens[p.doc] != 0 && lens[p.doc] != p.len {
				t.Fatalf("document %d: length %d in one posting, %d in another", p.doc, lens[p.doc], p.len)
			}
			lens[p.doc] = p.len
		}
	}
	if base != man.N || metas != man.N {
		t.Fatalf("layers hold %d documents and %d metas, the manifest says %d", base, metas, man.N)
	}
	return all, lens
}

// blevePostings reads every term's postings out of the bleve index, numbered
// by metas (in the static index's numbers), and each document's field
// length from bleve's norms.
func blevePostings(t *testing.T, dir string, metas []meta) (map[string][]posting, []uint32) {
	t.Helper()
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	adv, _ := idx.Advanced()
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	num := map[string]uint32{}
	for i, m := range metas {
		num[m.id] = uint32(i)
	}
	lens := make([]uint32, len(metas))
	dict, err := r.FieldDict("text")
	if err != nil {
		t.Fatal(err)
	}
	defer dict.Close()
	all := map[string][]posting{}
	for {
		e, err := dict.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		tfr, err := r.TermFieldReader(context.Background(), []byte(e.Term), "text", true, true, true)
		if err != nil {
			t.Fatal(err)
		}
		var ps []posting
		for {
			d, err := tfr.Next(nil)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil {
				break
			}
			ext, err := r.ExternalID(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			p := posting{doc: num[ext], freq: uint32(d.Freq)}
			for _, v := range d.Vectors {
				p.pos = append(p.pos, uint32(v.Pos))
			}
			slices.Sort(p.pos)
			ps = append(ps, p)
			lens[p.doc] = fieldLength(t, d.Norm)
		}
		tfr.Close()
		sort.Slice(ps, func(i, j int) bool { return ps[i].doc < ps[j].doc })
		if len(ps) > 0 {
			all[e.Term] = ps
		}
	}
	return all, lens
}

// fieldLength recovers a token count from bleve's norm, 1/sqrt(length).
func fieldLength(t *testing.T, norm float64) uint32 {
	l := uint32(math.Round(1 / (norm * norm)))
	for _, c := range []uint32{l, l - 1, l + 1} {
		if c > 0 && float64(float32(1/math.Sqrt(float64(c)))) == norm {
			return c
		}
	}
	t.Fatalf("no field length gives norm %v", norm)
	return 0
}

func buildIndex(t *testing.T, dir string, docs []Doc) *Writer {
	t.Helper()
	w := addIndex(t, dir, docs)
	if err := Sync(dir); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestStaticMatchesBleve: the static index's postings, made from the
// stored text, are bleve's own, document for document, position for
// position, and its field lengths are those bleve scores with.
func TestStaticMatchesBleve(t *testing.T) {
	docs := testDocs(t, 3000, 1)
	dir := filepath.Join(t.TempDir(), "idx")
	// bleve's positions are compared: an index that keeps them.
	termVectors = true
	w := buildIndex(t, dir, docs)
	termVectors = false
	files := writeAll(t, w, nil)
	got, gotLens := staticPostings(t, files)
	byID := map[string]meta{}
	for i := range docs {
		byID[docs[i].ID] = newMeta(&docs[i], DocHash(&docs[i]))
	}
	metas := numberedMap(byID)
	want, wantLens := blevePostings(t, dir, metas)
	// The filter terms hold each document under its values.
	filters := map[string][]uint32{}
	for i, m := range metas {
		for _, ft := range filterTerms(m) {
			filters[ft] = append(filters[ft], uint32(i))
		}
	}
	if len(filters) < 10 {
		t.Fatalf("%d filter terms, want many", len(filters))
	}
	for term, ps := range got {
		if !isFilterTerm(term) {
			continue
		}
		var docs []uint32
		for _, p := range ps {
			docs = append(docs, p.doc)
		}
		if !slices.Equal(docs, filters[term]) {
			t.Errorf("filter term %q: documents %v, want %v", term, docs, filters[term])
		}
		delete(filters, term)
		delete(got, term)
	}
	if len(filters) > 0 {
		t.Errorf("%d filter terms missing, e.g. %q", len(filters), slices.Sorted(maps.Keys(filters))[0])
	}
	if len(got) != len(want) {
		t.Errorf("static index holds %d terms, bleve %d", len(got), len(want))
	}
	for term, ps := range want {
		g := got[term]
		if len(g) != len(ps) {
			t.Errorf("term %q: %d postings, bleve %d", term, len(g), len(ps))
			continue
		}
		for i := range ps {
			if g[i].doc != ps[i].doc || g[i].freq != ps[i].freq || !slices.Equal(g[i].pos, ps[i].pos) {
				t.Errorf("term %q posting %d: %+v, bleve %+v", term, i, g[i], ps[i])
				break
			}
		}
	}
	for i := range wantLens {
		// a document with no token has no norm in bleve
		if wantLens[i] != 0 && gotLens[i] != wantLens[i] {
			t.Errorf("document %d: length %d, bleve %d", i, gotLens[i], wantLens[i])
		}
	}
	man := readManifest(t, files)
	if len(man.Layers) < 2 {
		t.Errorf("%d documents in %d layer(s), want several", len(docs), len(man.Layers))
	}
}

// TestStaticAppend: a document added after the others (the newest, as a
// new message is) rewrites the last layer alone, and the site is the one
// a build from nothing makes.
func TestStaticAppend(t *testing.T) {
	docs := testDocs(t, 3000, 2)
	dir := filepath.Join(t.TempDir(), "idx")
	w := buildIndex(t, dir, docs)
	before := writeAll(t, w, nil)
	var rewritten int
	for k := 0; k < 20; k++ {
		newest := Doc{ID: fmt.Sprintf("p1/s3.html#m-new%02d", k), Project: "proj1", Session: "s3", Title: "Session 3",
			Role: "prompt", Time: time.Date(2026, 11, 25, 12, k, 0, 0, time.UTC),
			Text: "Thanks. Now run the tests again and fix whatever still fails in the build package"}
		docs = append(docs, newest)
		w, err := OpenWriter(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if w.Fresh() {
			t.Fatal("index made anew")
		}
		if _, err := w.Add([]Doc{newest}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		after := writeAll(t, w, before)
		for p, data := range after {
			if old, ok := before[p]; !ok || string(old) != string(data) {
				if p != ManifestPath {
					rewritten += len(data)
				}
			}
		}
		before = after
	}
	// Each newest document was appended to the metas file, not written
	// with all the others again.
	if _, mf, err := readMetas(metaPath(dir), len(docs)); err != nil || mf.sections != 21 {
		t.Errorf("metas file: %d sections, %v; want the first and 20 appended", mf.sections, err)
	}
	full := writeAll(t, buildIndex(t, filepath.Join(t.TempDir(), "full"), docs), nil)
	if len(full) != len(before) {
		t.Errorf("appended: %d files, made anew: %d", len(before), len(full))
	}
	for p, data := range full {
		if string(before[p]) != string(data) {
			t.Errorf("%s differs from the index made anew", p)
		}
	}
	var total int
	for p, data := range full {
		if p != ManifestPath {
			total += len(data)
		}
	}
	// 20 appends: each rewrites the last layer, about the newest 16
	// documents (one in 16 merges the layers up to its level).
	if rewritten > total/4 {
		t.Errorf("20 appends rewrote %d bytes of shards, of %d", rewritten, total)
	}
	t.Logf("20 appends rewrote %d bytes of shards, of %d", rewritten, total)
}

// TestMetasRoundTrip: the metas file gives back every meta as it was.
func TestMetasRoundTrip(t *testing.T) {
	docs := testDocs(t, 500, 3)
	docs[1].Time = time.Date(2300, 1, 2, 3, 4, 5, 6, time.UTC) // beyond Unix nanoseconds
	docs[2].Time = time.Date(2026, 1, 2, 3, 4, 5, 999999999, time.FixedZone("x", 3600))
	metas := map[string]meta{}
	for i := range docs {
		metas[docs[i].ID] = newMeta(&docs[i], DocHash(&docs[i]))
	}
	p := filepath.Join(t.TempDir(), "m")
	if err := writeMetas(p, numberedMap(metas)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	format, count, err := readMetasHeader(bufio.NewReader(f))
	f.Close()
	if err != nil || format != metasFormat || count != len(metas) {
		t.Fatalf("header: %d %d %v", format, count, err)
	}
	got, _, err := readMetas(p, count)
	if err != nil {
		t.Fatal(err)
	}
	want := numberedMap(metas)
	if len(got) != len(want) {
		t.Fatalf("read %d metas, want %d", len(got), len(want))
	}
	for i, m := range want {
		g, id := got[i], m.id
		if !g.time.Equal(m.time) || g.time.IsZero() != m.time.IsZero() {
			t.Errorf("%s: time %v, want %v", id, g.time, m.time)
		}
		g.time, m.time = time.Time{}, time.Time{}
		if g != m {
			t.Errorf("%s: %+v, want %+v", id, g, m)
		}
	}
	// a truncated file is an error, not a short list
	data, _ := os.ReadFile(p)
	os.WriteFile(p, data[:len(data)-3], 0o644)
	if _, _, err := readMetas(p, count); err == nil {
		t.Error("truncated metas read without error")
	}
}

// TestTiesByNumber: documents that score the same come from bleve in the
// order the static index numbers them (time, none first, then id), so the
// browser, which breaks ties by number, lists them alike.
func TestTiesByNumber(t *testing.T) {
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var docs []Doc
	for i := 0; i < 60; i++ {
		d := Doc{ID: fmt.Sprintf("p/s%d.html#m-%02d", i%5, (i*37)%60), Project: "p", Session: fmt.Sprint(i % 5),
			Role: "prompt", Text: "same words quokka"}
		switch i % 4 {
		case 0: // none
		case 1:
			d.Time = base // the same time as others
		default:
			d.Time = base.Add(time.Duration(60-i) * time.Minute)
		}
		docs = append(docs, d)
	}
	dir := filepath.Join(t.TempDir(), "idx")
	w := buildIndex(t, dir, docs)
	writeAll(t, w, nil) // the stats beside the index
	byID := map[string]meta{}
	for i := range docs {
		byID[docs[i].ID] = newMeta(&docs[i], DocHash(&docs[i]))
	}
	metas := numberedMap(byID)
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for _, q := range []string{"quokka", "role:prompt"} {
		res, err := idx.Search(context.Background(), Query{Text: q, Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != len(metas) {
			t.Fatalf("%s: %d hits, want %d", q, len(res.Hits), len(metas))
		}
		for i, h := range res.Hits {
			if h.ID != metas[i].id {
				t.Fatalf("%s: hit %d is %s, the static index's document %d is %s", q, i, h.ID, i, metas[i].id)
			}
		}
	}
}

// TestReplacePages: ReplacePages deletes a page's documents that are not
// given again and keeps those given again unchanged; a document another
// call of the same writer added (a page that moved to another session in
// this build) is not taken for a stale one. The same with the
// documents' hashes given (ReplacePagesHashed, as a build calls it).
func TestReplacePages(t *testing.T) {
	for _, hashed := range []bool{false, true} {
		t.Run(fmt.Sprintf("hashed=%v", hashed), func(t *testing.T) { testReplacePages(t, hashed) })
	}
}

func testReplacePages(t *testing.T, hashed bool) {
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	doc := func(id, text string, min int) Doc {
		return Doc{ID: id, Project: "p", Session: "s", Role: "prompt", Time: base.Add(time.Duration(min) * time.Minute), Text: text}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	buildIndex(t, dir, []Doc{doc("p/a.html#m-1", "alpha one", 1), doc("p/a.html#m-2", "alpha two", 2),
		doc("p/b.html#m-1", "beta one", 3), doc("p/c.html#m-1", "gamma one", 4)})
	w, err := OpenWriter(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	replace := func(pages []string, docs []Doc) ([]string, error) {
		if !hashed {
			return w.ReplacePages(pages, docs)
		}
		hashes := make([]uint64, len(docs))
		for i := range docs {
			hashes[i] = DocHash(&docs[i])
		}
		return w.ReplacePagesHashed(pages, docs, hashes)
	}
	// b.html now belongs to another session, sent first.
	if _, err := replace(nil, []Doc{doc("p/b.html#m-1", "beta moved", 5)}); err != nil {
		t.Fatal(err)
	}
	// a.html's session: m-1 unchanged, m-2 gone, m-3 new; its old pages
	// named b.html too.
	added, err := replace([]string{"p/a.html", "p/b.html"}, []Doc{doc("p/a.html#m-1", "alpha one", 1), doc("p/a.html#m-3", "alpha three", 6)})
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 1 || added[0] != "p/a.html#m-3" {
		t.Errorf("added %v, want only the new document", added)
	}
	if err := w.DeletePages([]string{"p/c.html"}); err != nil {
		t.Fatal(err)
	}
	if n, err := w.Close(); err != nil || n != 3 {
		t.Fatalf("%d documents (%v), want 3", n, err)
	}
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var ids []string
	res, err := idx.Search(context.Background(), Query{Text: "role:prompt", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	if want := []string{"p/a.html#m-1", "p/a.html#m-3", "p/b.html#m-1"}; !slices.Equal(ids, want) {
		t.Errorf("the index holds %v, want %v", ids, want)
	}
	if res, _ := idx.Search(context.Background(), Query{Text: "moved", Size: 10}); len(res.Hits) != 1 {
		t.Errorf("the moved page's document is not the new one: %d hits for its text", len(res.Hits))
	}
}

// addIndex makes an index of docs in dir (bleve's is left to Sync).
func addIndex(t *testing.T, dir string, docs []Doc) *Writer {
	t.Helper()
	w, err := OpenWriter(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add(docs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w
}
