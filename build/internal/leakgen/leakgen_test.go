package leakgen

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tree is a written tree read back: every string of every record (and of
// the .meta.json files) by file, and every image.
type tree struct {
	text   map[string]string // slash path → its strings, one a line
	raw    map[string]string // slash path → its bytes
	images map[string][][]byte
	paths  []string
}

func readTree(t *testing.T, dir string) tree {
	t.Helper()
	tr := tree{text: map[string]string{}, raw: map[string]string{}, images: map[string][][]byte{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		tr.paths = append(tr.paths, rel)
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var b strings.Builder
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				b.WriteString(x + "\n")
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					if s, ok := e.(string); ok && (k == "data" || k == "base64") && len(s) > 100 {
						raw, err := base64.StdEncoding.DecodeString(s)
						if err != nil {
							t.Errorf("%s: image data is not base64: %v", rel, err)
						}
						tr.images[rel] = append(tr.images[rel], raw)
						continue
					}
					walk(e)
				}
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Errorf("%s:%d: not JSON: %v", rel, n, err)
				continue
			}
			walk(v)
		}
		tr.text[rel], tr.raw[rel] = b.String(), string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

var (
	b64Run = regexp.MustCompile(`[A-Za-z0-9+/]{12,}={0,2}`)
	// b64Wrapped is base64 wrapped over lines (base64's 76 columns).
	b64Wrapped = regexp.MustCompile(`(?:[A-Za-z0-9+/]{20,}\n)+[A-Za-z0-9+/]+={0,2}`)
)

// decoded is s with its base64 runs (wrapped over lines too, twice
// encoded too) and percent-encoding decoded.
func decoded(s string) string {
	return decodedDepth(s, 2)
}

func decodedDepth(s string, depth int) string {
	out := s
	if depth == 0 {
		return out
	}
	var runs []string
	runs = append(runs, b64Run.FindAllString(s, -1)...)
	for _, w := range b64Wrapped.FindAllString(s, -1) {
		runs = append(runs, strings.ReplaceAll(w, "\n", ""))
	}
	for _, r := range runs {
		for k := 0; k < 4 && k < len(r); k++ {
			if d, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(r[k:], "=")); err == nil {
				out += "\n" + decodedDepth(string(d), depth-1)
				break
			}
		}
	}
	if u, err := url.QueryUnescape(strings.ReplaceAll(s, "\n", " ")); err == nil {
		out += "\n" + u
	}
	return out
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p, err := Write(dir, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Plants) < 250 || len(p.Kinds()) < 25 || len(p.Contexts()) < 12 || len(p.Fields()) < 50 {
		t.Errorf("%d plants of %d kinds in %d contexts and %d fields: too few", len(p.Plants), len(p.Kinds()), len(p.Contexts()), len(p.Fields()))
	}
	if len(p.Sessions) < 10 || p.Agents < 5 || p.Orphans != 1 || len(p.Keep) < 50 {
		t.Errorf("%d sessions, %d agents, %d orphans, %d strings to keep", len(p.Sessions), p.Agents, p.Orphans, len(p.Keep))
	}
	// Every kind in several fields, every context in several fields.
	for _, dim := range []struct {
		name string
		key  func(Plant) string
	}{{"kind", func(x Plant) string { return x.Kind }}, {"context", func(x Plant) string { return x.Context }}} {
		fields := map[string]map[string]bool{}
		for _, x := range p.Plants {
			if fields[dim.key(x)] == nil {
				fields[dim.key(x)] = map[string]bool{}
			}
			fields[dim.key(x)][x.Field] = true
		}
		for k, f := range fields {
			if len(f) < 3 {
				t.Errorf("%s %s is planted in %d fields", dim.name, k, len(f))
			}
		}
	}
	// Probes: lower-case, long enough, each of one plant only; secrets
	// that look real.
	owner := map[string]int{}
	for i, x := range p.Plants {
		if x.ID != i || len(x.Probes) < 2 || x.Probes[0] != strings.ToLower(x.Secret) {
			t.Errorf("plant %d: id %d, probes %q", i, x.ID, x.Probes)
		}
		if m := fakeWord.FindString(x.Secret); m != "" {
			t.Errorf("plant %d (%s): the secret %q says %q", i, x.Kind, x.Secret, m)
		}
		for _, pr := range x.Probes {
			if pr != strings.ToLower(pr) || len(pr) < ProbeMin {
				t.Errorf("plant %d: probe %q", i, pr)
			}
			if o, ok := owner[pr]; ok && o != i {
				t.Errorf("probe %q is of plants %d and %d", pr, o, i)
			}
			owner[pr] = i
		}
	}
	// Every plant is in the tree, where the plan says.
	tr := readTree(t, dir)
	for i, x := range p.Plants {
		probe := x.Probes[1]
		switch {
		case strings.HasPrefix(x.Field, "name.") || x.Context == CtxName && (x.Field == "envelope.cwd"):
			if !strings.Contains(strings.ToLower(x.File), probe) && !strings.Contains(strings.ToLower(tr.text[x.File]), probe) {
				t.Errorf("plant %d (%s) is not in the name %s", i, x.Field, x.File)
			}
		case strings.HasPrefix(x.Context, "png-") || strings.HasPrefix(x.Context, "jpeg-"):
			found := x.Context == CtxPNGZText || x.Context == CtxPNGIText // compressed
			for _, img := range tr.images[x.File] {
				flat := strings.ToLower(decoded(string(bytes.ReplaceAll(img, []byte{0}, nil))))
				found = found || strings.Contains(flat, probe)
			}
			if !found {
				t.Errorf("plant %d (%s) is in no image of %s", i, x.Context, x.File)
			}
		default:
			text, ok := tr.text[x.File]
			if !ok {
				t.Errorf("plant %d: no file %s", i, x.File)
			}
			if !strings.Contains(strings.ToLower(decoded(text)), probe) {
				t.Errorf("plant %d (%s/%s/%s) is not in %s", i, x.Kind, x.Context, x.Field, x.File)
			}
		}
	}
	for file, imgs := range tr.images {
		for _, img := range imgs {
			if _, _, err := image.Decode(bytes.NewReader(img)); err != nil {
				t.Errorf("%s: an image does not decode: %v", file, err)
			}
		}
	}
	var all strings.Builder
	for _, s := range tr.text {
		all.WriteString(s)
	}
	for _, k := range p.Keep {
		if !strings.Contains(all.String(), k) {
			t.Errorf("the string to keep %q is not in the tree", k)
		}
	}
	for _, s := range p.Sessions {
		if _, err := os.Stat(s); err != nil {
			t.Errorf("session %s: %v", s, err)
		}
	}
}

