package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// The static index is the bleve index turned into files a browser can read
// from file://, where fetch, modules, workers and WebAssembly all fail: a
// classic script per shard that hands its data to the global ccsiteSearch
// (assets/search.js). Its parts, all under StaticDir:
//
//   - index.js, the manifest (the one stable name): document count, the
//     BM25 constants bleve scores with, the first term of every term shard,
//     the document shards, and the tables that meta shards index into
//     (projects, kinds = role/tool/model).
//   - t-HASH.js, term shards: consecutive terms of the text field, in
//     bleve's (byte) order, each with its postings (document numbers,
//     frequencies and positions, for phrases).
//   - m-HASH.js, meta shards: per document its field length (for BM25),
//     kind, project, day and session (for filters), 4096 documents each,
//     with the table of their sessions.
//   - d-HASH.js, display shards: per document its page, anchor, title,
//     time and its display text (DisplayText: what snippets are cut
//     from), some tens of KB each, loaded for the hits shown.
//
// Documents are numbered in the order of their ids, so bleve's tie-break
// (by id) is the reader's (by number), and numbers never depend on how
// bleve laid out its segments. Each name carries a hash of the content, so
// a shard that did not change keeps its URL.
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
// postings, a display shard after displayShardBytes.
const (
	termShardBytes    = 32 << 10
	displayShardBytes = 32 << 10
	metaShardDocs     = 4096
)

// meta is what the static index keeps of a document besides its postings.
type meta struct {
	id, project, session, title, role, tool, model string
	time                                           time.Time
	text                                           int64  // bytes of text
	hash                                           uint64 // docHash
}

func newMeta(d *Doc) meta {
	return meta{id: d.ID, project: d.Project, session: d.Session, title: d.Title, role: d.Role, tool: d.Tool,
		model: d.Model, time: d.Time, text: int64(len(d.Text)), hash: docHash(d)}
}

// StaticStats describes a written static index.
type StaticStats struct {
	Docs, Terms, Postings, Positions int
	Files                            int
	Bytes                            int64 // all files
	TextBytes                        int64 // the documents' text
	TermBytes, MetaBytes, DocBytes   int64
}

// varint appends n in the shards' number code: five bits a character,
// most significant first; the last character is one of the first 32 of
// the alphabet, the others of the last 32. No character needs escaping in
// a JavaScript string.
const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func varint(b []byte, n uint64) []byte {
	var tmp [13]byte
	i := len(tmp) - 1
	tmp[i] = digits[n&31]
	n >>= 5
	for n > 0 {
		i--
		tmp[i] = digits[32+n&31]
		n >>= 5
	}
	return append(b, tmp[i:]...)
}

// posting is one document's entry in a term's postings.
type posting struct {
	doc, freq uint32
	pos       []uint32
}

// writeStatic derives the static index from the (merged) bleve index at
// dir and the documents' metas, calling write for each file (a path
// relative to the site root).
func writeStatic(dir string, metas []meta, write func(path string, data []byte) error, kept *keptShards) (StaticStats, error) {
	var st StaticStats
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return st, fmt.Errorf("open search index: %w", err)
	}
	defer idx.Close()
	adv, err := idx.Advanced()
	if err != nil {
		return st, err
	}
	r, err := adv.Reader()
	if err != nil {
		return st, err
	}
	defer r.Close()
	w := &staticWriter{r: r, metas: metas, write: write, kept: kept}
	err = w.run()
	return w.st, err
}

// staticWriter is the state writeStatic's steps share: the bleve index
// read, the documents (sorted by id, so numbered), where the files go and
// what has been written.
type staticWriter struct {
	r     index.IndexReader
	metas []meta
	write func(path string, data []byte) error
	kept  *keptShards
	st    StaticStats
	// byInternal maps bleve's internal ids to document numbers.
	byInternal docNumbers
	// lens holds each document's field length, for BM25.
	lens []uint32
}

// termShard is a term shard's first term and file name.
type termShard struct {
	first, file string
}

// docShard is a display shard's first document and file name.
type docShard struct {
	first int
	file  string
}

// metaTables are the meta shards and the tables they index into.
type metaTables struct {
	projects, kinds []string
	day0            int64
	files           []string
}

