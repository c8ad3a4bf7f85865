package export

import (
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
	"ccsite/build/transcript"
)

// TestExportTokens: the exports count the advisor tool's tokens and say
// when an output count is a partial record.
func TestExportTokens(t *testing.T) {
	t.Parallel()
	f, err := transcript.ReadFile(filepath.Join("..", "render", "testdata", "tokens", "advisor.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := session.Build(f, session.Options{})
	var md strings.Builder
	if err := Markdown(&md, s, "p"); err != nil {
		t.Fatal(err)
	}
	if want := "tokens 41255 in, ≥ 1846 out (~2042 est., 1 partial record), "; !strings.Contains(md.String(), want) {
		t.Errorf("Markdown lacks %q:\n%s", want, md.String())
	}
	var js strings.Builder
	if err := JSON(&js, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"output": 1846`, `"partialOutputs": 1`, `"outputMissing": 196`, `"totalAPIDuration": 41000`, `"totalLinesAdded": 120`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}
