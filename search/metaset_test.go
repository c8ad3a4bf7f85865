package search

import (
	"bufio"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestMetaSet: a set read from a base in number order, then changed at
// random (documents added, old and newest, replaced, deleted, pages
// scanned), holds what a map changed alike holds, and numbers it alike.
func TestMetaSet(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	mk := func(page, n int, at time.Duration) meta {
		m := meta{id: fmt.Sprintf("p/s%d.html#m-%d", page, n), title: fmt.Sprint(rnd.Int())}
		if at >= 0 {
			m.time = base.Add(at)
		}
		return m
	}
	for round := 0; round < 200; round++ {
		ref := map[string]meta{}
		for i := 0; i < rnd.Intn(300); i++ {
			m := mk(rnd.Intn(20), i, time.Duration(rnd.Intn(100)-5)*time.Minute)
			ref[m.id] = m
		}
		s := newMetaSet(numberedMap(ref), nil)
		for op := 0; op < rnd.Intn(40); op++ {
			switch rnd.Intn(5) {
			case 0: // the newest document, as an appended message
				m := mk(rnd.Intn(22), 1000+op, time.Duration(200+op)*time.Minute)
				s.set(m)
				ref[m.id] = m
			case 1: // an older one, or one without a time
				m := mk(rnd.Intn(22), 2000+op, time.Duration(rnd.Intn(100)-5)*time.Minute)
				s.set(m)
				ref[m.id] = m
			case 2: // a document replaced
				for id := range ref {
					m := ref[id]
					m.title = "new"
					s.set(m)
					ref[id] = m
					break
				}
			case 3: // a document deleted (or one not there); half the
				// time one of the set, maybe one added since the base
				id := fmt.Sprintf("p/s%d.html#m-%d", rnd.Intn(22), rnd.Intn(300))
				if ids := slices.Sorted(maps.Keys(ref)); len(ids) > 0 && rnd.Intn(2) == 0 {
					id = ids[rnd.Intn(len(ids))]
				}
				s.del(id)
				delete(ref, id)
			case 4: // a page's documents
				page := fmt.Sprintf("p/s%d.html", rnd.Intn(22))
				got := map[string]bool{}
				for _, id := range s.scan(map[string]bool{page: true}) {
					got[id] = true
				}
				want := map[string]bool{}
				for id := range ref {
					if pageOf(id) == page {
						want[id] = true
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d: scan(%s) = %v, want %v", round, page, got, want)
				}
			}
			if s.len() != len(ref) {
				t.Fatalf("round %d: len %d, want %d", round, s.len(), len(ref))
			}
		}
		for id, m := range ref {
			if g, ok := s.get(id); !ok || g != m {
				t.Fatalf("round %d: get(%s) = %+v %v, want %+v", round, id, g, ok, m)
			}
		}
		n := 0
		s.each(func(id string) {
			n++
			if _, ok := ref[id]; !ok {
				t.Fatalf("round %d: each gave %s, not in the set", round, id)
			}
		})
		if n != len(ref) {
			t.Fatalf("round %d: each gave %d ids, want %d", round, n, len(ref))
		}
		got, want := s.numbered(), numberedMap(ref)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: numbered differs:\n%v\n%v", round, got, want)
		}
		if s.len() != len(ref) || !reflect.DeepEqual(s.numbered(), want) {
			t.Fatalf("round %d: numbered twice differs", round)
		}
	}
}

// TestMetasAppend: sections appended to the metas file read back as one
// list, strings shared across sections or not; a file whose count was set
// to badCount (an update under way) opens no index; one cut short is an
// error.
func TestMetasAppend(t *testing.T) {
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var all []meta
	mk := func(n int) meta {
		return meta{id: fmt.Sprintf("p/s%d.html#m-%d", n%3, n), project: "p", session: fmt.Sprint(n % 3),
			title: fmt.Sprintf("title %d", n%5), role: "prompt", time: base.Add(time.Duration(n) * time.Minute), text: int64(n), hash: uint64(n) * 7}
	}
	for n := 0; n < 50; n++ {
		all = append(all, mk(n))
	}
	p := filepath.Join(t.TempDir(), "metas")
	if err := writeMetas(p, all); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 5; round++ {
		got, mf, err := readMetas(p, len(all))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !reflect.DeepEqual(got, all) || mf.sections != round+1 {
			t.Fatalf("round %d: read %d metas in %d sections, want %d in %d", round, len(got), mf.sections, len(all), round+1)
		}
		s := newMetaSet(got, nil)
		s.file = mf
		add := []meta{mk(100 + 2*round), mk(101 + 2*round)}
		add[1].title = fmt.Sprintf("a new title %d", round)
		for _, m := range add {
			s.set(m)
		}
		got2, ok := s.appendOnly()
		if !ok || !reflect.DeepEqual(got2, add) {
			t.Fatalf("round %d: appendOnly = %v, %v", round, got2, ok)
		}
		if err := setMetasCount(p, badCount); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(p)
		if _, _, err := readMetasHeader(bufio.NewReader(f)); err == nil {
			t.Errorf("round %d: a file being changed has a header", round)
		}
		f.Close()
		all = append(all, add...)
		if err := appendMetas(p, mf, add, len(all)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.numbered(), all) {
			t.Fatalf("round %d: numbered differs from the file's order", round)
		}
	}
	// Not appendable: an older document, or one replaced.
	got, mf, _ := readMetas(p, len(all))
	s := newMetaSet(got, nil)
	s.file = mf
	s.set(mk(1000))
	old := mk(3)
	old.id += "-x"
	s.set(old)
	if _, ok := s.appendOnly(); ok {
		t.Error("an older document appended")
	}
	s = newMetaSet(got, nil)
	s.file = mf
	m := got[len(got)-1]
	m.hash++
	s.set(m)
	if _, ok := s.appendOnly(); ok {
		t.Error("a replaced document appended")
	}
	data, _ := os.ReadFile(p)
	os.WriteFile(p, data[:len(data)-5], 0o644)
	if _, _, err := readMetas(p, len(all)); err == nil {
		t.Error("a file cut short read without error")
	}
}

// numberedMap is numbered of a map's metas.
func numberedMap(metas map[string]meta) []meta {
	return numbered(slices.Collect(maps.Values(metas)))
}

// TestPutMetas: the chunked metas against a map, through 30,000 random
// adds, replacements and deletes that cross chunk ends both ways.
func TestPutMetas(t *testing.T) {
	for _, mask := range []uint64{^uint64(0), 7} {
		t.Run(fmt.Sprintf("mask%x", mask), func(t *testing.T) {
			defer func(m uint64) { idHashMask = m }(idHashMask)
			idHashMask = mask // 7: ids chained eight ways
			testPutMetas(t)
		})
	}
}

// sameMeta: a and b are the same meta, their times the same instant (a
// put meta's is in UTC).
func sameMeta(a, b meta) bool {
	ta, tb := a.time, b.time
	a.time, b.time = time.Time{}, time.Time{}
	return a == b && ta.IsZero() == tb.IsZero() && ta.Equal(tb)
}

func testPutMetas(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	p := newPutMetas(nil)
	zone := time.FixedZone("x", 5*3600+1800)
	when := func(op int) time.Time {
		switch op % 3 {
		case 0:
			return time.Time{}
		case 1:
			return time.Unix(int64(op)*7919, int64(op)*104729%1e9).In(zone)
		}
		return time.Unix(-int64(op)*7919, 1).UTC()
	}
	ref := map[string]meta{}
	var ids []string
	most, crossedDown := 0, false
	for op := 0; op < 30000; op++ {
		adds, replaces := 2, 4 // of 10: shrinking ~0.4 a step
		if op%10000 < 6000 {
			adds, replaces = 7, 8 // growing ~0.5 a step
		}
		before := p.len()
		switch r := rnd.Intn(10); {
		case r < adds:
			m := meta{id: fmt.Sprintf("p/s.html#m-%d", op), project: "p", session: fmt.Sprint("s", op%5), title: "t",
				role: "prompt", model: fmt.Sprint("m", op%3), time: when(op), text: int64(op), hash: rnd.Uint64()}
			p.set(m)
			ref[m.id] = m
			ids = append(ids, m.id)
		case r < replaces && len(ids) > 0:
			id := ids[rnd.Intn(len(ids))]
			m := meta{id: id, title: "replaced", tool: "Bash", time: when(op + 1), text: int64(op)}
			p.set(m)
			ref[id] = m
		case len(ids) > 0:
			k := rnd.Intn(len(ids))
			id := ids[k]
			ids[k] = ids[len(ids)-1]
			ids = ids[:len(ids)-1]
			p.del(id)
			delete(ref, id)
		}
		most = max(most, p.len())
		if before%putChunk == 0 && p.len() < before {
			crossedDown = true
		}
		placed := 0
		for _, at := range p.pos {
			if at != 0 {
				placed++
			}
		}
		if p.len() != len(ref) || placed != len(ref) {
			t.Fatalf("op %d: len %d (%d placed), want %d", op, p.len(), placed, len(ref))
		}
		if op%997 == 0 || op == 29999 {
			for id, m := range ref {
				if g, ok := p.get(id); !ok || !sameMeta(g, m) {
					t.Fatalf("op %d: get(%s) = %+v %v, want %+v", op, id, g, ok, m)
				}
			}
			n := 0
			p.each(func(m *meta) {
				n++
				if !sameMeta(ref[m.id], *m) {
					t.Fatalf("op %d: each gave %+v, want %+v", op, *m, ref[m.id])
				}
			})
			if n != len(ref) {
				t.Fatalf("op %d: each gave %d metas, want %d", op, n, len(ref))
			}
			if want := numberedMap(ref); len(want) > 0 {
				got := numbered(p.all())
				if len(got) != len(want) {
					t.Fatalf("op %d: numbered gave %d metas, want %d", op, len(got), len(want))
				}
				for i := range got {
					if !sameMeta(got[i], want[i]) {
						t.Fatalf("op %d: numbered's %d is %+v, want %+v", op, i, got[i], want[i])
					}
				}
			}
			for _, id := range []string{"p/s.html#m-none", ""} {
				if m, ok := p.get(id); ok {
					t.Fatalf("op %d: get(%q) = %+v of no meta", op, id, m)
				}
			}
		}
	}
	if most < 3*putChunk || !crossedDown {
		t.Errorf("at most %d metas, a chunk's end crossed down: %v; the test means to cross them", most, crossedDown)
	}
}
