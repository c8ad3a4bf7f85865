package search

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"
)

// The static index is the search index turned into files a browser can read
// from file://, where fetch, modules, workers and WebAssembly all fail: a
// classic script per shard that hands its data to the global ccsiteSearch
// (assets/search.js). Its parts, all under StaticDir:
//
//   - index.js, the manifest (the one stable name): document count, the
//     BM25 constants, and the layers (see layerCuts), each with its
//     documents and its layer file.
//   - l-HASH.js, layer files: a layer's entry, the first term of every
//     term shard, its meta and display shards and the tables its display
//     shards index into (projects, kinds = role/tool/model).
//   - t-HASH.js, term shards: consecutive terms of a layer's text field,
//     in bleve's (byte) order, each with its postings (document numbers in
//     the layer, frequencies, the document's field length for BM25 and
//     positions, for phrases); and the filter terms (filterTerms), first.
//   - m-HASH.js, meta shards: per document its day (for date filters),
//     4096 documents each.
//   - d-HASH.js, display shards: per document its page, anchor, title,
//     time, kind, project, session and its display text (DisplayText:
//     what snippets are cut from), some tens of KB each, loaded for the
//     hits shown.
//
// Documents are numbered by time, then id (numbered), the order
// bleve's results break ties in, so the reader (by number) breaks them
// the same way; a new message is numbered last. The postings are made
// from the documents' text, analysed as bleve analyses it (the index's
// analyser), never read back from bleve's dictionary (whose layout
// depends on the builds before). Each name carries a hash of the content, so a shard that did
// not change keeps its URL.
const StaticDir = "search"

// APIPath is the script that tells the search page whether a search API
// answers beside the site: the build writes it saying no; ccsite serve
// answers it saying yes. Asking the API only when it exists keeps a static
// host's 404 out of the console.
const APIPath = StaticDir + "/api.js"

// ManifestPath is the static index's manifest, the one name without a hash.
const ManifestPath = StaticDir + "/index.js"

// APIScript is the content of APIPath for a site served with its API.
func APIScript() string { return apiScript(true) }

func apiScript(served bool) string {
	return fmt.Sprintf("ccsiteSearch.served = %v;\n", served)
}

// Shard sizes: a term shard is cut after about termShardBytes of
// postings, a display shard after displayShardBytes. Display shards were
// 32 KB: at 64 KB the 1 GB tree's site has 2,630 of them, not 5,141, and
// a typed query there (perf.TestSearchCold, 12 queries in a cold
// Chromium) loads about as much as before (median 489 against 471 KB, at
// most 662 against 640: the manifest, which lists every shard, shrank by
// 64 KB), in about the same time (median 156 against 154 ms). Making a
// file costs 0.3-1 ms of system CPU on the virtual machines we measure
// on. At 128 KB, a query loaded a fifth to a third more (559 and 840 KB).
const (
	termShardBytes    = 32 << 10
	displayShardBytes = 64 << 10
	metaShardDocs     = 4096
)

// meta is what the static index keeps of a document besides its postings.
type meta struct {
	id, project, session, title, role, tool, model, agent string
	time                                                  time.Time
	text                                                  int64  // bytes of text
	hash                                                  uint64 // DocHash
}

// newMeta is d's meta; hash is DocHash(d).
func newMeta(d *Doc, hash uint64) meta {
	return meta{id: d.ID, project: d.Project, session: d.Session, title: d.Title, role: d.Role, tool: d.Tool,
		model: d.Model, agent: d.Agent, time: d.Time, text: int64(len(d.Text)), hash: hash}
}

// StaticStats describes a written static index.
type StaticStats struct {
	Docs, Terms, Postings, Positions int
	Files                            int
	Bytes                            int64 // all files
	TextBytes                        int64 // the documents' text
	TermBytes, MetaBytes, DocBytes   int64
	EntryBytes                       int64 // layer files
}

