package search

import (
	"math/rand/v2"
	"testing"
)

// TestVarint: each number's code is its five-bit groups, most significant
// first, the last from the first 32 characters and the others from the
// last 32, appended after what the slice held, whatever its room.
func TestVarint(t *testing.T) {
	want := func(n uint64) string {
		s := string(digits[n&31])
		for n >>= 5; n > 0; n >>= 5 {
			s = string(digits[32+n&31]) + s
		}
		return s
	}
	r := rand.New(rand.NewPCG(3, 4))
	nums := []uint64{0, 1, 31, 32, 33, 1023, 1024, 1<<35 - 1, 1 << 35, 1<<64 - 1}
	for range 5000 {
		nums = append(nums, r.Uint64()>>r.IntN(64))
	}
	for _, n := range nums {
		for _, room := range []int{0, 1, 13} {
			b := make([]byte, 2, 2+room)
			b[0], b[1] = 'x', 'y'
			if got := string(varint(b, n)); got != "xy"+want(n) {
				t.Fatalf("varint(%d) with room %d = %q, want %q", n, room, got, "xy"+want(n))
			}
		}
	}
}
