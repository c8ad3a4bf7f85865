package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"ccsite/build"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func frame(m *progressMeter, n, total, b, tb int64, phase string) string {
	return m.line(n, total, b, tb, phase)
}

// TestProgressLine: the bar with sessions done of all, the rate and the
// time left, measured on the bytes read since the sessions began to be
// read.
func TestProgressLine(t *testing.T) {
	clk := newFakeClock()
	m := &progressMeter{now: clk.now}
	frame(m, 0, 0, 0, 0, "discover")
	clk.add(3 * time.Second) // discovering: not part of the rate
	frame(m, 0, 200, 0, 100<<20, "plan")
	clk.add(5 * time.Second)
	got := frame(m, 50, 200, 25<<20, 100<<20, "pages")
	for _, want := range []string{"[======                  ]", "50/200 sessions", "5.0 MB/s", "ETA 15s", "search index"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

// TestProgressNeverZeroOfZero: before the sessions are counted the line
// says it is reading, never "0/0 sessions".
func TestProgressNeverZeroOfZero(t *testing.T) {
	clk := newFakeClock()
	m := &progressMeter{now: clk.now}
	for _, ph := range []string{"", "discover"} {
		got := frame(m, 0, 0, 0, 0, ph)
		if strings.Contains(got, "0/0") || !strings.Contains(got, "reading…") {
			t.Errorf("phase %q: %q, want reading… and no 0/0", ph, got)
		}
		clk.add(time.Second)
	}
}

// TestProgressETAHonest: no time left is shown until a tenth of the bytes
// is read and two seconds have passed since reading began; it is based on
// bytes, not sessions (a few large sessions late in the archive), and the
// time spent finding the sources is not counted. A 19-second build once
// showed "ETA 4m" at its start.
func TestProgressETAHonest(t *testing.T) {
	clk := newFakeClock()
	m := &progressMeter{now: clk.now}
	frame(m, 0, 0, 0, 0, "discover")
	clk.add(10 * time.Second) // a slow discovery
	frame(m, 0, 100, 0, 1000<<20, "plan")
	clk.add(500 * time.Millisecond)
	// 1% of the bytes in half a second: too little to tell.
	if got := frame(m, 90, 100, 10<<20, 1000<<20, "plan"); strings.Contains(got, "ETA") {
		t.Errorf("early: %q shows an ETA", got)
	}
	clk.add(500 * time.Millisecond)
	// 20% of the bytes, but only one second.
	if got := frame(m, 90, 100, 200<<20, 1000<<20, "plan"); strings.Contains(got, "ETA") {
		t.Errorf("after 1 s: %q shows an ETA", got)
	}
	clk.add(time.Second)
	// 25% in 2 s: 6 s left, though 90 of 100 sessions are done.
	got := frame(m, 90, 100, 250<<20, 1000<<20, "plan")
	if !strings.Contains(got, "ETA 6s") || !strings.Contains(got, "90/100 sessions") {
		t.Errorf("after 2 s: %q, want ETA 6s", got)
	}
	clk.add(6 * time.Second)
	if got := frame(m, 100, 100, 1000<<20, 1000<<20, "pages"); strings.Contains(got, "ETA") || !strings.Contains(got, "search index") {
		t.Errorf("all read: %q", got)
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
	if strings.Contains(out.String(), "0/0") {
		t.Errorf("the bar shows 0/0: %q", out.String())
	}
}