// run writes the shards, then the manifest and search/api.js.
func (w *staticWriter) run() error {
	n, err := w.r.DocCount()
	if err != nil {
		return err
	}
	if int(n) != len(w.metas) {
		return fmt.Errorf("search index holds %d documents, the build gave %d", n, len(w.metas))
	}
	// bleve's BM25 average field length: the term dictionary's size over
	// the document count, rounded up (search/searcher/search_term.go).
	var card int
	if br, ok := w.r.(index.BM25Reader); ok {
		if card, err = br.FieldCardinality("text"); err != nil {
			return err
		}
	}
	avgdl := 0.0
	if n > 0 {
		avgdl = math.Ceil(float64(card) / float64(n))
	}
	if err := w.numberDocs(); err != nil {
		return err
	}
	shards, err := w.termShards()
	if err != nil {
		return err
	}
	tables, err := w.metaShards()
	if err != nil {
		return err
	}
	docShards, err := w.docShards()
	if err != nil {
		return err
	}
	return w.manifest(avgdl, shards, tables, docShards)
}

// numberDocs numbers the documents by id and maps bleve's internal ids to
// those numbers.
func (w *staticWriter) numberDocs() error {
	metas := w.metas
	slices.SortFunc(metas, func(a, b meta) int { return strings.Compare(a.id, b.id) })
	num := make(map[string]uint32, len(metas))
	for i, m := range metas {
		num[m.id] = uint32(i)
	}
	// bleve's internal ids are document numbers: a slice maps them (the
	// numbers of deleted documents stay unset).
	w.byInternal = make(docNumbers, 0, len(metas))
	all, err := w.r.DocIDReaderAll()
	if err != nil {
		return err
	}
	defer all.Close()
	for {
		iid, err := all.Next()
		if err != nil {
			return err
		}
		if iid == nil {
			return nil
		}
		ext, err := w.r.ExternalID(iid)
		if err != nil {
			return err
		}
		d, ok := num[ext]
		if !ok {
			return fmt.Errorf("search index: document %q was not built", ext)
		}
		w.byInternal.set(internalKey(iid), d)
	}
}

// out writes a shard: body handed to ccsiteSearch.put under a name made of
// prefix and a hash of body. It counts the file's bytes in kind too, and
// returns the name.
func (w *staticWriter) out(prefix string, body []byte, kind *int64) (string, error) {
	sum := sha256.Sum256(body)
	name := prefix + "-" + hex.EncodeToString(sum[:6])
	var buf bytes.Buffer
	buf.WriteString("ccsiteSearch.put(")
	buf.WriteString(jsString(name))
	buf.WriteString(",")
	buf.Write(body)
	buf.WriteString(");\n")
	if err := w.write(StaticDir+"/"+name+".js", buf.Bytes()); err != nil {
		return "", err
	}
	w.st.Files++
	w.st.Bytes += int64(buf.Len())
	*kind += int64(buf.Len())
	return name, nil
}

