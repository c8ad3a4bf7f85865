package session

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"ccsite/internal/corpustest"
	"ccsite/internal/randtext"
)

// TestTagAsRegexp: tagFinder finds what the expression it stands for,
// (?s)<name(?:\s[^>]*)?>(.*?)</name>, finds: on random texts of openings,
// closings, attributes, names that run on, spaces and line ends, and on
// every line of the corpus ($CCSITE_CORPUS, when set).
func TestTagAsRegexp(t *testing.T) {
	names := []string{"bash-stdout", "command-name", "teammate-message"}
	finders := make([]*tagFinder, len(names))
	res := make([]*regexp.Regexp, len(names))
	for i, n := range names {
		finders[i] = tagRe(n)
		res[i] = regexp.MustCompile(`(?s)<` + n + `(?:\s[^>]*)?>(.*?)</` + n + `>`)
	}
	found := 0
	check := func(s string) {
		for i, f := range finders {
			got, ok := f.find(s)
			m := res[i].FindStringSubmatch(s)
			if ok != (m != nil) || ok && got != m[1] {
				t.Fatalf("%s in %q: find %q %v, the expression %q", names[i], s, got, ok, m)
			}
			if ok {
				found++
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	var pieces []string
	for _, n := range names[:2] {
		pieces = append(pieces, "<"+n, "<"+n+">", "</"+n+">", "<"+n+"-x>", "</"+n, "<"+n+" a=\"1\">", "<"+n+"\n>")
	}
	pieces = append(pieces, randtext.Bytes("ab <>/\"= \t\n\r\f\v")...)
	for range 100000 {
		check(randtext.Join(r, pieces, 16))
	}
	if os.Getenv("CCSITE_CORPUS") != "" {
		corpustest.EachLine(t, func(_ string, line []byte) {
			if s := string(line); strings.Contains(s, "<") {
				check(strings.ReplaceAll(s, `\n`, "\n"))
			}
		})
	}
	if found < 1000 {
		t.Errorf("only %d tags found: the texts no longer hold them", found)
	}
}
