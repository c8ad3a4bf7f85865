// Command ccsite turns Claude Code session transcripts into a static website.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
)

func main() {
	tuneGC(os.Getenv)
	if p := os.Getenv("CCSITE_CPUPROFILE"); p != "" { // for measuring: go tool pprof ccsite FILE
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	pprof.StopCPUProfile()
	os.Exit(code)
}

// tuneGC trades memory for speed: parsing allocates a lot of short-lived
// data, so the collector runs less often (GOGC 400) under a soft limit that
// keeps the heap bounded (GOMEMLIMIT 600 MiB). Either environment variable
// overrides its default.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(600 << 20)
	}
}