// termShards writes the term shards, straight from the dictionary and
// postings, and fills lens.
func (w *staticWriter) termShards() ([]termShard, error) {
	w.lens = make([]uint32, len(w.metas))
	// The terms, in order; their postings are read and encoded by one
	// worker per core (each on its own run of terms), then the shards are
	// cut in order.
	termList, err := w.terms()
	if err != nil {
		return nil, err
	}
	encs, err := w.encodeAll(termList)
	if err != nil {
		return nil, err
	}
	var shards []termShard
	var terms []string
	var posts [][]byte
	size := 0
	flush := func() error {
		if len(terms) == 0 {
			return nil
		}
		name, err := w.out("t", termShardBody(terms, posts, size), &w.st.TermBytes)
		if err != nil {
			return err
		}
		shards = append(shards, termShard{terms[0], name})
		terms, posts, size = terms[:0], nil, 0
		return nil
	}
	for i, t := range termList {
		enc := encs[i]
		if enc == nil {
			continue
		}
		w.st.Terms++
		terms = append(terms, t)
		posts = append(posts, enc)
		size += len(enc) + len(t) + 4
		if size >= termShardBytes {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	encs = nil
	if err := flush(); err != nil {
		return nil, err
	}
	return shards, nil
}

// terms lists the terms of the text field, in the dictionary's order.
func (w *staticWriter) terms() ([]string, error) {
	dict, err := w.r.FieldDict("text")
	if err != nil {
		return nil, err
	}
	defer dict.Close()
	var termList []string
	for {
		e, err := dict.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			return termList, nil
		}
		termList = append(termList, e.Term)
	}
}

// termShardBody is a term shard's data: its terms, then their encoded
// postings; size is about their bytes.
func termShardBody(terms []string, posts [][]byte, size int) []byte {
	body := make([]byte, 0, size+len(terms)*8)
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

// encodeAll reads and encodes the postings of each term, one worker per
// core each on its own run of terms; nil for a term no live document
// holds. It counts postings and positions and fills lens.
func (w *staticWriter) encodeAll(termList []string) ([][]byte, error) {
	encs := make([][]byte, len(termList))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(termList)/1000))
	type partial struct {
		positions, postings int
		lens                []uint32
		err                 error
	}
	parts := make([]partial, workers)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		lo, hi := k*len(termList)/workers, (k+1)*len(termList)/workers
		wg.Go(func() {
			pt := &parts[k]
			pt.lens = make([]uint32, len(w.metas))
			var ps []posting
			var tfd index.TermFieldDoc
			for i := lo; i < hi && pt.err == nil; i++ {
				ps = ps[:0]
				ps, pt.err = readPostings(w.r, termList[i], w.byInternal, pt.lens, ps, &tfd)
				if pt.err != nil || len(ps) == 0 {
					// Only in deleted documents: an updated index's merge
					// keeps such terms in its dictionary; a new index has
					// none.
					continue
				}
				var positions int
				encs[i], positions = encodePostings(ps)
				pt.positions += positions
				pt.postings += len(ps)
			}
		})
	}
	wg.Wait()
	for _, pt := range parts {
		if pt.err != nil {
			return nil, pt.err
		}
		w.st.Positions += pt.positions
		w.st.Postings += pt.postings
		for d, l := range pt.lens {
			if l != 0 {
				w.lens[d] = l
			}
		}
	}
	return encs, nil
}

// encodePostings sorts a term's postings by document and encodes them:
// per document the gap from the previous one (its low bit telling whether
// a frequency other than 1 follows), then its positions as gaps. It
// returns the code and the count of positions.
func encodePostings(ps []posting) (enc []byte, positions int) {
	slices.SortFunc(ps, func(a, b posting) int { return int(a.doc) - int(b.doc) })
	prev := -1
	for _, p := range ps {
		gap := uint64(int(p.doc) - prev - 1)
		prev = int(p.doc)
		if p.freq == 1 {
			enc = varint(enc, gap<<1)
		} else {
			enc = varint(enc, gap<<1|1)
			enc = varint(enc, uint64(p.freq-2))
		}
		last := uint32(0)
		for _, q := range p.pos {
			enc = varint(enc, uint64(q-last))
			last = q
		}
		positions += len(p.pos)
	}
	return enc, positions
}

// metaShards writes the meta shards, metaShardDocs documents each, and
// returns them with the tables they index into.
func (w *staticWriter) metaShards() (metaTables, error) {
	metas := w.metas
	var t metaTables
	var projectIdx, kindIdx []int
	t.projects, projectIdx = table(metas, func(m meta) string { return m.project })
	t.kinds, kindIdx = table(metas, func(m meta) string {
		return m.role + "\x00" + m.tool + "\x00" + m.model
	})
	for i, m := range metas {
		if d := day(m.time); i == 0 || d < t.day0 {
			t.day0 = d
		}
	}
	for start := 0; start < len(metas); start += metaShardDocs {
		var enc []byte
		// The shard's sessions, in the order they first come (documents
		// go by page, so a session's are mostly together).
		var sessions []string
		sessionIdx := map[string]int{}
		for i := start; i < min(len(metas), start+metaShardDocs); i++ {
			m := metas[i]
			si, ok := sessionIdx[m.session]
			if !ok {
				si = len(sessions)
				sessionIdx[m.session] = si
				sessions = append(sessions, m.session)
			}
			enc = varint(enc, uint64(w.lens[i]))
			enc = varint(enc, uint64(kindIdx[i]))
			enc = varint(enc, uint64(projectIdx[i]))
			enc = varint(enc, uint64(day(m.time)-t.day0))
			enc = varint(enc, uint64(si))
		}
		list, err := json.Marshal(sessions)
		if err != nil {
			return t, err
		}
		body := append([]byte(jsString(string(enc))+","), list...)
		name, err := w.out("m", body, &w.st.MetaBytes)
		if err != nil {
			return t, err
		}
		t.files = append(t.files, name)
	}
	return t, nil
}

