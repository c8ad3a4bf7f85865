package main

import "testing"

// TestNextLimit: the soft limit stays while the live heap is under three
// quarters of it, then follows it (twice the live heap), bounded by most.
func TestNextLimit(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct{ live, limit, most, want int64 }{
		{300 * mb, 600 * mb, 12000 * mb, 600 * mb},  // a normal build: paced by the limit
		{450 * mb, 600 * mb, 12000 * mb, 600 * mb},  // three quarters: still
		{451 * mb, 600 * mb, 12000 * mb, 902 * mb},  // past it: twice the live heap
		{5000 * mb, 902 * mb, 0, 10000 * mb},        // no bound known
		{5000 * mb, 902 * mb, 4000 * mb, 4000 * mb}, // bounded by half the memory
		{900 * mb, 1000 * mb, 500 * mb, 1000 * mb},  // never lowered by the bound
	} {
		if got := nextLimit(c.live, c.limit, c.most); got != c.want {
			t.Errorf("nextLimit(%d, %d, %d MB) = %d MB, want %d MB", c.live/mb, c.limit/mb, c.most/mb, got/mb, c.want/mb)
		}
	}
	if totalMemory() < 0 {
		t.Error("totalMemory < 0")
	}
}
