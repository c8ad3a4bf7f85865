package search

import (
	"cmp"
	"strings"
)

// metaSet is every document's meta: those the metas file held (base, in
// the documents' numbers, as the file keeps them) and what a writer changed
// since (put: added; gone: base documents deleted or replaced). A build
// that changes a few of 175,000 documents reads the file into a slice and
// neither sorts it nor maps it by id: it looks documents up among the
// pages it replaces (scan), and a new message, the newest document, is
// appended to the order (numbered).
type metaSet struct {
	base []meta
	gone map[string]bool // ids of base metas deleted or replaced
	put  putMetas        // metas added, by id
	// at indexes base by id: for the documents of the pages scan looked
	// through (scanned), or all of them once all is set.
	at      map[string]int
	scanned map[string]bool
	scans   int // base passes made by baseIndex
	all     bool
	// file is what the metas file held beside base, when base came from
	// it (a file has at least one section).
	file metasFile
}

func newMetaSet(base []meta) *metaSet {
	return &metaSet{base: base, gone: map[string]bool{}, put: putMetas{at: map[string]int32{}}, at: map[string]int{}, scanned: map[string]bool{}}
}

// putMetas are metas by id: in chunks of putChunk, found through a map of
// their places. A map of the metas themselves (map[string]meta) held each
// in an allocation of its own (a map keeps a value over 128 bytes apart):
// on the 1 GB tree, 175,000 objects that every garbage collection of the
// build's pages phase marked, 1.0–1.8 CPU-s of collection more than this.
// Chunks, not one slice, so that adding never copies the metas (a slice
// grown by append copied 26 MB of them at 1 GB, 0.2 CPU-s with the
// collections of the garbage).
type putMetas struct {
	chunks [][]meta
	n      int
	at     map[string]int32
}

const putChunk = 1024

func (p *putMetas) len() int { return p.n }

func (p *putMetas) ref(i int) *meta { return &p.chunks[i/putChunk][i%putChunk] }

func (p *putMetas) get(id string) (meta, bool) {
	if i, ok := p.at[id]; ok {
		return *p.ref(int(i)), true
	}
	return meta{}, false
}

// set adds m, or replaces the meta of its id.
func (p *putMetas) set(m meta) {
	if i, ok := p.at[m.id]; ok {
		*p.ref(int(i)) = m
		return
	}
	if p.n%putChunk == 0 {
		p.chunks = append(p.chunks, make([]meta, 0, putChunk))
	}
	last := len(p.chunks) - 1
	p.chunks[last] = append(p.chunks[last], m)
	p.at[m.id] = int32(p.n)
	p.n++
}

// del removes the meta of id: the last takes its place.
func (p *putMetas) del(id string) {
	i, ok := p.at[id]
	if !ok {
		return
	}
	delete(p.at, id)
	last := p.n - 1
	if int(i) != last {
		*p.ref(int(i)) = *p.ref(last)
		p.at[p.ref(int(i)).id] = i
	}
	*p.ref(last) = meta{} // no stale strings held
	c := len(p.chunks) - 1
	if p.chunks[c] = p.chunks[c][:len(p.chunks[c])-1]; len(p.chunks[c]) == 0 {
		p.chunks = p.chunks[:c]
	}
	p.n--
}

// each calls fn with each meta, in the set's (arbitrary) order.
func (p *putMetas) each(fn func(m *meta)) {
	for _, c := range p.chunks {
		for i := range c {
			fn(&c[i])
		}
	}
}

// baseIndex finds id in base (gone or not).
func (s *metaSet) baseIndex(id string) (int, bool) {
	if i, ok := s.at[id]; ok {
		return i, true
	}
	page := pageOf(id)
	if s.all || s.scanned[page] || len(s.base) == 0 {
		return 0, false
	}
	if s.scans < 8 {
		s.scans++
		// A page or two (a new session's): a pass over base is cheaper
		// than a map of it.
		s.scan(map[string]bool{page: true})
	} else {
		s.all = true
		for i := range s.base {
			s.at[s.base[i].id] = i
		}
	}
	i, ok := s.at[id]
	return i, ok
}

