package redact

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkCorpus redacts every line of the real corpus ($CCSITE_CORPUS),
// with no cache of clean lines and nothing remembered between runs: the
// cost a cold build pays.
func BenchmarkCorpus(b *testing.B) {
	lines, size := corpusLines(b)
	r := newRedactor(b)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		// A new build's memory of clean values.
		r.clean = newCleanSet()
		for _, l := range lines {
			r.Line("f", l)
		}
	}
}

// corpusLines reads every line of the corpus ($CCSITE_CORPUS).
func corpusLines(b *testing.B) (lines [][]byte, size int64) {
	eachCorpusLine(b, func(_ string, line []byte) {
		lines = append(lines, append([]byte(nil), line...))
		size += int64(len(line))
	})
	return lines, size
}

// eachCorpusLine calls fn with every line of every transcript of the
// corpus ($CCSITE_CORPUS; the test skips without it) and returns how many
// files it read.
func eachCorpusLine(tb testing.TB, fn func(file string, line []byte)) (files int) {
	tb.Helper()
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		tb.Skip("CCSITE_CORPUS not set")
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		files++
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			fn(p, sc.Bytes())
		}
		return sc.Err()
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// BenchmarkCorpusParallel is BenchmarkCorpus on one goroutine per core,
// as a build redacts.
func BenchmarkCorpusParallel(b *testing.B) {
	lines, size := corpusLines(b)
	r := newRedactor(b)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		r.clean = newCleanSet()
		var wg sync.WaitGroup
		next := atomic.Int64{}
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= len(lines) {
						return
					}
					r.Line("f", lines[i])
				}
			})
		}
		wg.Wait()
	}
}
