package redact

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// cleanMin is the shortest value worth remembering as clean: shorter ones
// cost less to scan again than to look up.
const cleanMin = 64

// cleanMax bounds how many values a Redactor remembers (about 40 bytes
// each): enough for a large archive's distinct tool outputs, file
// contents and prompts, bounded whatever its size.
const cleanMax = 1 << 20

// cleanSet remembers the values the rules found nothing in, for the life
// of a Redactor (one build): a transcript holds the same text many times
// (a tool's output in its result block and in toolUseResult, files read
// again, sub-agent messages in the parent's progress records, history
// replayed by a resumed session), and each is scanned once. Values are
// keyed by two independent 64-bit hashes of the value and of the member
// name it is judged with.
type cleanSet struct {
	seeds  [2]maphash.Seed
	n      atomic.Int64
	shards [64]struct {
		mu sync.Mutex
		m  map[[2]uint64]struct{}
	}
}

func newCleanSet() *cleanSet {
	c := &cleanSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	for i := range c.shards {
		c.shards[i].m = map[[2]uint64]struct{}{}
	}
	return c
}

func (c *cleanSet) key(name, v string) [2]uint64 {
	var k [2]uint64
	for i, seed := range c.seeds {
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

func (c *cleanSet) add(k [2]uint64) {
	if c.n.Load() >= cleanMax {
		return
	}
	s := &c.shards[k[0]%64]
	s.mu.Lock()
	if _, ok := s.m[k]; !ok {
		s.m[k] = struct{}{}
		c.n.Add(1)
	}
	s.mu.Unlock()
}