// docShards writes the display shards: a few KB of documents each, their
// pages and titles listed once. A shard ends after the document that
// brings its text to displayShardBytes (the documents' text lengths, known
// without reading them), so a shard's documents, and its bytes, depend on
// them alone: a shard whose documents are those of a shard the site holds
// (same ids, same content: keptShards) is kept as it is, not made again.
// A document's display text is made from the text the index stores (held
// nowhere else: the texts of a large archive would be hundreds of MB kept
// alive through the build).
func (w *staticWriter) docShards() ([]docShard, error) {
	metas := w.metas
	var docShards []docShard
	for start := 0; start < len(metas); {
		end, size := start, int64(0)
		for end < len(metas) && (size < displayShardBytes || end == start) {
			size += metas[end].text + int64(len(metas[end].id)) + 20
			end++
		}
		key := shardKey(metas[start:end])
		name, bytes, ok := w.kept.reuse(key)
		if !ok {
			var err error
			if name, bytes, err = w.docShard(metas[start:end]); err != nil {
				return nil, err
			}
		} else {
			w.st.Files++
			w.st.Bytes += bytes
			w.st.DocBytes += bytes
		}
		w.kept.add(key, name, bytes)
		docShards = append(docShards, docShard{start, name})
		start = end
	}
	return docShards, nil
}

