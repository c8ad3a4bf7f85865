package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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
	start := time.Now()
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
		n, total, bytes, totalBytes, phase := p.Load()
		line := progressLine(n, total, bytes, totalBytes, phase, time.Since(start))
		pad := ""
		if len(line) < width {
			pad = strings.Repeat(" ", width-len(line))
		}
		fmt.Fprintf(w, "\r%s%s", line, pad)
		width = len(line)
	}
}

// progressLine is one frame of the bar.
func progressLine(n, total, bytes, totalBytes int64, phase string, took time.Duration) string {
	const bar = 24
	frac := 0.0
	if totalBytes > 0 {
		frac = float64(bytes) / float64(totalBytes)
	}
	frac = min(max(frac, 0), 1)
	fill := int(frac * bar)
	rate := float64(bytes) / (1 << 20) / max(took.Seconds(), 0.001)
	eta := "--"
	if bytes > 0 && bytes < totalBytes {
		left := time.Duration(float64(took) * float64(totalBytes-bytes) / float64(bytes))
		eta = left.Round(time.Second).String()
	} else if bytes >= totalBytes && totalBytes > 0 {
		eta = "0s"
	}
	if phase == "" || phase == "discover" || phase == "plan" {
		phase = "pages"
	} else if phase == "pages" {
		phase = "search index"
	} else {
		phase = "finishing"
	}
	return fmt.Sprintf("ccsite build: [%s%s] %d/%d sessions · %.1f MB/s · ETA %s · %s",
		strings.Repeat("=", fill), strings.Repeat(" ", bar-fill), n, total, rate, eta, phase)
}
