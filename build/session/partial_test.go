package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/transcript"
)

// TestPartialOutputCorpus: on every session of the corpus ($CCSITE_CORPUS),
// no turn's output figure contradicts what its answers wrote: a turn
// whose recorded count is under one token per 8 bytes written holds a
// response marked partial (and is shown as an estimate). It logs how many
// responses and turns the records under-count.
func TestPartialOutputCorpus(t *testing.T) {
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	var responses, partial, longer, longerPartial, turns, before, after int
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		f, err := transcript.ReadFile(path)
		if err != nil {
			return nil
		}
		s := Build(f, Options{})
		for _, ss := range append([]*Session{s}, s.Agents...) {
			written := make([]int64, len(ss.Turns))
			for _, a := range collectResponses(ss) {
				if a.r.Model == "<synthetic>" {
					continue
				}
				responses++
				if a.partial() {
					partial++
				}
				if a.written >= 1000 {
					longer++
					if a.partial() {
						longerPartial++
					}
				}
				if a.r.Turn >= 1 && a.r.Turn <= len(written) {
					written[a.r.Turn-1] += a.written
				}
			}
			for i, tt := range TurnTokens(ss) {
				if tt.Output == 0 {
					continue
				}
				turns++
				if PartialOutput(tt.Output, written[i]) {
					before++
					if tt.Partial == 0 {
						after++
						t.Errorf("%s turn %d: %d tokens out for %d bytes written, not marked partial", path, i+1, tt.Output, written[i])
					}
				}
			}
		}
		return nil
	})
	t.Logf("responses %d, partial %d; answers of 1,000+ bytes %d, partial %d; turns with a count %d, contradicted before %d, after %d",
		responses, partial, longer, longerPartial, turns, before, after)
}