// docShard writes one display shard; it returns its name and size.
func (w *staticWriter) docShard(metas []meta) (string, int64, error) {
	var pages, titles []string
	pageIdx, titleIdx := map[string]int{}, map[string]int{}
	rows := make([][]any, 0, len(metas))
	for _, m := range metas {
		page, anchor, _ := strings.Cut(m.id, "#")
		pi, ok := pageIdx[page]
		if !ok {
			pi = len(pages)
			pageIdx[page] = pi
			pages = append(pages, page)
		}
		ti, ok := titleIdx[m.title]
		if !ok {
			ti = len(titles)
			titleIdx[m.title] = ti
			titles = append(titles, m.title)
		}
		var t int64
		if !m.time.IsZero() {
			t = m.time.Unix()
		}
		text, err := storedText(w.r, m.id)
		if err != nil {
			return "", 0, fmt.Errorf("search index: %s: %w", m.id, err)
		}
		rows = append(rows, []any{pi, anchor, ti, t, DisplayText(m.role, m.tool, text)})
	}
	body, err := json.Marshal([]any{pages, titles, rows})
	if err != nil {
		return "", 0, err
	}
	before := w.st.DocBytes
	name, err := w.out("d", body, &w.st.DocBytes)
	return name, w.st.DocBytes - before, err
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

// keptShards are display shards by the key of their documents (shardKey):
// those of the last static index (prev) and of this one (next). A shard of
// prev is reused when the site still holds its file (keep says so, and
// keeps it).
type keptShards struct {
	prev, next map[string]keptShard
	keep       func(path string) bool
}

type keptShard struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

func (k *keptShards) reuse(key string) (string, int64, bool) {
	if k == nil || k.keep == nil {
		return "", 0, false
	}
	s, ok := k.prev[key]
	if !ok || !k.keep(StaticDir+"/"+s.Name+".js") {
		return "", 0, false
	}
	return s.Name, s.Bytes, true
}

func (k *keptShards) add(key, name string, bytes int64) {
	if k != nil {
		k.next[key] = keptShard{name, bytes}
	}
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

// manifest writes the manifest (index.js) and search/api.js.
func (w *staticWriter) manifest(avgdl float64, shards []termShard, tables metaTables, docShards []docShard) error {
	man := map[string]any{
		"v":        1,
		"n":        len(w.metas),
		"avgdl":    liveAvgdl(w.st.Terms, len(w.metas), avgdl),
		"k1":       1.2,
		"b":        0.75,
		"day0":     tables.day0,
		"projects": tables.projects,
		"metaDocs": metaShardDocs,
		"meta":     tables.files,
	}
	var ks [][]string
	for _, k := range tables.kinds {
		ks = append(ks, strings.Split(k, "\x00"))
	}
	man["kinds"] = ks
	var tf [][]string
	for _, s := range shards {
		tf = append(tf, []string{s.first, s.file})
	}
	man["terms"] = tf
	var df [][]any
	for _, s := range docShards {
		df = append(df, []any{s.first, s.file})
	}
	man["docs"] = df
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

// fieldLength recovers a document's token count from the norm bleve keeps
// (float32(1/sqrt(length))), checking it gives the norm back exactly: the
// browser recomputes the norm from the length.
func fieldLength(norm float64) (uint32, error) {
	if norm <= 0 {
		return 0, fmt.Errorf("search index: norm %v", norm)
	}
	l := uint32(math.Round(1 / (norm * norm)))
	for _, c := range []uint32{l, l - 1, l + 1} {
		if c > 0 && float64(float32(1/math.Sqrt(float64(c)))) == norm {
			return c, nil
		}
	}
	return 0, fmt.Errorf("search index: no field length gives norm %v", norm)
}

func internalKey(id index.IndexInternalID) uint64 {
	if len(id) == 8 {
		return binary.BigEndian.Uint64(id)
	}
	var b [8]byte
	copy(b[8-min(8, len(id)):], id)
	return binary.BigEndian.Uint64(b[:])
}

// day is t's day number (UTC) since 1970, as the date filters compare.
func day(t time.Time) int64 {
	return int64(math.Floor(float64(t.Unix()) / 86400))
}

// docNumbers maps bleve's internal document numbers to the static
// index's; 0 means none (numbers are stored plus one).
type docNumbers []uint32

func (n *docNumbers) set(internal uint64, d uint32) {
	for uint64(len(*n)) <= internal {
		*n = append(*n, 0)
	}
	(*n)[internal] = d + 1
}

func (n docNumbers) get(internal uint64) (uint32, bool) {
	if internal >= uint64(len(n)) || n[internal] == 0 {
		return 0, false
	}
	return n[internal] - 1, true
}

// readPostings appends a term's postings (document numbers, frequencies,
// positions) to ps, and records each document's field length in lens.
func readPostings(r index.IndexReader, term string, byInternal docNumbers, lens []uint32,
	ps []posting, tfd *index.TermFieldDoc) ([]posting, error) {
	tfr, err := r.TermFieldReader(context.Background(), []byte(term), "text", true, true, true)
	if err != nil {
		return ps, err
	}
	defer tfr.Close()
	for {
		d, err := tfr.Next(tfd.Reset())
		if err != nil {
			return ps, err
		}
		if d == nil {
			return ps, nil
		}
		dn, ok := byInternal.get(internalKey(d.ID))
		if !ok {
			return ps, fmt.Errorf("search index: term %q: unknown document", term)
		}
		p := posting{doc: dn, freq: uint32(d.Freq)}
		for _, v := range d.Vectors {
			p.pos = append(p.pos, uint32(v.Pos))
		}
		slices.Sort(p.pos)
		if len(p.pos) != int(d.Freq) {
			return ps, fmt.Errorf("search index: term %q: %d positions for frequency %d", term, len(p.pos), d.Freq)
		}
		if lens[dn] == 0 {
			l, err := fieldLength(d.Norm)
			if err != nil {
				return ps, err
			}
			lens[dn] = l
		}
		ps = append(ps, p)
	}
}

// liveAvgdl is bleve's average field length, ceil(terms / documents),
// counting only the terms some document holds: the same for an index made
// anew (where it equals bleve's own, which counts its dictionary) and for
// one updated in place (whose dictionary keeps the terms of deleted
// documents, so bleve's own is then a little larger).
func liveAvgdl(terms, docs int, bleves float64) float64 {
	if docs == 0 {
		return bleves
	}
	return math.Ceil(float64(terms) / float64(docs))
}

// table lists the distinct values of f over metas, sorted, and each
// meta's index into that list.
func table(metas []meta, f func(meta) string) ([]string, []int) {
	set := map[string]bool{}
	for _, m := range metas {
		set[f(m)] = true
	}
	vals := make([]string, 0, len(set))
	for v := range set {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	at := make(map[string]int, len(vals))
	for i, v := range vals {
		at[v] = i
	}
	idx := make([]int, len(metas))
	for i, m := range metas {
		idx[i] = at[f(m)]
	}
	return vals, idx
}

// jsString is s as a JSON string, safe inside a script: encoding/json
// escapes <, >, &, U+2028 and U+2029.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
