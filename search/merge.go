package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Layers made a part at a time. A layer's files are made in one order:
// its display shards (by document), its term shards (by term), its meta
// shards and its layer file. Each file has a place on one scale, in units
// (docUnits): a display shard's is the units of the documents up to its
// last, a term shard's is all the documents' units (U) and twice the
// bytes of the terms and postings up to its last term (termBytes), and
// the meta shards and the layer file come last. A pending merge whose
// schedule has done of its U units published has made every file whose
// place is at most 2·done: the display shards by the time half its units
// are published, the term shards when their bytes are at most half of U
// (the corpus tree's are 0.39 of it; more is made when the merge is
// published whole), the rest when it is served. Which files those are
// depends on the documents
// alone, so a build made anew makes the same ones, from nothing.
//
// A pending merge's layer is made from the layers it replaces, which the
// site holds: its display rows are theirs (the same display text, encoded
// as it was), its postings theirs in term order, each layer's numbered on
// from the one before (the first gap of a term's postings in a layer
// changes, nothing else: a document's postings do not depend on its
// layer). No text is read or analysed again: what a merge costs is the
// bytes it makes, a part in each build, not the whole index analysed in
// the build that forms it. When those files cannot be read as they were
// written, the layer is made from the documents' texts, as a layer
// always was: the same files.

// mergeState is a layer made a part at a time: what is made so far, and
// where making it goes on.
type mergeState struct {
	Layer     keptLayer `json:"layer"`               // the files made, their entry and stats so far
	NextDoc   int       `json:"nextDoc"`             // the first document of the next display shard
	After     string    `json:"after,omitempty"`     // the last term of the term shards made
	Out       int64     `json:"out"`                 // termBytes up to After
	TermsDone bool      `json:"termsDone,omitempty"` // every term shard made
	Tabled    bool      `json:"tabled,omitempty"`    // the entry's tables made
	// Sources are the layers it is made from: documents of the layer
	// (from, to) and the key of their layer.
	Sources []mergeSource `json:"sources,omitempty"`
}

type mergeSource struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Key  string `json:"key"`
}

// termBytes is what a term and its postings count toward a term shard's
// size (termShardBytes) and its place.
func termBytes(t string, enc []byte) int64 { return int64(len(enc) + len(t) + 4) }

// layerSource gives the display texts and postings of a layer's
// documents: analysed from their texts (analysedSource) or read from the
// layers that hold them (shardSource).
type layerSource interface {
	// rows calls fn for documents from to to-1 in order, with the
	// display text, or (raw) as the display shard held it encoded.
	rows(from, to int, fn func(i int, text string, raw []byte) error) error
	// terms calls fn for the layer's terms after after (every term
	// when has is false), in byte order, with their postings, until fn
	// says stop; enc is fn's to keep.
	terms(after string, has bool, fn func(t string, enc []byte) (stop bool, err error)) error
	// totals are the layer's postings, positions and tokens.
	totals() (postings, positions int, tokens int64, err error)
}

// sourceError is a layer's files not read as they were written: the
// layer is made from the documents' texts instead.
type sourceError struct{ err error }

func (e sourceError) Error() string { return "search index: merging layers: " + e.err.Error() }
func (e sourceError) Unwrap() error { return e.err }

// makeLayer makes docs' layer from src, from where st is to the place
// upto (upto < 0: the whole layer).
func (w *staticWriter) makeLayer(docs []meta, src layerSource, st *mergeState, upto int64) error {
	kl := &st.Layer
	if !st.Tabled {
		// Once: a whole index's documents took 0.08 CPU-s a part.
		kl.Entry.N, kl.Entry.Kinds = len(docs), nil
		w.tables(&kl.Entry, docs)
		st.Tabled = true
	}
	m := newLayerMaking(w, docs, src, st, upto)
	if st.NextDoc < len(docs) {
		if err := m.displayShards(); err != nil || st.NextDoc < len(docs) {
			return err
		}
	}
	if !st.TermsDone {
		if err := m.termShards(); err != nil || !st.TermsDone {
			return err
		}
	}
	if !m.all {
		return nil
	}
	postings, positions, tokens, err := src.totals()
	if err != nil {
		return err
	}
	kl.Stats.Postings, kl.Stats.Positions, kl.Tokens = postings, positions, tokens
	if err := w.metaShards(docs, kl, m.out); err != nil {
		return err
	}
	return w.entryFile(kl)
}

