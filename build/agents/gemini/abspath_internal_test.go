package gemini

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// absPathRE is what absPaths matches.
var absPathRE = regexp.MustCompile(`(?:[A-Za-z]:)?(?:/|\\\\)[^"\s:*?<>|]+`)

// TestAbsPathsAsRegexp: absPaths finds, in order, the paths the regular
// expression it replaced finds, on the fixtures and on random bytes
// dense in separators, drive letters and stops.
func TestAbsPathsAsRegexp(t *testing.T) {
	var inputs [][]byte
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			inputs = append(inputs, data)
		}
		return nil
	})
	inputs = append(inputs, []byte(`"C:\\Users\\kim\\src" "/home/kim/x" C:/ x:/y /"\" \\ \\\\a /é/ü`), []byte(`/fooC:/bar`), nil)
	r := rand.New(rand.NewPCG(57, 1))
	alphabet := []byte("/\\:\"C d*\n\xff\xc3\xa9ab|")
	for range 3000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		var got [][]byte
		absPaths(in, func(m []byte) bool { got = append(got, m); return true })
		want := absPathRE.FindAll(in, -1)
		if !slices.EqualFunc(got, want, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("%q: paths %q, the expression finds %q", in, got, want)
		}
	}
}
