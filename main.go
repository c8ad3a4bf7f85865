// Command ccsite turns Claude Code session transcripts into a static website.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	tuneGC(os.Getenv)
	if p := os.Getenv("CCSITE_CPUPROFILE"); p != "" { // for measuring: go tool pprof ccsite FILE
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if p := os.Getenv("CCSITE_MEMPROFILE"); p != "" { // the heap at its peak, sampled each second
		go peakHeap(p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// A build must stop within a second; serve gets the second it gives
	// requests in flight, and time to close.
	grace := 3 * time.Second
	if len(os.Args) > 1 && (os.Args[1] == "build" || os.Args[1] == "inspect") {
		grace = 900 * time.Millisecond
	}
	stopOnSignal(cancel, grace)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	cancel()
	pprof.StopCPUProfile()
	os.Exit(code)
}

// peakHeap writes a heap profile to path whenever the heap in use is the
// largest seen so far, checking each second: for measuring memory.
func peakHeap(path string) {
	var peak uint64
	var ms runtime.MemStats
	for range time.Tick(time.Second) {
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse <= peak {
			continue
		}
		peak = ms.HeapInuse
		if f, err := os.Create(path); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
}

// stopOnSignal cancels the command on SIGINT or SIGTERM, and ends the
// process if it has not stopped grace later (or at a second signal):
// a build stopped anywhere leaves every file whole (each is written to a
// temporary name and renamed) and its journal tells the next build, and
// the kernel releases the output folder's lock.
func stopOnSignal(cancel context.CancelFunc, grace time.Duration) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		select {
		case <-sigs:
		case <-time.After(grace):
		}
		fmt.Fprintln(os.Stderr, "ccsite: interrupted")
		pprof.StopCPUProfile()
		os.Exit(exitFail)
	}()
}

// tuneGC keeps the heap under a soft limit (GOMEMLIMIT 600 MiB) and lets
// it grow to three times what the last collection left (GOGC 200) before
// the next one; the environment variables override either. Measured on
// the corpus tree (cold builds, user+sys CPU): GOGC 200 against Go's
// default 100 won six of six alternated pairs and six of six concurrent
// ones, 0.40-0.43 CPU-s less (5%), for 100-130 MB more peak RSS (300 ->
// 430 MB); GOGC 300 was no better than 200 and GOGC off no better either
// (less collection, more page faults). On the 1 GB tree the soft limit
// paces the collector either way (peak RSS 670-679 MB both), and a warm
// --force was the same. GOGC 400, when the build allocated far more, had
// cost more than it saved (every new page of heap is a page fault).
//
// A soft limit below what one session keeps live (a session of a million
// records) made the collector run back to back: 140 CPU-s where 10 would
// do. So the limit follows the live heap (followLiveHeap): once what a
// collection leaves passes three quarters of it, it becomes twice that.
func tuneGC(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softLimit)
		go followLiveHeap(softLimit)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}

// softLimit is the soft memory limit a build starts with.
const softLimit = 600 << 20

// followLiveHeap raises the soft memory limit, limit to begin with, when
// the live heap nears it (see nextLimit), looking ten times a second.
func followLiveHeap(limit int64) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for range time.Tick(100 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if next := nextLimit(int64(sample[0].Value.Uint64()), limit, memCap); next != limit {
			limit = next
			debug.SetMemoryLimit(limit)
		}
	}
}

// nextLimit is the soft limit for a live heap of live bytes under limit:
// limit while live stays under three quarters of it, else twice live, so
// the collector is paced by the limit but never runs back to back; never
// above most (half the machine's memory, 0: no bound), where running
// back to back is the lesser harm.
func nextLimit(live, limit, most int64) int64 {
	if live*4 <= limit*3 {
		return limit
	}
	next := 2 * live
	if most > 0 {
		next = min(next, max(most, limit))
	}
	return next
}

// memCap is half the machine's memory, 0 where it is not known.
var memCap = totalMemory() / 2
