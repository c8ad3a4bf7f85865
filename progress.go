package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"ccsite/build"
)

// isTerminal tells whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// showProgress draws a progress bar on w every tick until stop is closed,
// then erases it: sessions done of all, input MB/s and the time left.
func showProgress(w io.Writer, p *build.Progress, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	m := &progressMeter{now: time.Now}
	tick := time.NewTicker(150 * time.Millisecond)
	defer tick.Stop()
	width := 0
	for {
		select {
		case <-stop:
			if width > 0 {
				fmt.Fprintf(w, "\r%s\r", strings.Repeat(" ", width))
			}
			return
		case <-tick.C:
		}
		line := m.line(p.Load())
		n := utf8.RuneCountInString(line)
		pad := ""
		if n < width {
			pad = strings.Repeat(" ", width-n)
		}
		fmt.Fprintf(w, "\r%s%s", line, pad)
		width = n
	}
}

// ETA thresholds: the time left is shown once this share of the bytes is
// read and this long has passed since reading began. Earlier, a few slow
// first files (or a large one) made a 19-second build say "ETA 4m".
const (
	etaMinShare = 0.1
	etaMinTime  = 2 * time.Second
)

// progressMeter makes the frames of the bar. Rate and time left are
// measured from the first frame with the sessions counted (the end of the
// plan): finding and keeping the sources before it is not reading.
type progressMeter struct {
	now       func() time.Time
	loadStart time.Time
}

// line is one frame of the bar: "reading…" until the sessions are
// counted; then sessions done of all, MB/s, and the time left from the
// bytes read so far, once enough are read to tell.
func (m *progressMeter) line(n, total, bytes, totalBytes int64, phase string) string {
	const bar = 24
	now := m.now()
	if total == 0 && totalBytes == 0 {
		if phase == "" || phase == "discover" {
			return "ccsite build: reading…"
		}
		return "ccsite build: " + phaseLabel(phase)
	}
	if m.loadStart.IsZero() {
		m.loadStart = now
	}
	took := now.Sub(m.loadStart)
	frac := 0.0
	if totalBytes > 0 {
		frac = float64(bytes) / float64(totalBytes)
	}
	frac = min(max(frac, 0), 1)
	fill := int(frac * bar)
	var b strings.Builder
	fmt.Fprintf(&b, "ccsite build: [%s%s] %d/%d sessions", strings.Repeat("=", fill), strings.Repeat(" ", bar-fill), n, total)
	if bytes > 0 && took > 0 {
		fmt.Fprintf(&b, " · %.1f MB/s", float64(bytes)/(1<<20)/took.Seconds())
	}
	if bytes < totalBytes && frac >= etaMinShare && took >= etaMinTime {
		left := time.Duration(float64(took) * float64(totalBytes-bytes) / float64(bytes))
		fmt.Fprintf(&b, " · ETA %s", left.Round(time.Second))
	}
	b.WriteString(" · " + phaseLabel(phase))
	return b.String()
}

// phaseLabel names what the build is doing after the phase last ended.
func phaseLabel(last string) string {
	switch last {
	case "", "discover", "plan":
		return "pages"
	case "pages":
		return "search index"
	}
	return "finishing"
}
