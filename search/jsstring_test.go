package search

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/internal/randtext"
)

// TestAppendJSString: appendJSString writes what encoding/json writes for
// a string (HTML characters, control bytes, invalid UTF-8, U+2028 and
// U+2029 included), for hand cases and random strings over an alphabet of
// every kind of byte and character it treats apart.
func TestAppendJSString(t *testing.T) {
	cases := []string{"", "plain", `"quoted" \ back`, "<script>&amp;</script>", "tab\tnl\ncr\rbs\bff\f\x00\x1f\x7f",
		"caf\u00e9 \u2028 \u2029 \u2027 \u202a", "bad \xff \xe2\x80 \xe2\x80\xa8x \xed\xa0\x80 end", "\U0001F600 emoji", "\xe2", "\xe2\x80"}
	alphabet := []string{"a", "Z", " ", "\"", "\\", "<", ">", "&", "\n", "\t", "\x01", "\x7f", "é", "中", "\u2028", "\u2029",
		"\u2027", "\U0001F600", "\xff", "\xe2", "\x80", "\xa8", "\xe2\x80", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		cases = append(cases, randtext.Join(r, alphabet, 24))
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendJSString(%q) = %s, encoding/json writes %s", s, got[1:], want)
		}
	}
}

func BenchmarkAppendJSString(b *testing.B) {
	text := strings.Repeat("The build's \"search\" shard holds <100 docs & a path: /home/user/src/main.go\n\tcafé — done.\n", 40)
	var buf []byte
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		buf = appendJSString(buf[:0], text)
	}
}