// get returns the meta of a document in the set.
func (s *metaSet) get(id string) (meta, bool) {
	if m, ok := s.put.get(id); ok {
		return m, true
	}
	if i, ok := s.baseIndex(id); ok && !s.gone[id] {
		return s.base[i], true
	}
	return meta{}, false
}

// set adds m, in place of the document of its id if there is one.
func (s *metaSet) set(m meta) {
	if _, ok := s.baseIndex(m.id); ok {
		s.gone[m.id] = true
	}
	s.put.set(m)
}

// del removes a document.
func (s *metaSet) del(id string) {
	s.put.del(id)
	if _, ok := s.baseIndex(id); ok {
		s.gone[id] = true
	}
}

// appendOnly returns the documents added, in number order, when the set
// is the file it was read from plus documents newer than all of it (a
// message appended) and the file can take one more section.
func (s *metaSet) appendOnly() ([]meta, bool) {
	if s.file.sections == 0 || len(s.gone) > 0 || s.put.len() == 0 || len(s.base) == 0 || s.file.sections >= maxMetaSections {
		return nil, false
	}
	add := numbered(s.put.chunks...)
	if numberCmp(s.base[len(s.base)-1], add[0]) >= 0 {
		return nil, false
	}
	return add, true
}

// len is the number of documents.
func (s *metaSet) len() int { return len(s.base) - len(s.gone) + s.put.len() }

// each calls fn with every document's id.
func (s *metaSet) each(fn func(id string)) {
	for i := range s.base {
		if id := s.base[i].id; !s.gone[id] {
			fn(id)
		}
	}
	s.put.each(func(m *meta) { fn(m.id) })
}

// scan returns the ids of the documents of pages, and indexes them (so
// that looking them up, or a new document of these pages, does not index
// the whole base).
func (s *metaSet) scan(pages map[string]bool) []string {
	var ids []string
	for i := range s.base {
		id := s.base[i].id
		if pages[pageOf(id)] {
			s.at[id] = i
			if !s.gone[id] {
				ids = append(ids, id)
			}
		}
	}
	for p := range pages {
		s.scanned[p] = true
	}
	s.put.each(func(m *meta) {
		if pages[pageOf(m.id)] {
			ids = append(ids, m.id)
		}
	})
	return ids
}

// numbered returns the metas in the documents' numbers (see numberCmp),
// and makes that the set's base. Base metas keep their order; those
// added are sorted and merged in, appended when they are the newest.
func (s *metaSet) numbered() []meta {
	if len(s.gone) == 0 && s.put.len() == 0 {
		return s.base
	}
	keep := s.base
	if len(s.gone) > 0 {
		keep = s.base[:0]
		for _, m := range s.base {
			if !s.gone[m.id] {
				keep = append(keep, m)
			}
		}
		clear(s.base[len(keep):]) // no stale strings held
	}
	add := numbered(s.put.chunks...)
	var out []meta
	if len(keep) == 0 || len(add) == 0 || numberCmp(keep[len(keep)-1], add[0]) < 0 {
		out = append(keep, add...)
	} else {
		out = make([]meta, 0, len(keep)+len(add))
		i, j := 0, 0
		for i < len(keep) && j < len(add) {
			if numberCmp(keep[i], add[j]) <= 0 {
				out = append(out, keep[i])
				i++
			} else {
				out = append(out, add[j])
				j++
			}
		}
		out = append(append(out, keep[i:]...), add[j:]...)
	}
	*s = *newMetaSet(out)
	return out
}

// numberCmp orders documents by their numbers: by time (those without one
// bleve can index first, so that a new message is always the last), then
// id, the order in which bleve's results break ties (Index.Search sorts by
// score, time and id).
func numberCmp(a, b meta) int {
	ha, hb := hasTime(a.time), hasTime(b.time)
	switch {
	case ha != hb:
		if ha {
			return 1
		}
		return -1
	case ha:
		if c := cmp.Compare(a.time.UnixNano(), b.time.UnixNano()); c != 0 {
			return c
		}
	}
	return strings.Compare(a.id, b.id)
}
