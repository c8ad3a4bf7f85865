package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"ccsite/build"
)

func TestProgressLine(t *testing.T) {
	got := progressLine(50, 200, 25<<20, 100<<20, "pages", 5*time.Second)
	for _, want := range []string{"[======                  ]", "50/200 sessions", "5.0 MB/s", "ETA 15s", "search index"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if got := progressLine(0, 0, 0, 0, "", 0); !strings.Contains(got, "ETA --") {
		t.Errorf("at the start: %q", got)
	}
}

// TestProgressNotOnPipes: the bar is drawn only on a terminal.
func TestProgressNotOnPipes(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
	var out bytes.Buffer
	stop, done := make(chan struct{}), make(chan struct{})
	go showProgress(&out, &build.Progress{}, stop, done)
	time.Sleep(400 * time.Millisecond)
	close(stop)
	<-done
	if !strings.Contains(out.String(), "\r") || !strings.HasSuffix(out.String(), "\r") {
		t.Errorf("the bar is not redrawn in place and erased: %q", out.String())
	}
}
