package redact

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// cleanMin is the shortest value remembered as clean: every value the
// rules see (minSecret bytes or more). A short value costs little to
// scan, but a record's metadata (its cwd, branch, version, slug, model)
// is the same on every line, and once those are known clean most records
// of a session leave gitleaks nothing to scan, sparing its cost per call
// (lowering the text, its keyword search, a pass over every rule): 15.6 of
// a cold 1 GB build's 113 CPU-s went to redaction with only values of 64
// bytes or more remembered.
const cleanMin = minSecret

// cleanLong is the length from which a value counts against cleanMax;
// shorter ones count against cleanShortMax.
const cleanLong = 64

// cleanMax bounds how many values of cleanLong bytes or more a Redactor
// remembers (about 40 bytes each): enough for a large archive's distinct
// tool outputs, file contents and prompts, bounded whatever its size.
const cleanMax = 1 << 20

// cleanShortMax bounds the shorter values remembered, apart: values unique
// to one record (a request's id) must not use up the room of the long
// ones, which cost the most to scan again.
const cleanShortMax = 1 << 20

// cleanSet remembers the values the rules found nothing in, for the life
// of a Redactor (one build): a transcript holds the same text many times
// (a tool's output in its result block and in toolUseResult, files read
// again, sub-agent messages in the parent's progress records, history
// replayed by a resumed session), and each is scanned once. Values are
// keyed by two independent 64-bit hashes of the value and of the member
// name it is judged with.
type cleanSet struct {
	seeds [2]maphash.Seed
	// rawSeeds key a value by its JSON literal, escapes and all
	// (rawKey): another pair of hashes, so that no literal's key is a
	// decoded value's.
	rawSeeds [2]maphash.Seed
	n        atomic.Int64 // values of cleanLong bytes or more
	nShort   atomic.Int64 // shorter values
	shards   [64]struct {
		mu sync.Mutex
		m  map[[2]uint64]struct{}
	}
}

func newCleanSet() *cleanSet {
	c := &cleanSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		rawSeeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	for i := range c.shards {
		c.shards[i].m = map[[2]uint64]struct{}{}
	}
	return c
}

func (c *cleanSet) key(name, v string) [2]uint64 { return keyWith(&c.seeds, name, v) }

// rawKey is the key of a value by lit, its JSON literal as a line holds
// it (quotes excluded): a literal decodes to one value only, so a literal
// found clean is a value found clean, known without decoding it.
func (c *cleanSet) rawKey(name string, lit []byte) [2]uint64 {
	return keyWith(&c.rawSeeds, name, view(lit))
}

// keyWith hashes name and v with each of seeds.
func keyWith(seeds *[2]maphash.Seed, name, v string) [2]uint64 {
	var k [2]uint64
	for i, seed := range seeds {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(name)
		h.WriteByte(0)
		h.WriteString(v)
		k[i] = h.Sum64()
	}
	return k
}

func (c *cleanSet) has(k [2]uint64) bool {
	s := &c.shards[k[0]%64]
	s.mu.Lock()
	_, ok := s.m[k]
	s.mu.Unlock()
	return ok
}

// add remembers the value of key k, size bytes long, as clean.
func (c *cleanSet) add(k [2]uint64, size int) {
	n, limit := &c.n, int64(cleanMax)
	if size < cleanLong {
		n, limit = &c.nShort, cleanShortMax
	}
	if n.Load() >= limit {
		return
	}
	s := &c.shards[k[0]%64]
	s.mu.Lock()
	if _, ok := s.m[k]; !ok {
		s.m[k] = struct{}{}
		n.Add(1)
	}
	s.mu.Unlock()
}
