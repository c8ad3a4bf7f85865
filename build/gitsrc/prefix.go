package gitsrc

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"path"
	"sort"
	"strings"
)

// Entire's copies of a session grow by appending: an earlier checkpoint's
// full.jsonl is the first bytes of a later one's, and content_hash.txt
// beside it is its sha256. Streaming a session's newest copy then tells
// the last uuid of each earlier copy whose hash is that of the newest's
// first bytes, without reading the earlier copy (a session in tens of
// checkpoints would otherwise be read tens of times).

// prefixPlan is the earlier copies to look for in a newest copy.
type prefixPlan struct {
	copies []*sessionCopy // by size
	hashes []string       // their content_hash.txt, "sha256:<hex>"
}

// planPrefixes reads the content hashes of the earlier copies of each
// session whose newest copy is in best, and notes what to look for while
// the newest is read.
func (ex *extractor) planPrefixes(copies []*sessionCopy, best map[string]*sessionCopy) error {
	hashes := map[string]blob{}
	for _, b := range ex.blobs {
		if path.Base(b.path) == "content_hash.txt" && b.size < 1<<10 {
			hashes[path.Dir(b.path)] = b
		}
	}
	plans := map[string]*prefixPlan{}
	var want []blob
	var owners []*sessionCopy
	for _, c := range copies {
		b := best[c.sid]
		if c.md == nil || b == nil || b == c || b.md == nil || c.size <= 0 || c.size >= b.size {
			continue
		}
		h, ok := hashes[path.Dir(c.path)]
		if !ok {
			continue
		}
		want, owners = append(want, h), append(owners, c)
	}
	err := ex.cf.fetch(oidsOf(want), func(i int, _ string, _ int64, body io.Reader) error {
		data, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		sum := strings.TrimSpace(string(data))
		if !strings.HasPrefix(sum, "sha256:") {
			return nil
		}
		c := owners[i]
		p := plans[best[c.sid].oid]
		if p == nil {
			p = &prefixPlan{}
			plans[best[c.sid].oid] = p
		}
		p.copies, p.hashes = append(p.copies, c), append(p.hashes, sum)
		return nil
	})
	for _, p := range plans {
		sort.Sort(p)
	}
	ex.prefixes = plans
	return err
}

func (p *prefixPlan) Len() int           { return len(p.copies) }
func (p *prefixPlan) Less(i, j int) bool { return p.copies[i].size < p.copies[j].size }
func (p *prefixPlan) Swap(i, j int) {
	p.copies[i], p.copies[j] = p.copies[j], p.copies[i]
	p.hashes[i], p.hashes[j] = p.hashes[j], p.hashes[i]
}

// prefixWatch streams a newest copy into its sniffer, hashing it, and
// stops at each earlier copy's length: when the hash so far is the
// earlier copy's and a line ends there, the sniffer's last uuid is its.
type prefixWatch struct {
	plan *prefixPlan
	sn   *sniffer
	h    hash.Hash
	n    int64
	last byte
	i    int
}

func newPrefixWatch(plan *prefixPlan, sn *sniffer) *prefixWatch {
	return &prefixWatch{plan: plan, sn: sn, h: sha256.New()}
}

func (w *prefixWatch) Write(b []byte) (int, error) {
	total := len(b)
	for len(b) > 0 {
		if w.i < len(w.plan.copies) {
			if need := w.plan.copies[w.i].size - w.n; need <= int64(len(b)) {
				w.write(b[:need])
				b = b[need:]
				w.check()
				continue
			}
		}
		w.write(b)
		b = nil
	}
	return total, nil
}

func (w *prefixWatch) write(b []byte) {
	if len(b) == 0 {
		return
	}
	w.sn.Write(b)
	if w.i < len(w.plan.copies) {
		w.h.Write(b)
	}
	w.n += int64(len(b))
	w.last = b[len(b)-1]
}

func (w *prefixWatch) check() {
	for ; w.i < len(w.plan.copies) && w.plan.copies[w.i].size == w.n; w.i++ {
		if w.last == '\n' && "sha256:"+hex.EncodeToString(w.h.Sum(nil)) == w.plan.hashes[w.i] {
			w.plan.copies[w.i].last = w.sn.lastUUID()
		}
	}
}
