package search

import (
	"cmp"
	"strings"
	"time"
	"unsafe"
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

// newMetaSet is the set of base, whose added documents are numbered in
// tab (nil: a table of its own).
func newMetaSet(base []meta, tab *idTab) *metaSet {
	return &metaSet{base: base, gone: map[string]bool{}, put: newPutMetas(tab), at: map[string]int{}, scanned: map[string]bool{}}
}

// putMetas are metas by id: in chunks of putChunk, found through their
// places by id number (idTab). A map of the metas themselves
// (map[string]meta) held each in an allocation of its own (a map keeps a
// value over 128 bytes apart): on the 1 GB tree, 175,000 objects that
// every garbage collection of the build's pages phase marked, 1.0–1.8
// CPU-s of collection more than chunks. Chunks, not one slice, so that
// adding never copies the metas (a slice grown by append copied 26 MB of
// them at 1 GB, 0.2 CPU-s with the collections of the garbage). A meta is
// kept as a putMeta, which holds no pointer (its id a number, its other
// strings numbers in a table of the distinct ones), so the chunks are
// not scanned at all.
type putMetas struct {
	tab    *idTab
	chunks [][]putMeta
	n      int
	pos    []int32 // by id number: the meta's place + 1 (0: none)
	strs   strTab
}

// putMeta is a meta without pointers: see putMetas.
type putMeta struct {
	id     int32
	fields [7]uint32 // project, session, title, role, tool, model, agent, in strs
	zero   bool      // no time
	nsec   int32
	sec    int64
	text   int64
	hash   uint64
}

const putChunk = 1024

func newPutMetas(tab *idTab) putMetas {
	if tab == nil {
		tab = newIDTab()
	}
	return putMetas{tab: tab, strs: strTab{at: map[string]uint32{}}}
}

func (p *putMetas) len() int { return p.n }

func (p *putMetas) ref(i int) *putMeta { return &p.chunks[i/putChunk][i%putChunk] }

// meta is the meta pm keeps. Its time is in UTC, as the metas file gives
// it: nothing the index makes of a time depends on its location.
func (p *putMetas) meta(pm *putMeta) meta {
	f := &pm.fields
	l := p.strs.list
	m := meta{id: p.tab.key(pm.id), project: l[f[0]], session: l[f[1]], title: l[f[2]], role: l[f[3]],
		tool: l[f[4]], model: l[f[5]], agent: l[f[6]], text: pm.text, hash: pm.hash}
	if !pm.zero {
		m.time = time.Unix(pm.sec, int64(pm.nsec)).UTC()
	}
	return m
}

// place is where the meta of id number i is, if there is one.
func (p *putMetas) place(i int32) (int, bool) {
	if i < 0 || int(i) >= len(p.pos) || p.pos[i] == 0 {
		return 0, false
	}
	return int(p.pos[i]) - 1, true
}

func (p *putMetas) get(id string) (meta, bool) {
	i, _ := p.tab.find(id)
	if at, ok := p.place(i); ok {
		return p.meta(p.ref(at)), true
	}
	return meta{}, false
}

// set adds m, or replaces the meta of its id.
func (p *putMetas) set(m meta) { p.setNumbered(p.tab.number(m.id), m) }

// setNumbered is set of m whose id's number in the table is i.
func (p *putMetas) setNumbered(i int32, m meta) {
	pm := putMeta{id: i, zero: m.time.IsZero(), text: m.text, hash: m.hash}
	for f, v := range [...]string{m.project, m.session, m.title, m.role, m.tool, m.model, m.agent} {
		pm.fields[f] = p.strs.index(f, v)
	}
	if !pm.zero {
		pm.sec, pm.nsec = m.time.Unix(), int32(m.time.Nanosecond())
	}
	if at, ok := p.place(i); ok {
		*p.ref(at) = pm
		return
	}
	if p.n%putChunk == 0 {
		p.chunks = append(p.chunks, make([]putMeta, 0, putChunk))
	}
	last := len(p.chunks) - 1
	p.chunks[last] = append(p.chunks[last], pm)
	p.pos = atLeast(p.pos, int(i)+1)
	p.pos[i] = int32(p.n) + 1
	p.n++
}

// del removes the meta of id: the last takes its place.
func (p *putMetas) del(id string) {
	i, _ := p.tab.find(id)
	at, ok := p.place(i)
	if !ok {
		return
	}
	p.pos[i] = 0
	last := p.n - 1
	if at != last {
		moved := *p.ref(last)
		*p.ref(at) = moved
		p.pos[moved.id] = int32(at) + 1
	}
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
			m := p.meta(&c[i])
			fn(&m)
		}
	}
}

// all returns the metas, in the set's (arbitrary) order.
func (p *putMetas) all() []meta {
	out := make([]meta, 0, p.n)
	for _, c := range p.chunks {
		for i := range c {
			out = append(out, p.meta(&c[i]))
		}
	}
	return out
}

// strTab numbers the distinct strings of the metas' seven string fields:
// a few per session (its project, id and title) and a few in all (roles,
// tools, models). Each is a copy, so a meta keeps no larger string alive
// it was cut from.
type strTab struct {
	list []string
	at   map[string]uint32
	// last is the string each field was last given, and its number: a
	// unit's documents share their project, session and title strings.
	last [7]struct {
		s  string
		i  uint32
		ok bool
	}
}

// index returns s's number, as field f's value.
func (t *strTab) index(f int, s string) uint32 {
	l := &t.last[f]
	if l.ok && len(l.s) == len(s) && unsafe.StringData(l.s) == unsafe.StringData(s) {
		return l.i
	}
	i, ok := t.at[s]
	if !ok {
		i = uint32(len(t.list))
		c := strings.Clone(s)
		t.list = append(t.list, c)
		t.at[c] = i
	}
	l.s, l.i, l.ok = s, i, true
	return i
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
func (s *metaSet) set(m meta) { s.setNumbered(s.put.tab.number(m.id), m) }

// setNumbered is set of m whose id's number in the set's table is i (a
// writer has it: the id is hashed once).
func (s *metaSet) setNumbered(i int32, m meta) {
	if _, ok := s.baseIndex(m.id); ok {
		s.gone[m.id] = true
	}
	s.put.setNumbered(i, m)
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
	add := numbered(s.put.all())
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
	add := numbered(s.put.all())
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
	*s = *newMetaSet(out, s.put.tab)
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
