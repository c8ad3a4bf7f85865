package search

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// tokenizeRef is Tokenize written plainly on analyze: what the index held
// before Tokenize was made fast.
func tokenizeRef(input []byte) analysis.TokenStream {
	var rv analysis.TokenStream
	analyze(input, true, func(t token) {
		typ := analysis.AlphaNumeric
		if t.alone || utf8.RuneCountInString(t.term) == 2 && isCJK([]rune(t.term)[0]) {
			typ = analysis.Ideographic
		}
		rv = append(rv, &analysis.Token{Term: []byte(t.term), Start: t.start, End: t.end, Position: t.pos + 1, Type: typ})
	})
	return rv
}

func sameTokens(t *testing.T, input []byte) {
	t.Helper()
	got, want := wordTokenizer{}.Tokenize(input), tokenizeRef(input)
	if len(got) != len(want) {
		t.Fatalf("%q: %d tokens, want %d", input, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Term, w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type {
			t.Fatalf("%q: token %d is %q %d-%d @%d type %d, want %q %d-%d @%d type %d", input, i,
				g.Term, g.Start, g.End, g.Position, g.Type, w.Term, w.Start, w.End, w.Position, w.Type)
		}
	}
}

// TestTokenizeSame checks the fast tokenizer against analyze on every kind
// of text: ASCII, accents, full- and half-width forms, CJK runs inside and
// beside words, broken UTF-8, and (with CCSITE_CORPUS) the corpus itself.
func TestTokenizeSame(t *testing.T) {
	for _, s := range []string{
		"", " ", "hello world", "func main() { fmt.Println(\"x_y\") }", "Ünïcödé café ΑΘΗΝΑ Москва",
		"ＦＵＬＬwidth ｶﾀｶﾅ ﾊﾟﾝ", "東京都に住んでいます", "한국어 텍스트", "mixed日本語words and 中", "a中b",
		"ー長音ｰ", "\xff\xfe broken \xe6\x97 utf8", "x²³ ½ ⅷ", "İstanbul ǅ ﬁ", strings.Repeat("語", 50),
		"Ⱥ Ⱦ ΣΑΣ", "tab\tnew\nline", "日本 語", "😀 emoji 👍🏽 words",
	} {
		sameTokens(t, []byte(s))
	}
	corpus := os.Getenv("CCSITE_CORPUS")
	if corpus == "" {
		return
	}
	n := 0
	filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || n >= 60 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			n++
			sameTokens(t, data)
		}
		return nil
	})
}

func FuzzTokenize(f *testing.F) {
	f.Add([]byte("東京 hello Ｗｏｒｌｄ café"))
	f.Fuzz(func(t *testing.T, b []byte) { sameTokens(t, b) })
}

func BenchmarkTokenize(b *testing.B) {
	text := []byte(strings.Repeat("The quick brown fox_jumps over 12 lazy dogs; café Ünïcode 東京都に住んでいます. ", 2000))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		wordTokenizer{}.Tokenize(text)
	}
}

func BenchmarkTokenizeRef(b *testing.B) {
	text := []byte(strings.Repeat("The quick brown fox_jumps over 12 lazy dogs; café Ünïcode 東京都に住んでいます. ", 2000))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tokenizeRef(text)
	}
}

func BenchmarkTokenizeASCII(b *testing.B) {
	text := []byte(strings.Repeat("func (w *Writer) Add(docs []Doc) ([]string, error) { // the quick brown fox_jumps over 12 lazy dogs\n", 2000))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		wordTokenizer{}.Tokenize(text)
	}
}

func BenchmarkTokenizeASCIIRef(b *testing.B) {
	text := []byte(strings.Repeat("func (w *Writer) Add(docs []Doc) ([]string, error) { // the quick brown fox_jumps over 12 lazy dogs\n", 2000))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tokenizeRef(text)
	}
}