// layerMaking is one call of makeLayer: the layer's documents, its source,
// its state and how far to go.
type layerMaking struct {
	w     *staticWriter
	docs  []meta
	src   layerSource
	st    *mergeState
	upto  int64
	all   bool    // upto < 0: the whole layer
	units []int64 // units[i]: the units of docs[:i]
	// The indexes of the entry's projects and kinds (role, tool, model
	// joined by NULs).
	projectAt, kindAt map[string]int
}

func newLayerMaking(w *staticWriter, docs []meta, src layerSource, st *mergeState, upto int64) *layerMaking {
	e := &st.Layer.Entry
	m := &layerMaking{w: w, docs: docs, src: src, st: st, upto: upto, all: upto < 0,
		projectAt: map[string]int{}, kindAt: map[string]int{}}
	for i, p := range e.Projects {
		m.projectAt[p] = i
	}
	for i, k := range e.Kinds {
		m.kindAt[k[0]+"\x00"+k[1]+"\x00"+k[2]+"\x00"+k[3]] = i
	}
	m.units = make([]int64, len(docs)+1)
	for i := range docs {
		m.units[i+1] = m.units[i] + docUnits(&docs[i])
	}
	return m
}

// out writes a file of the layer and counts it in its stats and in kind.
func (m *layerMaking) out(prefix string, body func([]byte) []byte, kind *int64) (string, error) {
	kl := &m.st.Layer
	name, path, size, err := m.w.out(prefix, body)
	if err != nil {
		return "", err
	}
	kl.Files = append(kl.Files, path)
	kl.Stats.Files++
	kl.Stats.Bytes += size
	*kind += size
	return name, nil
}

// displayShards makes the display shards from st.NextDoc on, as far as
// upto goes. A shard ends after the document that brings its text to
// displayShardBytes (the documents' text lengths, known without reading
// them), so its documents depend on them alone.
func (m *layerMaking) displayShards() error {
	docs, st, units, n := m.docs, m.st, m.units, len(m.docs)
	kl := &st.Layer
	e := &kl.Entry
	var ends []int
	size := int64(0)
	for i := st.NextDoc; i < n; i++ {
		size += docs[i].text + int64(len(docs[i].id)) + 20
		if size >= displayShardBytes || i == n-1 {
			if !m.all && units[i+1] > m.upto {
				break
			}
			ends = append(ends, i+1)
			size = 0
		}
	}
	if len(ends) == 0 {
		return nil
	}
	var rows []displayRow
	first := st.NextDoc
	return m.src.rows(first, ends[len(ends)-1], func(i int, text string, raw []byte) error {
		d := &docs[i]
		rows = append(rows, displayRow{*d, text, raw, m.kindAt[d.role+"\x00"+d.tool+"\x00"+d.model+"\x00"+d.agent], m.projectAt[d.project]})
		if i+1 != ends[0] {
			return nil
		}
		name, err := m.out("d", func(b []byte) []byte { return appendDisplayBody(b, rows) }, &kl.Stats.DocBytes)
		if err != nil {
			return err
		}
		e.Docs = append(e.Docs, docRef{first, name})
		rows, first, ends = rows[:0], i+1, ends[1:]
		st.NextDoc = first
		return nil
	})
}

// termShards makes the term shards after st.After, as far as upto goes:
// consecutive terms in bleve's (byte) order, a shard cut after about
// termShardBytes of postings. It sets st.TermsDone when all are made.
func (m *layerMaking) termShards() error {
	st, n := m.st, len(m.docs)
	kl := &st.Layer
	e := &kl.Entry
	var shardTerms []string
	var posts [][]byte
	tsize := int64(0)
	flush := func() (bool, error) {
		if len(shardTerms) == 0 {
			return true, nil
		}
		if !m.all && m.units[n]+2*(st.Out+tsize) > m.upto {
			return false, nil
		}
		name, err := m.out("t", func(b []byte) []byte { return appendTermShard(b, shardTerms, posts, int(tsize)) }, &kl.Stats.TermBytes)
		if err != nil {
			return false, err
		}
		e.Terms = append(e.Terms, [2]string{shardTerms[0], name})
		for _, t := range shardTerms {
			if !isFilterTerm(t) {
				kl.Stats.Terms++
			}
		}
		st.After, st.Out = shardTerms[len(shardTerms)-1], st.Out+tsize
		shardTerms, posts, tsize = shardTerms[:0], posts[:0], 0
		return true, nil
	}
	stopped := false
	err := m.src.terms(st.After, len(e.Terms) > 0, func(t string, enc []byte) (bool, error) {
		shardTerms = append(shardTerms, t)
		posts = append(posts, enc)
		tsize += termBytes(t, enc)
		if tsize < termShardBytes {
			return false, nil
		}
		ok, err := flush()
		stopped = !ok
		return stopped, err
	})
	if err != nil || stopped {
		return err
	}
	if ok, err := flush(); !ok || err != nil {
		return err
	}
	st.TermsDone = true
	return nil
}

