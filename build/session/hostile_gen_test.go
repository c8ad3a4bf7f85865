package session

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteHostile writes the full-size hostile sessions for measurement when
// CCSITE_HOSTILE_DIR is set: one projects tree per shape under it
// (<dir>/<shape>/-home-x-proj/<uuid>.jsonl). CCSITE_HOSTILE_SCALE divides
// the sizes.
func TestWriteHostile(t *testing.T) {
	dir := os.Getenv("CCSITE_HOSTILE_DIR")
	if dir == "" {
		t.Skip("CCSITE_HOSTILE_DIR not set")
	}
	scale := 1
	if s, err := strconv.Atoi(os.Getenv("CCSITE_HOSTILE_SCALE")); err == nil && s > 0 {
		scale = s
	}
	sizes := map[string]int{HostileTiny: 1_000_000, HostileDupUUID: 20_000, HostileCycle: 50_000,
		HostileBranches: 100_000, HostileLongLine: 200 << 20}
	for _, shape := range hostileShapes {
		proj := filepath.Join(dir, shape, "-home-x-proj")
		if err := os.MkdirAll(proj, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := writeHostile(proj, shape, sizes[shape]/scale); err != nil {
			t.Fatal(err)
		}
	}
}