// varint appends n in the shards' number code: five bits a character,
// most significant first; the last character is one of the first 32 of
// the alphabet, the others of the last 32. No character needs escaping in
// a JavaScript string.
const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func varint(b []byte, n uint64) []byte {
	if n < 32 && len(b) < cap(b) {
		// One character (most gaps and position steps): no buffer.
		return append(b, digits[n])
	}
	var tmp [13]byte
	i := len(tmp) - 1
	tmp[i] = digits[n&31]
	n >>= 5
	for n > 0 {
		i--
		tmp[i] = digits[32+n&31]
		n >>= 5
	}
	if cap(b)-len(b) < len(tmp)-i {
		// Doubled: append grows a large slice by a quarter, and a
		// common term's postings were copied and cleared again and
		// again (at 1 GB, 1.4 CPU-s of the static index's 4.7).
		nb := make([]byte, len(b), max(2*cap(b), 64))
		copy(nb, b)
		b = nb
	}
	return append(b, tmp[i:]...)
}

// writeStatic derives the static index from the documents' metas, in
// their numbers (numbered), and their records in the spill, or, for those
// an earlier build added, their texts (texts.go), calling write for each
// file (a path relative to the site root).
func writeStatic(dir string, metas []meta, write func(path string, data []byte) error, read func(string) ([]byte, error),
	kept *keptShards, sp *spill) (StaticStats, int64, error) {
	var st StaticStats
	m, err := Mapping()
	if err != nil {
		return st, 0, err
	}
	an := m.AnalyzerNamed(Analyzer)
	if an == nil {
		return st, 0, fmt.Errorf("search index: no analyzer %q", Analyzer)
	}
	texts, err := openTextReader(dir)
	if err != nil {
		return st, 0, err
	}
	defer texts.close()
	w := &staticWriter{texts: texts, an: an, ours: oursAnalyzer(an), metas: metas, write: write, read: read, kept: kept,
		spill: sp, staging: stagingPath(dir)}
	err = w.run()
	return w.st, w.tokens, err
}

// staticWriter is the state writeStatic's steps share: the texts file
// read, the index's analyzer, the documents (sorted into their numbers), where the
// files go and what has been written.
type staticWriter struct {
	texts *textReader
	an    analysis.Analyzer
	ours  bool // an is Analyzer as Mapping makes it (scratchAnalyzer repeats it)
	metas []meta
	write func(path string, data []byte) error
	kept  *keptShards
	spill *spill // records of the documents added (spill.go), or nil
	// read reads a file of the site (a path as write has it), for the
	// layers a merge is made of; nil: none is read.
	read func(path string) ([]byte, error)
	// merged counts the parts of merges made out of layers and from
	// texts (makeFrom).
	merged struct{ shards, texts int }
	// staging is where earlier builds made pending merges (removed).
	staging string
	st      StaticStats
	tokens  int64  // the documents' field lengths, summed (BM25)
	outBuf  []byte // out's buffer, kept from one shard to the next
}

// Layers. A layer is a run of consecutive documents (in number order)
// whose postings, metas and display texts are shards of their own,
// numbered from the layer's first document: the browser reads every
// layer's postings of a term and adds the layer's first number. A layer's
// files depend on its documents alone, so a layer whose documents are
// those of a layer the site holds is kept as it is (keptShards).
//
// Where layers begin depends on the documents alone too, never on the
// builds before, so an updated index is the one made anew: a document's
// level is the number of zero nibbles that end the hash of its id (level ≥
// L for one document in 16^L); for each level L the last document of
// level ≥ L begins a layer. So the last layer holds about the newest 16
// documents, the one before it the 256 before them, and so on: a new
// message, the newest document, changes the last layer alone (one time in
// sixteen it begins a layer of its own, and the layers after the last
// document of its level become one: a merge, published a part at a time,
// see publish.go). A document added elsewhere (a session copied in, with
// older times) changes its layer alone: the other layers' numbers are
// their own.
const maxLevel = 12

// level is a document's level, from the FNV-1a hash of its id.
func level(id string) int {
	h := fnv.New64a()
	h.Write([]byte(id))
	v, l := h.Sum64(), 0
	for l < maxLevel && v&15 == 0 {
		v >>= 4
		l++
	}
	return l
}

