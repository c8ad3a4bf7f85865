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
	r, err := New(Options{Secrets: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
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
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		b.Skip("CCSITE_CORPUS not set")
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
			size += int64(len(sc.Bytes()))
		}
		return nil
	})
	return lines, size
}

// BenchmarkCorpusParallel is BenchmarkCorpus on one goroutine per core,
// as a build redacts.
func BenchmarkCorpusParallel(b *testing.B) {
	lines, size := corpusLines(b)
	r, err := New(Options{Secrets: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
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
