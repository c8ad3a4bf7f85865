package search

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// memSite is a site's files in memory, for a staticWriter.
type memSite map[string][]byte

func (m memSite) write(p string, data []byte) error { m[p] = slices.Clone(data); return nil }
func (m memSite) read(p string) ([]byte, error) {
	data, ok := m[p]
	if !ok {
		return nil, os.ErrNotExist
	}
	return data, nil
}

// layerWriter is a staticWriter over the index in dir, writing to site.
func layerWriter(t *testing.T, dir string, w *Writer, site memSite) *staticWriter {
	t.Helper()
	if err := w.loadMetas(); err != nil {
		t.Fatal(err)
	}
	m, err := Mapping()
	if err != nil {
		t.Fatal(err)
	}
	an := m.AnalyzerNamed(Analyzer)
	texts, err := openTextReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { texts.close() })
	return &staticWriter{texts: texts, an: an, ours: oursAnalyzer(an), metas: w.metas.numbered(), write: site.write,
		read: site.read}
}

// TestMergeLayers: a layer made out of the layers it replaces, whole or a
// part at a time (resumed from its state as JSON, with the places the
// parts end at chosen at random), is the layer made from the documents'
// texts, file for file and entry for entry; a source whose shard is not
// as written makes the same layer from the texts.
func TestMergeLayers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	docs := testDocs(t, 900, 11)
	// Terms only a later layer holds, and ones every layer holds.
	docs[850].Text += " zzzonlylate"
	docs[3].Text += " everywhere"
	docs[400].Text += " everywhere"
	docs[899].Text += " everywhere"
	iw := addIndex(t, dir, docs)
	site := memSite{}
	w := layerWriter(t, dir, iw, site)
	metas := w.metas
	want, err := w.layer(metas)
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := map[string][]byte{}
	for _, f := range want.Files {
		wantFiles[f] = site[f]
	}
	r := rand.New(rand.NewPCG(3, 5))
	midDocs, midTerms := 0, 0
	for round := range 6 {
		// Sources: the documents cut at random into 1 to 5 layers.
		cuts := []int{0}
		for k := r.IntN(5); k > 0; k-- {
			cuts = append(cuts, 1+r.IntN(len(metas)-1))
		}
		cuts = append(cuts, len(metas))
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		site := memSite{}
		w.write, w.read = site.write, site.read
		layers := map[string]keptLayer{}
		var st mergeState
		for i := 0; i+1 < len(cuts); i++ {
			part := metas[cuts[i]:cuts[i+1]]
			kl, err := w.layer(part)
			if err != nil {
				t.Fatal(err)
			}
			key := shardKey(part)
			layers[key] = kl
			st.Sources = append(st.Sources, mergeSource{cuts[i], cuts[i+1], key})
		}
		var total int64
		for i := range metas {
			total += docUnits(&metas[i])
		}
		broken := round == 5
		if broken {
			// A source's display shard changed in the site.
			kl := layers[st.Sources[len(st.Sources)-1].Key]
			p := StaticDir + "/" + kl.Entry.Docs[0].File + ".js"
			site[p] = []byte(strings.Replace(string(site[p]), `"`, `'`, 1))
		}
		before := maps.Clone(site)
		w.merged.shards, w.merged.texts = 0, 0
		// A part at a time, to places at random, then whole.
		steps := 0
		for upto := int64(0); upto >= 0; steps++ {
			upto += r.Int64N(total / 3)
			if upto >= 2*total {
				upto = -1
			}
			if err := w.makeFrom(metas, &st, upto, layers); err != nil {
				t.Fatal(err)
			}
			// As the next build reads it.
			data, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			st = mergeState{}
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatal(err)
			}
			if st.NextDoc > 0 && st.NextDoc < len(metas) {
				midDocs++
			}
			if st.NextDoc == len(metas) && !st.TermsDone && len(st.Layer.Entry.Terms) > 0 {
				midTerms++
			}
		}
		if !reflect.DeepEqual(st.Layer, want) {
			t.Fatalf("round %d (sources %v, %d steps): the layer merged is not the one made from texts:\n%+v\n%+v",
				round, cuts, steps, st.Layer.Stats, want.Stats)
		}
		for _, f := range want.Files {
			if string(site[f]) != string(wantFiles[f]) {
				t.Fatalf("round %d: %s differs", round, f)
			}
		}
		if broken && w.merged.texts == 0 || !broken && (w.merged.texts > 0 || len(cuts) > 2 && w.merged.shards != steps) {
			t.Errorf("round %d: %d parts made out of layers, %d from texts, of %d", round, w.merged.shards, w.merged.texts, steps)
		}
		made := 0
		for p := range site {
			if _, ok := before[p]; !ok {
				made++
			}
		}
		t.Logf("round %d: %d sources, %d steps, %d files made", round, len(cuts)-1, steps, made)
	}
	if midDocs < 3 || midTerms < 3 {
		t.Errorf("%d parts ended among the display shards and %d among the term shards, want several of each", midDocs, midTerms)
	}
}

// TestPostingsAppend: a layer's postings numbered on after another's.
func TestPostingsAppend(t *testing.T) {
	a := varint(nil, 3<<1) // doc 3, one position
	a = varint(a, 7)       // length
	a = varint(a, 2)       // position
	a = varint(a, 1<<1|1)  // doc 5, three positions
	a = varint(a, 1)
	a = varint(a, 40)
	for _, p := range []uint64{1, 2, 300} {
		a = varint(a, p)
	}
	b := varint(nil, 0<<1) // its doc 0
	b = varint(b, 1)
	b = varint(b, 0)
	enc, last, err := appendPostings(nil, a, 10, -1, true)
	if err != nil || last != 15 {
		t.Fatalf("last %d (%v), want 15", last, err)
	}
	enc, _, err = appendPostings(enc, b, 20, last, false)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeStatic(string(enc), 0)
	var docs []uint32
	for _, p := range got {
		docs = append(docs, p.doc)
	}
	if fmt.Sprint(docs) != "[13 15 20]" {
		t.Errorf("documents %v, want [13 15 20]", docs)
	}
	if _, _, err := appendPostings(nil, []byte("A!"), 0, -1, true); err == nil {
		t.Error("postings with a character outside the code read")
	}
}
