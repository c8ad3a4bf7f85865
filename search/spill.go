package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
)

// The static index needs of each document its display text, its field
// length and its terms with their positions: what bleve's analysis of the
// text field finds, and positions, which the bleve index does not keep.
// Read back from the index, each document's stored text was decoded and
// analysed a second time (analyseDoc): 0.6 of the 3.5 CPU-s the corpus
// tree's search cost. So a document a build adds is written, as its text
// is analysed (spillDoc), to a spill file beside the index, and
// WriteStatic reads it from there, a record at a time; a document added
// by an earlier build, or one whose record is missing or of another
// content, is read from the texts file (texts.go) and analysed then.
// TestSpillSameStatic checks that the two give the same files.

// spillDocs makes Writers spill (tests compare with the index alone).
var spillDocs = true

// spillHook, when set (by tests), is called for each record read.
var spillHook func()

// spill is the spill file of one Writer.
type spill struct {
	path string
	mu   sync.Mutex
	f    *os.File
	bw   *bufio.Writer
	off  int64
	tab  *idTab     // the writer's id numbers
	at   []spillLoc // by id number
	// same finds the record of a text spilled before: a document of the
	// same text (and display) shares it. Texts repeat where sessions do (a
	// resumed or forked session holds its parent's messages): 11% of the
	// corpus's documents.
	same map[spillKey]spillLoc
	err  error // the first write's error: the records are not used
}

// spillKey names a record by what it is made of: a document's text
// (textKey) and whether its display strips Markdown.
type spillKey struct {
	text textKey
	md   bool
}

func keyOf(d *Doc) spillKey {
	return spillKey{text: keyOfText(d.Text), md: stripsMarkdown(d.Role, d.Tool)}
}

// spillLoc is a record's place in the file, and the content hash
// (DocHash) of the document it describes (n 0: no record).
type spillLoc struct {
	off  int64
	n    int
	hash uint64
}

// loc is the record of the document of id, if there is one.
func (s *spill) loc(id string) (spillLoc, bool) {
	i, ok := s.tab.find(id)
	if !ok || int(i) >= len(s.at) || s.at[i].n == 0 {
		return spillLoc{}, false
	}
	return s.at[i], true
}

// setLoc makes loc the record of id number i.
func (s *spill) setLoc(i int32, loc spillLoc) {
	s.at = atLeast(s.at, int(i)+1)
	s.at[i] = loc
}

// spillPath is the spill file of the index in dir.
func spillPath(dir string) string { return filepath.Clean(dir) + "-spill" }

// newSpill makes the spill file of the index in dir, replacing any; its
// documents are numbered in tab.
func newSpill(dir string, tab *idTab) *spill {
	s := &spill{path: spillPath(dir), tab: tab, same: map[spillKey]spillLoc{}}
	s.f, s.err = createPrivate(s.path)
	if s.err == nil {
		s.bw = bufio.NewWriterSize(s.f, 256<<10)
	}
	return s
}

// put writes the record of document number id, made of what k names.
func (s *spill) put(id int32, hash uint64, rec []byte, k spillKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if _, err := s.bw.Write(rec); err != nil {
		s.err = err
		return
	}
	loc := spillLoc{off: s.off, n: len(rec)}
	s.same[k] = loc
	loc.hash = hash
	s.setLoc(id, loc)
	s.off += int64(len(rec))
}

// reuse makes the record of what k names, when there is one, that of
// document number id; it says whether there was.
func (s *spill) reuse(id int32, hash uint64, k spillKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	loc, ok := s.same[k]
	if ok {
		loc.hash = hash
		s.setLoc(id, loc)
	}
	return ok
}

// done flushes what put wrote: the records can be read after.
func (s *spill) done() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = s.bw.Flush()
	}
	return s.err
}

// get reads the record of m, if the file holds one of its content. memo
// (a worker's own) keeps the last records read, by place: documents that
// share a record (one text) are mostly neighbours in number order, and
// what get returns is only read.
func (s *spill) get(m *meta, memo map[int64]analysed) (analysed, bool) {
	if s == nil || s.err != nil {
		return analysed{}, false
	}
	loc, ok := s.loc(m.id)
	if !ok || loc.hash != m.hash {
		return analysed{}, false
	}
	a, ok := memo[loc.off]
	if !ok {
		rec := make([]byte, loc.n)
		if _, err := s.f.ReadAt(rec, loc.off); err != nil {
			return analysed{}, false
		}
		var err error
		if a, err = decodeAnalysed(rec); err != nil {
			return analysed{}, false
		}
		if len(memo) >= spillMemo {
			clear(memo)
		}
		memo[loc.off] = a
	}
	if spillHook != nil {
		spillHook()
	}
	return a, true
}

