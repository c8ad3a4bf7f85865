package markup

import (
	"regexp"
	"strings"
	"testing"

	"ccsite/internal/corpustest"

	"github.com/alecthomas/chroma/v2/lexers"
)

// fence finds the code blocks of Markdown text: language and code.
var fence = regexp.MustCompile("(?ms)^```([\\w+#-]+)\\n(.*?)^```$")

// TestFastLexerCorpus compares the fast lexers with chroma's, token for
// token, on what the corpus ($CCSITE_CORPUS) has them highlight: the files
// its sessions write (by name) and the code blocks of their messages (by
// language), each under the highlighting limits.
func TestFastLexerCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	h := NewHighlighter()
	type block struct{ lang, name, code string }
	var blocks []block
	corpustest.EachObject(t, func(v map[string]any) {
		if name, ok := v["file_path"].(string); ok {
			if code, ok := v["content"].(string); ok {
				blocks = append(blocks, block{"", name, code})
			}
		}
		if text, ok := v["text"].(string); ok {
			for _, m := range fence.FindAllStringSubmatch(text, -1) {
				blocks = append(blocks, block{m[1], "", m[2]})
			}
		}
	})
	seen := map[string]bool{}
	compared, bad := 0, 0
	for _, b := range blocks {
		key := b.lang + "\x00" + b.name + "\x00" + b.code
		if seen[key] || len(b.code) > h.MaxBytes || strings.Count(b.code, "\n") >= h.MaxLines {
			continue
		}
		seen[key] = true
		l := h.pickLexer(b.lang, b.name)
		if l == nil {
			continue
		}
		ref := lexers.Get(l.Config().Name)
		code := ensureLF(b.code)
		want, got := tokens(t, ref, code), tokens(t, l, code)
		compared++
		same := len(want) == len(got)
		for i := 0; same && i < len(want); i++ {
			same = want[i] == got[i]
		}
		if !same {
			if bad++; bad <= 5 {
				t.Errorf("%s %s (%d bytes): %d tokens, want %d", l.Config().Name, b.name, len(code), len(got), len(want))
			}
		}
	}
	if compared < 500 {
		t.Errorf("only %d blocks compared", compared)
	}
	t.Logf("%d blocks compared, %d differ", compared, bad)
}
