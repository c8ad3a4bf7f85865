package redact

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"ccsite/internal/corpustest"
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
func corpusLines(b testing.TB) (lines [][]byte, size int64) {
	corpustest.EachLine(b, func(_ string, line []byte) {
		lines = append(lines, append([]byte(nil), line...))
		size += int64(len(line))
	})
	return lines, size
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