// has tells whether the spill holds a record of m's content (s may be
// nil: none).
func (s *spill) has(m *meta) bool {
	if s == nil || s.err != nil {
		return false
	}
	loc, ok := s.loc(m.id)
	return ok && loc.hash == m.hash
}

// spillMemo is how many records a worker keeps (get).
const spillMemo = 64

// close removes the file.
func (s *spill) close() {
	if s == nil {
		return
	}
	if s.f != nil {
		s.f.Close()
	}
	os.Remove(s.path)
	s.at = nil
}

// A record: the display text, the field length, the number of terms, each
// term (its bytes) and its count, then each term's positions, the first
// as it is and each other as its distance from the one before (varints:
// the tokenizer's positions do not go back, but a record would hold them
// if they did); all lengths and counts uvarints.

// appendRecord appends the record of a document's display text and
// tokens, where toks[i]'s term is term slot[i], first seen at token
// uniq[j] and counted n[j] times. pos is scratch.
func appendRecord(rec []byte, display string, toks analysis.TokenStream, slot, uniq []int32, n []int, pos []uint32) ([]byte, []uint32) {
	rec = binary.AppendUvarint(rec, uint64(len(display)))
	rec = append(rec, display...)
	rec = binary.AppendUvarint(rec, uint64(len(toks)))
	rec = binary.AppendUvarint(rec, uint64(len(uniq)))
	for j, i := range uniq {
		rec = binary.AppendUvarint(rec, uint64(len(toks[i].Term)))
		rec = append(rec, toks[i].Term...)
		rec = binary.AppendUvarint(rec, uint64(n[j]))
	}
	// Positions grouped by term, in token order: end[j] is where term
	// j's go next, then where they end.
	if cap(pos) < len(toks)+len(uniq) {
		pos = make([]uint32, len(toks)+len(uniq))
	}
	pos = pos[:len(toks)+len(uniq)]
	end, at := pos[len(toks):], uint32(0)
	for j := range uniq {
		end[j] = at
		at += uint32(n[j])
	}
	for i, t := range toks {
		j := slot[i]
		pos[end[j]] = uint32(t.Position)
		end[j]++
	}
	from := uint32(0)
	for j := range uniq {
		prev := int64(0)
		for _, p := range pos[from:end[j]] {
			rec = binary.AppendVarint(rec, int64(p)-prev)
			prev = int64(p)
		}
		from = end[j]
	}
	return rec, pos
}

var errRecord = errors.New("search: bad spill record")

// decodeAnalysed reads a record; its terms and display text are rec's
// memory (rec is the document's own).
func decodeAnalysed(rec []byte) (analysed, error) {
	var a analysed
	r := recReader{b: rec}
	d := r.bytes(r.uvarint())
	a.display = unsafe.String(unsafe.SliceData(d), len(d))
	a.length = r.uvarint()
	nt := r.uvarint()
	if r.bad || nt > len(rec) || a.length > len(rec) {
		return a, errRecord
	}
	a.terms = make([]termPos, nt)
	counts := make([]int, nt)
	total := 0
	for j := range a.terms {
		a.terms[j].term = r.bytes(r.uvarint())
		counts[j] = r.uvarint()
		total += counts[j]
		if r.bad || total > a.length {
			return a, errRecord
		}
	}
	if total != a.length {
		return a, errRecord
	}
	pos := make([]uint32, total)
	at := 0
	for j := range a.terms {
		p := pos[at : at+counts[j] : at+counts[j]]
		prev := int64(0)
		for k := range p {
			prev += r.varint()
			p[k] = uint32(prev)
		}
		a.terms[j].pos = p
		at += counts[j]
	}
	if r.bad || len(r.b) != 0 {
		return a, errRecord
	}
	return a, nil
}

// recReader reads a record's numbers and bytes; bad is set, and zeros
// read, once one is cut short.
type recReader struct {
	b   []byte
	bad bool
}

func (r *recReader) uvarint() int {
	v, k := binary.Uvarint(r.b)
	if k <= 0 || v > 1<<40 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return int(v)
}

func (r *recReader) varint() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *recReader) bytes(n int) []byte {
	if n > len(r.b) {
		r.bad = true
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}
