package build

import (
	"context"
	"os"
	"testing"

	"ccsite/build/archive"
)

// BenchmarkLoad measures discovery + parse + model over the projects tree
// named by CCSITE_BENCH_TREE (see scripts/bench.sh), reporting MB/s.
func BenchmarkLoad(b *testing.B) {
	dir := os.Getenv("CCSITE_BENCH_TREE")
	if dir == "" {
		b.Skip("CCSITE_BENCH_TREE not set")
	}
	ctx := context.Background()
	for b.Loop() {
		a, err := archive.Discover(ctx, []string{dir})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(a.Bytes)
		n := 0
		err = Load(ctx, a, LoadOptions{}, func(l Loaded) error {
			n++
			return nil
		})
		if err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkBuildSite measures a whole site build (parse, render, write) of
// the tree named by CCSITE_BENCH_TREE, reporting input MB/s.
func BenchmarkBuildSite(b *testing.B) {
	dir := os.Getenv("CCSITE_BENCH_TREE")
	if dir == "" {
		b.Skip("CCSITE_BENCH_TREE not set")
	}
	out := b.TempDir()
	for b.Loop() {
		sum, err := Run(context.Background(), Config{Paths: []string{dir}, Out: out})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(sum.Bytes)
	}
}