// TestWriteSeed: one seed, one tree; another seed, other secrets.
func TestWriteSeed(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	pa, err := Write(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := Write(b, 1)
	pc, _ := Write(c, 2)
	ta, tb := readTree(t, a), readTree(t, b)
	if strings.Join(ta.paths, "\n") != strings.Join(tb.paths, "\n") {
		t.Fatal("one seed wrote two trees")
	}
	for f, s := range ta.raw {
		if tb.raw[f] != s {
			t.Errorf("one seed wrote two versions of %s", f)
		}
	}
	if len(pa.Plants) != len(pb.Plants) || pa.Plants[0].Secret != pb.Plants[0].Secret {
		t.Error("one seed made two plans")
	}
	seen := map[string]bool{}
	for _, x := range pa.Plants {
		seen[x.Secret] = true
	}
	for _, x := range pc.Plants {
		if seen[x.Secret] {
			t.Errorf("seeds 1 and 2 both planted %q", x.Secret)
		}
	}
}

func TestImages(t *testing.T) {
	texts := [3]string{"one", "two & three", "four"}
	for name, data := range map[string][]byte{"png": PNG(texts), "jpeg": JPEG(texts)} {
		img, format, err := image.Decode(bytes.NewReader(data))
		if err != nil || format != name || img.Bounds().Dx() == 0 {
			t.Errorf("%s: %v, %s", name, err, format)
		}
	}
}