// analysedSource is a layer's documents analysed from their spill records
// or texts, in one pass (w.analyse) that accumulates every term's
// postings.
type analysedSource struct {
	w         *staticWriter
	docs      []meta
	acc       map[string]*termAcc
	postings  int
	positions int
	tokens    int64
}

func (s *analysedSource) rows(from, to int, fn func(i int, text string, raw []byte) error) error {
	return s.run(func(i int, a *analysed) error {
		if i < from || i >= to {
			return nil
		}
		return fn(i, a.display, nil)
	})
}

// run analyses the documents, calling fn for each (nil: none), once.
func (s *analysedSource) run(fn func(i int, a *analysed) error) error {
	if s.acc != nil {
		if fn != nil {
			return errors.New("search index: a layer analysed twice")
		}
		return nil
	}
	acc := map[string]*termAcc{}
	var seen resolvedTerms
	docs := s.docs
	err := s.w.analyse(docs, func(i int, a *analysed) error {
		s.tokens += int64(a.length)
		accs := seen.resolve(a.terms, acc)
		for j, tp := range a.terms {
			t := accs[j]
			gap := uint64(i - t.last - 1)
			t.last = i
			t.df++
			if len(tp.pos) == 1 {
				t.enc = varint(t.enc, gap<<1)
			} else {
				t.enc = varint(t.enc, gap<<1|1)
				t.enc = varint(t.enc, uint64(len(tp.pos)-2))
			}
			// The document's field length, so that a query scores its
			// documents with no meta shard (BM25 needs it for each).
			t.enc = varint(t.enc, uint64(a.length))
			last := uint32(0)
			for _, q := range tp.pos {
				t.enc = varint(t.enc, uint64(q-last))
				last = q
			}
			s.positions += len(tp.pos)
			s.postings++
		}
		for _, ft := range filterTerms(docs[i]) {
			t := acc[ft]
			if t == nil {
				t = &termAcc{last: -1}
				acc[ft] = t
			}
			// one occurrence, no length, position 0: only filters read it
			t.enc = varint(t.enc, uint64(i-t.last-1)<<1)
			t.enc = append(t.enc, digits[0], digits[0])
			t.last = i
			t.df++
		}
		if fn != nil {
			return fn(i, a)
		}
		return nil
	})
	s.acc = acc
	return err
}