// layerCuts gives the layers' bounds: metas[cuts[i]:cuts[i+1]] is layer i.
// These are the target: schedule gives the layers served, which differ
// while a merge is pending.
func layerCuts(metas []meta) []int {
	var last [maxLevel + 1]int // last document of level ≥ L (0: none)
	for i, m := range metas {
		for l := level(m.id); l >= 1; l-- {
			last[l] = i
		}
	}
	cuts := appendCuts(nil, &last)
	if len(metas) > cuts[len(cuts)-1] {
		cuts = append(cuts, len(metas))
	}
	return cuts
}

// appendCuts appends to dst where layers begin, given the last document
// of each level ≥ L: 0, then for each level from the highest the last
// document of that level or more, where it is past the cut before.
func appendCuts(dst []int, last *[maxLevel + 1]int) []int {
	dst = append(dst, 0)
	for l := maxLevel; l >= 1; l-- {
		if c := last[l]; c > dst[len(dst)-1] {
			dst = append(dst, c)
		}
	}
	return dst
}

// numbered lists the metas in the documents' numbers: by time (those
// without one bleve can index first, so that a new message is always the
// last), then id, the order in which bleve's results break ties
// (Index.Search sorts by score, time and id). Keys made once are sorted
// and each meta copied once: metas are large to swap. The metas are those
// of all the lists, which are not changed; ids are unique.
func numbered(lists ...[]meta) []meta {
	type key struct {
		has  bool
		nano int64
		id   string
		m    *meta
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	keys := make([]key, 0, n)
	for _, l := range lists {
		for i := range l {
			m := &l[i]
			k := key{has: hasTime(m.time), id: m.id, m: m}
			if k.has {
				k.nano = m.time.UnixNano()
			}
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		switch {
		case a.has != b.has:
			if a.has {
				return 1
			}
			return -1
		case a.nano != b.nano:
			return cmp.Compare(a.nano, b.nano)
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]meta, len(keys))
	for i, k := range keys {
		out[i] = *k.m
	}
	return out
}

// hasTime tells whether bleve indexes t (a time it can represent in Unix
// nanoseconds; the zero time it cannot).
func hasTime(t time.Time) bool {
	return !t.Before(document.MinTimeRepresentable) && !t.After(document.MaxTimeRepresentable)
}

// layerEntry is a layer as the manifest lists it.
type layerEntry struct {
	N        int         `json:"n"`        // documents
	Terms    [][2]string `json:"terms"`    // per term shard, its first term and file
	Meta     []string    `json:"meta"`     // meta shards, metaShardDocs documents each
	Projects []string    `json:"projects"` // the tables display shards index into
	Kinds    [][4]string `json:"kinds"`    // role, tool, model, agent
	Day0     int64       `json:"day0"`     // days in meta shards count from it
	Docs     []docRef    `json:"docs"`     // per display shard, its first document and file
}

// docRef is a display shard's first document (in its layer) and file,
// written [first, "file"].
type docRef struct {
	First int
	File  string
}

func (d docRef) MarshalJSON() ([]byte, error) { return json.Marshal([]any{d.First, d.File}) }

func (d *docRef) UnmarshalJSON(b []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if len(a) != 2 {
		return fmt.Errorf("display shard reference: %s", b)
	}
	if err := json.Unmarshal(a[0], &d.First); err != nil {
		return err
	}
	return json.Unmarshal(a[1], &d.File)
}

// keptLayer is a layer written: its entry, its files (site paths), their
// stats and its documents' field lengths summed.
type keptLayer struct {
	Entry  layerEntry  `json:"entry"`
	Files  []string    `json:"files"`
	Stats  StaticStats `json:"stats"`
	Tokens int64       `json:"tokens"`
	// EntryFile is the layer file (l-HASH.js) holding Entry, which the
	// manifest names (empty in layers of builds before: written when
	// one is kept, see entryFile).
	EntryFile string `json:"entryFile,omitempty"`
}

// manifestLayer is a layer as the manifest lists it: its documents and
// its layer file. The layer files hold the rest of the entries, so the
// manifest, rewritten by every update, stays a few hundred bytes however
// large the index (listing every shard, it was 0.11 MB at 1 GB).
type manifestLayer struct {
	N    int    `json:"n"`
	File string `json:"file"`
}

// entryFile writes kl's layer file when it has none (a layer kept from a
// build before layer files), counting it in its stats.
func (w *staticWriter) entryFile(kl *keptLayer) error {
	if kl.EntryFile != "" {
		return nil
	}
	name, path, size, err := w.out("l", func(b []byte) []byte { return appendEntry(b, &kl.Entry) })
	if err != nil {
		return err
	}
	kl.EntryFile = name
	kl.Files = append(kl.Files, path)
	kl.Stats.Files++
	kl.Stats.Bytes += size
	kl.Stats.EntryBytes += size
	return nil
}

// appendEntry appends a layer file's data: the layer's entry.
func appendEntry(b []byte, e *layerEntry) []byte {
	data, _ := json.Marshal(e) // nothing in it fails to marshal
	return append(b, data...)
}

// run writes the layers, then the manifest and search/api.js.
func (w *staticWriter) run() error {
	var err error
	cuts, pending := schedule(w.metas)
	var layers []manifestLayer
	for i := 0; i+1 < len(cuts); i++ {
		docs := w.metas[cuts[i]:cuts[i+1]]
		key := shardKey(docs)
		kl, ok := w.kept.reuse(key)
		if !ok {
			if st := w.kept.resume(key); st.Sources != nil {
				// A merge published whole by this update: the rest of
				// it made out of the layers the last index served.
				err = w.makeFrom(docs, &st, -1, w.kept.prev)
				kl = st.Layer
			} else {
				kl, err = w.layer(docs)
			}
			if err != nil {
				return err
			}
		}
		if err := w.entryFile(&kl); err != nil {
			return err
		}
		w.kept.add(key, kl)
		layers = append(layers, manifestLayer{kl.Entry.N, kl.EntryFile})
		w.tokens += kl.Tokens
		s := kl.Stats
		w.st.Terms += s.Terms
		w.st.Postings += s.Postings
		w.st.Positions += s.Positions
		w.st.Files += s.Files
		w.st.Bytes += s.Bytes
		w.st.TermBytes += s.TermBytes
		w.st.MetaBytes += s.MetaBytes
		w.st.DocBytes += s.DocBytes
		w.st.EntryBytes += s.EntryBytes
	}
	for _, p := range pending {
		if err := w.pend(p, cuts); err != nil {
			return err
		}
	}
	os.RemoveAll(w.staging)
	return w.manifest(layers)
}

// AvgDL is the average field length BM25 scores with, here and in the
// browser: the documents' lengths summed over their count, rounded up as
// bleve rounds its own.
func AvgDL(tokens int64, docs int) float64 {
	if docs == 0 {
		return 0
	}
	return math.Ceil(float64(tokens) / float64(docs))
}

// analysed is a document read and analysed: its display text, its field
// length and its terms with their positions.
type analysed struct {
	display string
	length  int
	terms   []termPos
	err     error
}

type termPos struct {
	term []byte
	pos  []uint32
}

// analyse reads documents' spill records or texts and analyses them as
// bleve does, one worker per core, calling fn with each in order.
func (w *staticWriter) analyse(docs []meta, fn func(i int, a *analysed) error) error {
	const batch = 64
	type job struct {
		lo, hi int
		out    chan []analysed
	}
	// Where the texts are of the documents with no spill record (those
	// of earlier builds), read from the texts index for them alone.
	var need []string
	for i := range docs {
		if !w.spill.has(&docs[i]) {
			need = append(need, docs[i].id)
		}
	}
	if len(need) > 0 {
		if err := w.texts.want(need); err != nil {
			return err
		}
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job)
	queue := make(chan job, 2*workers)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(queue)
		defer close(jobs)
		for lo := 0; lo < len(docs); lo += batch {
			j := job{lo, min(len(docs), lo+batch), make(chan []analysed, 1)}
			select {
			case queue <- j:
			case <-stop:
				return
			}
			select {
			case jobs <- j:
			case <-stop:
				return
			}
		}
	}()
	for k := 0; k < workers; k++ {
		go func() {
			slot := map[string]int{}
			memo := map[int64]analysed{}
			var sc scratchAnalyzer
			// Each worker reads texts in a read transaction of its own.
			err := w.texts.view(func(get func(*meta) (string, error)) error {
				for j := range jobs {
					out := make([]analysed, j.hi-j.lo)
					for i := range out {
						out[i] = w.analyseDoc(docs[j.lo+i], slot, memo, &sc, get)
						if len(out[i].terms) > slotKept {
							slot = map[string]int{} // see scratch.count
						}
					}
					j.out <- out
				}
				return nil
			})
			if err != nil { // no transaction: each document fails
				for j := range jobs {
					out := make([]analysed, j.hi-j.lo)
					for i := range out {
						out[i].err = err
					}
					j.out <- out
				}
			}
		}()
	}
	for j := range queue {
		out := <-j.out
		for i := range out {
			if out[i].err != nil {
				return fmt.Errorf("search index: %s: %w", docs[j.lo+i].id, out[i].err)
			}
			if err := fn(j.lo+i, &out[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// analyseDoc reads one document's spill record, or its text (get) and
// analyses it: the tokens bleve indexes, grouped by term (slot and sc are scratch). The index's
// analyser is Analyzer, which sc repeats without allocating per document
// (TestScratchAnalyzer); an index of another analyser is analysed by it.
func (w *staticWriter) analyseDoc(m meta, slot map[string]int, memo map[int64]analysed, sc *scratchAnalyzer, get func(*meta) (string, error)) analysed {
	if a, ok := w.spill.get(&m, memo); ok {
		return a
	}
	text, err := get(&m)
	if err != nil {
		return analysed{err: err}
	}
	a := analysed{display: DisplayText(m.role, m.tool, text)}
	var toks analysis.TokenStream
	if w.ours {
		toks = sc.analyze(text)
	} else {
		toks = w.an.Analyze([]byte(text))
	}
	a.length = len(toks)
	pos := make([]uint32, len(toks))
	counts := make([]int, 0, 64)
	// Two passes: count each term's tokens, then lay out their positions
	// in one array.
	for _, t := range toks {
		k := unsafe.String(unsafe.SliceData(t.Term), len(t.Term))
		s, ok := slot[k]
		if !ok {
			s = len(a.terms)
			slot[k] = s
			a.terms = append(a.terms, termPos{term: t.Term})
			counts = append(counts, 0)
		}
		counts[s]++
	}
	at := 0
	for s := range a.terms {
		a.terms[s].pos = pos[at : at : at+counts[s]]
		at += counts[s]
	}
	for _, t := range toks {
		s := slot[unsafe.String(unsafe.SliceData(t.Term), len(t.Term))]
		a.terms[s].pos = append(a.terms[s].pos, uint32(t.Position))
	}
	clear(slot)
	if w.ours {
		// The terms outlive sc's memory: copied, in one allocation.
		n := 0
		for _, t := range a.terms {
			n += len(t.term)
		}
		buf := make([]byte, 0, n)
		for i, t := range a.terms {
			at := len(buf)
			buf = append(buf, t.term...)
			a.terms[i].term = buf[at:len(buf):len(buf)]
		}
	}
	return a
}

// termAcc is a term's postings in a layer, encoded as they come.
type termAcc struct {
	enc  []byte
	last int // the last document, -1 before the first
	df   int
}

// resolvedTerms keeps the accumulators of the last few analyses' terms.
// Documents of one text share their analysis (the spill's records, read
// once per worker for neighbours in number order: a session resumed or
// copied repeats its messages), so their terms are looked up once, not
// once per document: on the 1 GB tree the map lookups were 1.5 CPU-s of
// the static index's 6. An analysis is the same when its terms are the
// same slice (the memo's), which is only ever read; the ring holds it, so
// its memory is not another's while it is there.
type resolvedTerms struct {
	at   int
	ring [8]struct {
		terms []termPos
		accs  []*termAcc
	}
}

// resolve returns the accumulator of each of terms, made in acc when new.
// What it returns is good until eight more calls.
func (r *resolvedTerms) resolve(terms []termPos, acc map[string]*termAcc) []*termAcc {
	if len(terms) == 0 {
		return nil
	}
	for k := range r.ring {
		e := &r.ring[k]
		if len(e.terms) == len(terms) && &e.terms[0] == &terms[0] {
			return e.accs
		}
	}
	e := &r.ring[r.at]
	r.at = (r.at + 1) % len(r.ring)
	e.terms, e.accs = terms, e.accs[:0]
	for _, tp := range terms {
		t := acc[string(tp.term)]
		if t == nil {
			t = &termAcc{last: -1}
			acc[string(tp.term)] = t
		}
		e.accs = append(e.accs, t)
	}
	return e.accs
}

// layer writes one layer's shards, made from its documents' texts.
func (w *staticWriter) layer(docs []meta) (keptLayer, error) {
	var st mergeState
	err := w.makeLayer(docs, &analysedSource{w: w, docs: docs}, &st, -1)
	return st.Layer, err
}

// A shard file is its body handed to the page's reader: shardHead(name),
// the body, shardTail; its name is a prefix and a hash of the body
// (shardName). out writes one; shardSource.shardBody reads one back.
const shardTail = ");\n"

func shardHead(name string) string { return "ccsiteSearch.put(" + jsString(name) + "," }

func shardName(prefix string, body []byte) string {
	sum := sha256.Sum256(body)
	return prefix + "-" + hex.EncodeToString(sum[:6])
}

// out writes a shard: the body that body appends, handed to
// ccsiteSearch.put under a name made of prefix and a hash of the body. The
// body is appended after room for the call's head, which is filled in once
// the body's hash names it: the file is written from the buffer the body
// was made in, not from a copy in a new buffer (the 1 GB tree's layers
// took 3.28 CPU-s with the copies, 3.16 without). It returns the name, the
// site path and the file's size.
func (w *staticWriter) out(prefix string, body func([]byte) []byte) (name, path string, size int64, err error) {
	// The head's length does not depend on the hash: a name is letters,
	// a dash and hex digits, which a JavaScript string holds as they are.
	headLen := len(shardHead(prefix + "-000000000000"))
	buf := body(append(w.outBuf[:0], make([]byte, headLen)...))
	defer func() {
		// Kept for the next shard unless a rare giant: the 1 GB tree's
		// shards, each in a buffer of its own, were a quarter of what the
		// static index allocated, and so of its collections.
		if cap(buf) <= outKept {
			w.outBuf = buf[:0]
		}
	}()
	name = shardName(prefix, buf[headLen:])
	head := shardHead(name)
	if len(head) != headLen {
		return "", "", 0, fmt.Errorf("search shard %s: a head of %d bytes, not %d", name, len(head), headLen)
	}
	copy(buf, head)
	buf = append(buf, shardTail...)
	path = StaticDir + "/" + name + ".js"
	if err := w.write(path, buf); err != nil {
		return "", "", 0, err
	}
	return name, path, int64(len(buf)), nil
}

// outKept is the largest shard buffer out keeps for the next shard.
const outKept = 8 << 20

// appendTermShard appends a term shard's data to body: its terms, then
// their encoded postings; size is about their bytes.
func appendTermShard(body []byte, terms []string, posts [][]byte, size int) []byte {
	body = slices.Grow(body, size+len(terms)*8+8)
	body = append(body, '[')
	for i, t := range terms {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, jsString(t)...)
	}
	body = append(body, "],["...)
	for i, p := range posts {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, '"')
		body = append(body, p...)
		body = append(body, '"')
	}
	body = append(body, ']')
	return body
}

// Filter terms: a document's session, role, tool, model and project as
// terms of the static index, each a space (which no token holds), a
// letter and a colon before the value, so that a filter reads the
// postings of its value, not the meta of every candidate. They sort before
// every word.
const (
	filterSession = " s:"
	filterRole    = " r:"
	filterTool    = " t:"
	filterModel   = " m:"
	filterProject = " p:"
	filterAgent   = " a:"
)

// filterTerms are a document's filter terms (none for an empty value).
func filterTerms(m meta) []string {
	out := make([]string, 0, 6)
	for _, f := range [...][2]string{{filterSession, m.session}, {filterRole, m.role}, {filterTool, m.tool},
		{filterModel, m.model}, {filterProject, m.project}, {filterAgent, m.agent}} {
		if f[1] != "" {
			out = append(out, f[0]+f[1])
		}
	}
	return out
}

func isFilterTerm(t string) bool { return strings.HasPrefix(t, " ") }

// tables fills e's projects, kinds and first day from docs.
func (w *staticWriter) tables(e *layerEntry, docs []meta) {
	e.Projects = table(docs, func(m meta) string { return m.project })
	kinds := table(docs, func(m meta) string {
		return m.role + "\x00" + m.tool + "\x00" + m.model + "\x00" + m.agent
	})
	for _, k := range kinds {
		var rtm [4]string
		copy(rtm[:], strings.SplitN(k, "\x00", 4))
		e.Kinds = append(e.Kinds, rtm)
	}
	for i, m := range docs {
		if d := day(m.time); i == 0 || d < e.Day0 {
			e.Day0 = d
		}
	}
}

// metaShards writes a layer's meta shards, metaShardDocs documents each:
// per document its day, counted from the layer's first. Only date filters
// read them: a query scores with the lengths in the postings, filters
// other fields with the filter terms and shows its results from the
// display shards.
func (w *staticWriter) metaShards(docs []meta, kl *keptLayer,
	out func(prefix string, body func([]byte) []byte, kind *int64) (string, error)) error {
	e := &kl.Entry
	for start := 0; start < len(docs); start += metaShardDocs {
		var enc []byte
		for i := start; i < min(len(docs), start+metaShardDocs); i++ {
			enc = varint(enc, uint64(day(docs[i].time)-e.Day0))
		}
		name, err := out("m", func(b []byte) []byte { return appendJSString(b, string(enc)) }, &kl.Stats.MetaBytes)
		if err != nil {
			return err
		}
		e.Meta = append(e.Meta, name)
	}
	return nil
}

// displayRow is a document of a display shard, its display text and its
// indexes into its layer's kinds and projects.
type displayRow struct {
	m             meta
	text          string
	raw           []byte // the text encoded (appendJSString), when read back from a shard
	kind, project int
}

// appendDisplayBody appends a display shard's data to body: its pages,
// titles and sessions listed once, then per document its page, anchor,
// title, time, display text, kind, project and session, everything a
// result shows. The lists are made first, so that the rows are written
// once, in place.
func appendDisplayBody(body []byte, docs []displayRow) []byte {
	var pages, titles, sessions []string
	pageIdx, titleIdx, sessionIdx := map[string]int{}, map[string]int{}, map[string]int{}
	index := func(list *[]string, at map[string]int, v string) int {
		i, ok := at[v]
		if !ok {
			i = len(*list)
			at[v] = i
			*list = append(*list, v)
		}
		return i
	}
	// Written by hand as json.Marshal([]any{pages, titles, rows,
	// sessions}) wrote it (TestDisplayBodyAsJSON): reflection over a row
	// of any for each document, and encoding/json's string escaping
	// through it, were a tenth of a cold 1 GB build's search.
	size := 64
	at := make([][3]int, len(docs)) // page, title, session
	for i, d := range docs {
		size += len(d.text) + len(d.raw) + len(d.m.id) + len(d.m.title) + len(d.m.session) + 64
		page, _, _ := strings.Cut(d.m.id, "#")
		at[i] = [3]int{index(&pages, pageIdx, page), index(&titles, titleIdx, d.m.title), index(&sessions, sessionIdx, d.m.session)}
	}
	body = slices.Grow(body, size+size/4)
	body = appendJSStrings(append(body, '['), pages)
	body = appendJSStrings(append(body, ','), titles)
	body = append(body, ',', '[')
	for i, d := range docs {
		m := d.m
		_, anchor, _ := strings.Cut(m.id, "#")
		var t int64
		if !m.time.IsZero() {
			t = m.time.Unix()
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, '[')
		body = strconv.AppendInt(body, int64(at[i][0]), 10)
		body = appendJSString(append(body, ','), anchor)
		body = strconv.AppendInt(append(body, ','), int64(at[i][1]), 10)
		body = strconv.AppendInt(append(body, ','), t, 10)
		if d.raw != nil {
			body = append(append(body, ','), d.raw...)
		} else {
			body = appendJSString(append(body, ','), d.text)
		}
		body = strconv.AppendInt(append(body, ','), int64(d.kind), 10)
		body = strconv.AppendInt(append(body, ','), int64(d.project), 10)
		body = strconv.AppendInt(append(body, ','), int64(at[i][2]), 10)
		body = append(body, ']')
	}
	body = append(body, ']')
	body = appendJSStrings(append(body, ','), sessions)
	return append(body, ']')
}

// appendJSStrings appends list as encoding/json writes a []string (nil as
// null).
func appendJSStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSString(b, s)
	}
	return append(b, ']')
}

// jsPlain tells the bytes appendJSString copies as they are: printable
// ASCII but for " \\ < > &. One lookup a byte, not six comparisons.
var jsPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSString appends s as encoding/json writes a string: quoted, \
// and " escaped, \b \f \n \r \t, other control bytes and <, >, & as
// \u00XX (safe inside a script), invalid UTF-8 as \ufffd, U+2028 and
// U+2029 as \u2028 and \u2029 (line ends to JavaScript).
func appendJSString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// shardKey names a run of documents by their ids and contents.
func shardKey(metas []meta) string {
	h := sha256.New()
	var b [8]byte
	for _, m := range metas {
		binary.LittleEndian.PutUint64(b[:], m.hash)
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// keptShards are the layers by the key of their documents (shardKey):
// those of the last static index (prev) and of this one (next). A layer of
// prev is reused when the site still holds every file of it (keep says
// so, and keeps it).
type keptShards struct {
	prev, next map[string]keptLayer
	keep       func(path string) bool
	// pend* are the pending merges' layers as far as they are made
	// (publish.go): the last index's and this one's.
	pendPrev, pendNext map[string]mergeState
}

func (k *keptShards) reuse(key string) (keptLayer, bool) {
	if k == nil || k.keep == nil {
		return keptLayer{}, false
	}
	l, ok := k.prev[key]
	if !ok || len(l.Files) == 0 {
		return keptLayer{}, false
	}
	for _, f := range l.Files {
		if !k.keep(f) {
			return keptLayer{}, false
		}
	}
	return l, true
}

func (k *keptShards) add(key string, l keptLayer) {
	if k != nil {
		k.next[key] = l
	}
}

// manifest writes the manifest (index.js) and search/api.js.
func (w *staticWriter) manifest(layers []manifestLayer) error {
	if layers == nil {
		layers = []manifestLayer{}
	}
	man := struct {
		V        int             `json:"v"`
		N        int             `json:"n"`
		AvgDL    float64         `json:"avgdl"`
		K1       float64         `json:"k1"`
		B        float64         `json:"b"`
		MetaDocs int             `json:"metaDocs"`
		Layers   []manifestLayer `json:"layers"`
	}{4, len(w.metas), AvgDL(w.tokens, len(w.metas)), 1.2, 0.75, metaShardDocs, layers}
	body, err := json.Marshal(man)
	if err != nil {
		return err
	}
	manifest := append([]byte("ccsiteSearch.manifest("), body...)
	manifest = append(manifest, ");\n"...)
	if err := w.write(ManifestPath, manifest); err != nil {
		return err
	}
	w.st.Files++
	w.st.Bytes += int64(len(manifest))
	// search/api.js: no search API here (see APIScript).
	if err := w.write(APIPath, []byte(apiScript(false))); err != nil {
		return err
	}
	w.st.Docs = len(w.metas)
	return nil
}

// storedText is the text field a document stored.
func storedText(r index.IndexReader, id string) (string, error) {
	doc, err := r.Document(id)
	if err != nil {
		return "", err
	}
	text, found := "", false
	if doc != nil {
		doc.VisitFields(func(f index.Field) {
			if f.Name() == "text" {
				text, found = string(f.Value()), true
			}
		})
	}
	if !found {
		return "", fmt.Errorf("no stored text")
	}
	return text, nil
}

// day is t's day number (UTC) since 1970, as the date filters compare.
func day(t time.Time) int64 {
	return int64(math.Floor(float64(t.Unix()) / 86400))
}

// table lists the distinct values of f over metas, sorted.
func table(metas []meta, f func(meta) string) []string {
	set := map[string]bool{}
	for _, m := range metas {
		set[f(m)] = true
	}
	vals := make([]string, 0, len(set))
	for v := range set {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	return vals
}

// jsString is s as a JSON string, safe inside a script: encoding/json
// escapes <, >, &, U+2028 and U+2029.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
