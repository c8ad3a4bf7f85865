package search

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestIDTab: numbers against a map, with ids of every length (empty, and
// longer than a chunk), with the hash whole and narrowed to three bits
// (every id chained with an eighth of the others).
func TestIDTab(t *testing.T) {
	for _, mask := range []uint64{^uint64(0), 7} {
		t.Run(fmt.Sprintf("mask%x", mask), func(t *testing.T) {
			defer func(m uint64) { idHashMask = m }(idHashMask)
			idHashMask = mask
			rnd := rand.New(rand.NewSource(int64(mask & 0xff)))
			tab := newIDTab()
			ref := map[string]int32{}
			var ids []string
			for op := 0; op < 6000; op++ {
				var id string
				switch r := rnd.Intn(10); {
				case r < 4 && len(ids) > 0:
					id = ids[rnd.Intn(len(ids))] // again
				case r < 5:
					id = strings.Repeat("x", rnd.Intn(3)*idChunk/2+rnd.Intn(3)) // "", short, a chunk and more
				default:
					id = fmt.Sprintf("p%d/s.html#m-%d", rnd.Intn(50), op)
				}
				if _, ok := tab.find(id); ok != hasKey(ref, id) {
					t.Fatalf("op %d: find(%.20q) says %v", op, id, ok)
				}
				n := tab.number(id)
				if want, ok := ref[id]; ok && n != want {
					t.Fatalf("op %d: %.20q numbered %d, then %d", op, id, want, n)
				} else if !ok {
					if int(n) != len(ref) {
						t.Fatalf("op %d: a new id numbered %d, want %d", op, n, len(ref))
					}
					ref[id] = n
					ids = append(ids, id)
				}
			}
			if tab.len() != len(ref) {
				t.Fatalf("%d numbers, want %d", tab.len(), len(ref))
			}
			for id, n := range ref {
				if got := tab.key(n); got != id {
					t.Fatalf("key(%d) = %.20q, want %.20q", n, got, id)
				}
				if got, ok := tab.find(id); !ok || got != n {
					t.Fatalf("find(%.20q) = %d %v, want %d", id, got, ok, n)
				}
			}
			if _, ok := tab.find("never"); ok {
				t.Fatal("found an id never numbered")
			}
		})
	}
	var b idBits
	for _, i := range []int32{0, 63, 64, 1000} {
		b.add(i)
	}
	for i := int32(-1); i < 1100; i++ {
		if want := i == 0 || i == 63 || i == 64 || i == 1000; b.has(i) != want {
			t.Fatalf("idBits.has(%d) = %v", i, !want)
		}
	}
}

func hasKey(m map[string]int32, k string) bool { _, ok := m[k]; return ok }