func (s *analysedSource) terms(after string, has bool, fn func(t string, enc []byte) (bool, error)) error {
	if err := s.run(nil); err != nil {
		return err
	}
	terms := make([]string, 0, len(s.acc))
	for t := range s.acc {
		if !has || t > after {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	for _, t := range terms {
		if stop, err := fn(t, s.acc[t].enc); stop || err != nil {
			return err
		}
	}
	return nil
}

func (s *analysedSource) totals() (int, int, int64, error) {
	err := s.run(nil)
	return s.postings, s.positions, s.tokens, err
}

// shardSource is a layer made of consecutive layers the site holds, read
// with read (a site path).
type shardSource struct {
	read func(path string) ([]byte, error)
	srcs []srcLayer
}

// srcLayer is a layer a merge is made of: its first document in the
// merged layer, and the layer as written.
type srcLayer struct {
	off int
	kl  keptLayer
}

// shardBody is the data of the shard name, as w.out wrote it: read, its
// call checked and its hash checked against its name.
func (s *shardSource) shardBody(name string) ([]byte, error) {
	data, err := s.read(StaticDir + "/" + name + ".js")
	if err != nil {
		return nil, sourceError{err}
	}
	body, ok := bytes.CutPrefix(data, []byte(shardHead(name)))
	if ok {
		body, ok = bytes.CutSuffix(body, []byte(shardTail))
	}
	prefix, _, _ := strings.Cut(name, "-")
	if !ok || shardName(prefix, body) != name {
		return nil, sourceError{fmt.Errorf("shard %s is not as written", name)}
	}
	return body, nil
}

func (s *shardSource) rows(from, to int, fn func(i int, text string, raw []byte) error) error {
	for _, src := range s.srcs {
		e := &src.kl.Entry
		lo, hi := max(from, src.off)-src.off, min(to, src.off+e.N)-src.off
		if lo >= hi {
			continue
		}
		for k, ref := range e.Docs {
			end := e.N
			if k+1 < len(e.Docs) {
				end = e.Docs[k+1].First
			}
			if end <= lo || ref.First >= hi {
				continue
			}
			texts, err := s.displayTexts(ref.File, end-ref.First)
			if err != nil {
				return err
			}
			for i := max(lo, ref.First); i < min(hi, end); i++ {
				if err := fn(src.off+i, "", texts[i-ref.First]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// displayTexts are the display texts of a display shard's n documents,
// encoded as it holds them.
func (s *shardSource) displayTexts(name string, n int) ([][]byte, error) {
	body, err := s.shardBody(name)
	if err != nil {
		return nil, err
	}
	var parts []json.RawMessage
	var rows [][]json.RawMessage
	if err := json.Unmarshal(body, &parts); err != nil || len(parts) != 4 {
		return nil, sourceError{fmt.Errorf("display shard %s: %v", name, err)}
	}
	if err := json.Unmarshal(parts[2], &rows); err != nil || len(rows) != n {
		return nil, sourceError{fmt.Errorf("display shard %s: %d rows, want %d (%v)", name, len(rows), n, err)}
	}
	texts := make([][]byte, n)
	for i, r := range rows {
		if len(r) != 8 || len(r[4]) == 0 || r[4][0] != '"' {
			return nil, sourceError{fmt.Errorf("display shard %s: row %d", name, i)}
		}
		texts[i] = r[4]
	}
	return texts, nil
}

// termShard is a term shard read: its terms and their postings.
func (s *shardSource) termShard(name string) ([]string, [][]byte, error) {
	body, err := s.shardBody(name)
	if err != nil {
		return nil, nil, err
	}
	var parts [2][]json.RawMessage
	if err := json.Unmarshal(append(append([]byte{'['}, body...), ']'), &parts); err != nil || len(parts[0]) != len(parts[1]) {
		return nil, nil, sourceError{fmt.Errorf("term shard %s: %v", name, err)}
	}
	terms := make([]string, len(parts[0]))
	posts := make([][]byte, len(parts[1]))
	for i, raw := range parts[0] {
		// A term is what its encoding gives back only when encoding it
		// again gives the same bytes (invalid UTF-8 was written as
		// U+FFFD, which a term may hold too).
		if err := json.Unmarshal(raw, &terms[i]); err != nil || jsString(terms[i]) != string(raw) {
			return nil, nil, sourceError{fmt.Errorf("term shard %s: term %d", name, i)}
		}
		p := parts[1][i]
		if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
			return nil, nil, sourceError{fmt.Errorf("term shard %s: postings %d", name, i)}
		}
		posts[i] = p[1 : len(p)-1]
	}
	return terms, posts, nil
}

// termIter walks a source layer's terms in order.
type termIter struct {
	s     *shardSource
	src   *srcLayer
	shard int
	terms []string
	posts [][]byte
	at    int
}

// load reads shard k (past the last: done).
func (it *termIter) load(k int) error {
	it.shard, it.at, it.terms, it.posts = k, 0, nil, nil
	if k >= len(it.src.kl.Entry.Terms) {
		return nil
	}
	var err error
	it.terms, it.posts, err = it.s.termShard(it.src.kl.Entry.Terms[k][1])
	if err == nil && len(it.terms) == 0 {
		err = sourceError{fmt.Errorf("term shard %s: no terms", it.src.kl.Entry.Terms[k][1])}
	}
	return err
}

func (it *termIter) done() bool { return it.at >= len(it.terms) }

func (it *termIter) next() error {
	if it.at++; it.at < len(it.terms) {
		return nil
	}
	return it.load(it.shard + 1)
}

func (s *shardSource) terms(after string, has bool, fn func(t string, enc []byte) (bool, error)) error {
	its := make([]*termIter, len(s.srcs))
	for k := range s.srcs {
		it := &termIter{s: s, src: &s.srcs[k]}
		its[k] = it
		first := 0
		if has {
			ts := it.src.kl.Entry.Terms
			// The last shard beginning at or before after.
			first = max(0, sort.Search(len(ts), func(j int) bool { return ts[j][0] > after })-1)
		}
		if err := it.load(first); err != nil {
			return err
		}
		for has && !it.done() && it.terms[it.at] <= after {
			if err := it.next(); err != nil {
				return err
			}
		}
	}
	for {
		var t string
		found := false
		for _, it := range its {
			if !it.done() && (!found || it.terms[it.at] < t) {
				t, found = it.terms[it.at], true
			}
		}
		if !found {
			return nil
		}
		var enc []byte
		last := -1 // the last document of t's postings so far
		holders := 0
		for _, it := range its {
			if !it.done() && it.terms[it.at] == t {
				holders++
			}
		}
		for _, it := range its {
			if it.done() || it.terms[it.at] != t {
				continue
			}
			p := it.posts[it.at]
			off := it.src.off
			holders--
			if holders == 0 && last < 0 && off == 0 {
				enc = p // the only layer holding t, and the first
			} else {
				var err error
				if enc, last, err = appendPostings(enc, p, off, last, holders > 0); err != nil {
					return sourceError{fmt.Errorf("term %q: %w", t, err)}
				}
			}
			if err := it.next(); err != nil {
				return err
			}
		}
		if stop, err := fn(t, enc); stop || err != nil {
			return err
		}
	}
}

// appendPostings appends to enc a layer's postings p of a term, numbered
// from off in the merged layer, after a last document of last (-1: none):
// only its first document's gap changes. It returns the last document
// when walk asks for it (another layer follows).
func appendPostings(enc, p []byte, off, last int, walk bool) ([]byte, int, error) {
	r := postingReader{b: p}
	v, err := r.num()
	if err != nil {
		return nil, 0, err
	}
	first := int(v >> 1)
	enc = varint(enc, uint64(off+first-last-1)<<1|v&1)
	rest := r.at
	if !walk {
		return append(enc, p[rest:]...), last, nil
	}
	doc := first
	if err := r.skip(v&1 == 1); err != nil {
		return nil, 0, err
	}
	for r.at < len(p) {
		v, err := r.num()
		if err != nil {
			return nil, 0, err
		}
		doc += int(v>>1) + 1
		if err := r.skip(v&1 == 1); err != nil {
			return nil, 0, err
		}
	}
	return append(enc, p[rest:]...), off + doc, nil
}

// postingReader reads postings as the layers write them: per document its
// gap and whether it has more than one position, then its positions'
// count less two (when more than one), its field length and its
// positions' steps.
type postingReader struct {
	b  []byte
	at int
}

var digitVal = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := range len(digits) {
		t[digits[i]] = int8(i)
	}
	return t
}()

var errPostings = errors.New("postings not as written")

// num reads a number (varint's code).
func (r *postingReader) num() (uint64, error) {
	var v uint64
	for r.at < len(r.b) {
		d := digitVal[r.b[r.at]]
		r.at++
		switch {
		case d < 0:
			return 0, errPostings
		case d < 32:
			return v<<5 | uint64(d), nil
		default:
			v = v<<5 | uint64(d-32)
		}
	}
	return 0, errPostings
}

// skip reads past the rest of a document's entry.
func (r *postingReader) skip(multi bool) error {
	freq := uint64(1)
	if multi {
		f, err := r.num()
		if err != nil {
			return err
		}
		freq = f + 2
	}
	for k := uint64(0); k <= freq; k++ { // the length, then the positions
		if _, err := r.num(); err != nil {
			return err
		}
	}
	return nil
}

func (s *shardSource) totals() (postings, positions int, tokens int64, err error) {
	for _, src := range s.srcs {
		postings += src.kl.Stats.Postings
		positions += src.kl.Stats.Positions
		tokens += src.kl.Tokens
	}
	return postings, positions, tokens, nil
}
