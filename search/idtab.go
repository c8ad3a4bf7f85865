package search

import (
	"hash/maphash"
	"unsafe"
)

// idTab numbers the document ids a Writer meets, and what it keeps of a
// document by id (its meta's place, whether it was added, its spill
// record) is kept in slices by that number: the collector has no pointer
// to follow in any of it. Maps by id string held a pointer, and the id an
// object, per document in each of three maps (the metas', the added set,
// the spill's), and each meta held seven strings: on the 1 GB tree,
// 175,000 documents marked at every collection of the pages phase, where
// the heap is at its soft limit (a collection every 200–300 MB
// allocated). Those structures left out (an experiment), that phase's
// collections took 0.54–0.69 CPU-s instead of 1.26–1.67 (gctrace, three
// builds each). Kept by number, a cold 1 GB build's collections take
// 0.72–1.00 CPU-s instead of 1.65–2.20 (four alternated pairs).
//
// An id's bytes are copied into chunks that are never grown past their
// capacity (a string made of them stays valid), found by a seeded hash
// (the map from hash to number holds no pointer) and compared: ids of
// the same hash are chained, so a collision costs a comparison, never a
// wrong answer. Numbers are never reused: a deleted document's number
// stays, as its id's bytes do, for the Writer's life.
type idTab struct {
	seed  maphash.Seed
	first map[uint64]int32 // an id's hash → the newest entry of that hash
	ents  []idEnt
	buf   [][]byte // the ids' bytes
}

// idEnt is an id's place in buf and the entry before it of the same hash.
type idEnt struct {
	chunk, off, n uint32
	next          int32 // -1: none
}

// idChunk is the size of buf's chunks (an id longer than that has one of
// its own).
const idChunk = 256 << 10

// idHashMask is applied to ids' hashes (tests narrow it, to chain ids).
var idHashMask = ^uint64(0)

func (t *idTab) hash(id string) uint64 { return maphash.String(t.seed, id) & idHashMask }

func newIDTab() *idTab { return &idTab{seed: maphash.MakeSeed(), first: map[uint64]int32{}} }

// len is how many ids have a number.
func (t *idTab) len() int { return len(t.ents) }

// key is the id numbered i.
func (t *idTab) key(i int32) string {
	e := &t.ents[i]
	if e.n == 0 {
		return ""
	}
	return unsafe.String(&t.buf[e.chunk][e.off], e.n)
}

// find returns id's number, if it has one.
func (t *idTab) find(id string) (int32, bool) {
	if t == nil {
		return -1, false
	}
	i, ok := t.first[t.hash(id)]
	if !ok {
		return -1, false
	}
	for ; i >= 0; i = t.ents[i].next {
		if t.key(i) == id {
			return i, true
		}
	}
	return -1, false
}

// number returns id's number, giving it the next one if it has none.
func (t *idTab) number(id string) int32 {
	h := t.hash(id)
	head, ok := t.first[h]
	if !ok {
		head = -1
	}
	for i := head; i >= 0; i = t.ents[i].next {
		if t.key(i) == id {
			return i
		}
	}
	c := len(t.buf) - 1
	if c < 0 || cap(t.buf[c])-len(t.buf[c]) < len(id) {
		t.buf = append(t.buf, make([]byte, 0, max(idChunk, len(id))))
		c++
	}
	off := len(t.buf[c])
	t.buf[c] = append(t.buf[c], id...)
	i := int32(len(t.ents))
	t.ents = append(t.ents, idEnt{chunk: uint32(c), off: uint32(off), n: uint32(len(id)), next: head})
	t.first[h] = i
	return i
}

// idBits is a set of id numbers.
type idBits []uint64

func (b idBits) has(i int32) bool {
	return i >= 0 && int(i>>6) < len(b) && b[i>>6]&(1<<(i&63)) != 0
}

func (b *idBits) add(i int32) {
	*b = atLeast(*b, int(i>>6)+1)
	(*b)[i>>6] |= 1 << (i & 63)
}

// atLeast returns s lengthened with zero values to n, if shorter.
func atLeast[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}
