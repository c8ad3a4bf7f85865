package markup

import (
	"fmt"
	"strings"
	"testing"
)

func bigJSON(n int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  {\n    \"id\": %d,\n    \"name\": \"item <%d> & co\",\n    \"ok\": true,\n    \"tags\": null\n  }", i, i)
	}
	b.WriteString("\n]")
	return b.String()
}

func TestJSONHighlightsAndEscapes(t *testing.T) {
	h := NewHighlighter()
	src := bigJSON(100 << 10) // over Block's limit, under MaxJSONBytes
	out := string(h.JSON(src))
	if strings.Contains(out, "plain") {
		t.Fatalf("100 KB of JSON shown plain")
	}
	if !strings.Contains(out, `<span class="`) || !strings.Contains(out, "item &lt;1&gt; &amp; co") {
		t.Fatalf("not highlighted and escaped: %.300s", out)
	}
	if strings.Contains(out, "<1>") {
		t.Fatal("JSON text not escaped")
	}
	big := string(h.JSON(bigJSON(MaxJSONBytes + 10)))
	if !strings.Contains(big, `class="chroma plain too-big"`) {
		t.Fatalf("JSON over MaxJSONBytes highlighted: %.200s", big)
	}
}

func BenchmarkJSON256K(b *testing.B) {
	src := bigJSON(MaxJSONBytes - 100)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		h := NewHighlighter()
		_ = h.JSON(src)
	}
}

// A block chroma cannot lex cleanly (as when a match times out on a loaded
// machine) is shown plain, never garbled, and not cached as highlighted.
func TestJSONUnplacedTokenShownPlain(t *testing.T) {
	h := NewHighlighter()
	bad := "{\n  \"a\": @oops\n}"
	for range 2 {
		out := string(h.JSON(bad))
		if !strings.Contains(out, `<pre class="chroma plain"><code>`) || strings.Contains(out, `<span class="nt">`) {
			t.Fatalf("an unlexable block not shown plain: %s", out)
		}
	}
	if _, misses, plain := h.Stats(); misses != 2 || plain != 2 {
		t.Errorf("misses %d, plain %d: want the block tried again each time, never cached", misses, plain)
	}
	// Block (not strict) keeps highlighting what it can, as before.
	if out := string(h.Block("json", "", bad)); !strings.Contains(out, `<span class="nt">`) {
		t.Errorf("Block stopped highlighting: %s", out)
	}
}
