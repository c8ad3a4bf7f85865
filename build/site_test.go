package build

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// checkSite parses every page of a built site and checks what a reader and a
// publisher rely on: ids unique per page, every relative link and image
// resolves to a written file (and its #anchor to an element), and no
// script but the site's own.
func checkSite(t *testing.T, out string) (pages int) {
	t.Helper()
	ids := map[string]map[string]bool{} // page → ids
	type ref struct{ from, target, frag string }
	var refs []ref
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		if rel(out, p) != "compare.html" { // a tool of the site, not counted among its pages
			pages++
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		doc, err := html.Parse(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		seen := map[string]bool{}
		ids[p] = seen
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				for _, a := range n.Attr {
					switch {
					case a.Key == "id":
						if seen[a.Val] {
							t.Errorf("%s: duplicate id %q", rel(out, p), a.Val)
						}
						seen[a.Val] = true
					case strings.HasPrefix(a.Key, "on"):
						t.Errorf("%s: <%s %s=…> event handler attribute", rel(out, p), n.Data, a.Key)
					case a.Key == "href" || a.Key == "src":
						v := strings.TrimSpace(a.Val)
						if strings.HasPrefix(strings.ToLower(v), "javascript:") {
							t.Errorf("%s: %s=%q", rel(out, p), a.Key, v)
						}
						u, err := url.Parse(v)
						if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(v, "//") {
							break // external (rel=nofollow), data: or malformed: not a site link
						}
						target := p
						if u.Path != "" {
							target = filepath.Join(filepath.Dir(p), filepath.FromSlash(u.Path))
						}
						refs = append(refs, ref{p, target, u.Fragment})
					}
				}
				if n.Data == "script" {
					src := ""
					for _, a := range n.Attr {
						if a.Key == "src" {
							src = a.Val
						}
					}
					ok := strings.HasSuffix(src, "assets/app.js") ||
						rel(out, p) == "search.html" && (src == "assets/search.js" || src == "search/api.js") ||
						rel(out, p) == "compare.html" && src == "assets/compare.js"
					if !ok {
						t.Errorf("%s: a <script> that is not the site's own (src=%q)", rel(out, p), src)
					}
				}
				switch n.Data {
				case "iframe", "object", "embed":
					t.Errorf("%s: <%s> element", rel(out, p), n.Data)
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	broken := 0
	for _, r := range refs {
		if _, err := os.Stat(r.target); err != nil {
			if broken++; broken <= 20 {
				t.Errorf("%s: link to %s: no such file", rel(out, r.from), rel(out, r.target))
			}
			continue
		}
		if r.frag != "" && strings.HasSuffix(r.target, ".html") {
			if pageIDs, ok := ids[r.target]; ok && !pageIDs[r.frag] {
				if broken++; broken <= 20 {
					t.Errorf("%s: link to %s#%s: no such anchor", rel(out, r.from), rel(out, r.target), r.frag)
				}
			}
		}
	}
	if broken > 20 {
		t.Errorf("… %d broken links in all", broken)
	}
	return pages
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

// TestSiteDemo builds the demo archive and checks every page.
func TestSiteDemo(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	sum, err := Run(context.Background(), Config{Paths: []string{"../demo/projects"}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 9 || sum.Agents != 3 {
		t.Errorf("built %d sessions and %d sub-agent pages, want 9 (a Codex one) and 3", sum.Sessions, sum.Agents)
	}
	if n := checkSite(t, out); n != sum.Pages {
		t.Errorf("checked %d pages, the build wrote %d", n, sum.Pages)
	}
}

// TestSiteCorpus builds the real corpus ($CCSITE_CORPUS) and checks every
// page: nothing fails, ids are unique, links resolve, no foreign script.
func TestSiteCorpus(t *testing.T) {
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	out := t.TempDir()
	sum, err := Run(context.Background(), Config{Paths: []string{dir}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	n := checkSite(t, out)
	t.Logf("%d sessions, %d sub-agent pages, %d orphans, %d pages checked (%.1f MB) from %.1f MB in %s",
		sum.Sessions, sum.Agents, sum.Orphans, n, float64(sum.Written)/(1<<20), float64(sum.Bytes)/(1<<20), sum.Elapsed)
}

// TestSiteRefusesForeignFolder: a build never writes into a folder that
// holds other files.
func TestSiteRefusesForeignFolder(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Config{Paths: []string{"../demo/projects"}, Out: out})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("build into a foreign folder: err = %v, want a refusal", err)
	}
}

// TestSiteDeterministic: the same input gives a byte-identical site,
// whatever the number of workers.
func TestSiteDeterministic(t *testing.T) {
	t.Parallel()
	read := func(workers int) map[string]string {
		out := t.TempDir()
		if _, err := Run(context.Background(), Config{Paths: []string{"../demo/projects"}, Out: out, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == ".ccsite" {
				return filepath.SkipDir // the search database: bleve's own format, not published
			}
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				files[rel(out, p)] = string(b)
			}
			return nil
		})
		return files
	}
	a, b := read(1), read(4)
	if len(a) != len(b) {
		t.Fatalf("%d files with 1 worker, %d with 4", len(a), len(b))
	}
	for name, content := range a {
		if b[name] != content {
			t.Errorf("%s differs between builds", name)
		}
	}
}
