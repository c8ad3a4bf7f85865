package build

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"ccsite/search"
)

// TestStateFilesPrivate: everything a build keeps in a new state folder
// and in the highlight cache (the transcripts' text is in both: the
// search texts and metas, the bleve index, the manifest, highlighted code
// and redacted lines) is the user's alone: folders 0700, files 0600,
// also after an update of the site and once search has made the bleve
// index. The site's files stay readable by others.
func TestStateFilesPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	dir := t.TempDir()
	out, state, cache := filepath.Join(dir, "site"), filepath.Join(dir, "state"), filepath.Join(dir, "cache")
	cfg := Config{Paths: []string{in}, Out: out, State: state, CacheDir: cache}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	search1 := func() {
		idx, err := search.Open(IndexPath(state))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := idx.Search(context.Background(), search.Query{Text: `"string comparisons"`, Size: 5}); err != nil {
			t.Error(err)
		}
		idx.Close()
	}
	search1()
	// A session grows: the texts, metas and index are updated in place.
	appendLine(t, filepath.Join(in, "-home-demo-webapp", "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2.jsonl"), "one more question")
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	search1()
	// A journal as a build has it while it runs.
	jr, _, err := openJournal(state)
	if err != nil {
		t.Fatal(err)
	}
	jr.f.Close()
	defer os.Remove(filepath.Join(state, journalFile))
	seen := map[string]bool{}
	for _, root := range []string{state, cache} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				t.Error(err)
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				t.Error(err)
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			seen[filepath.ToSlash(rel)] = true
			if fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s is %v: open to others", rel, fi.Mode().Perm())
			}
			return nil
		})
	}
	for _, want := range []string{"state/" + stateFile, "state/" + journalFile, "state/" + lockName, "state/bleve", "state/bleve-metas", "state/bleve-texts.log", "state/archive/index.json"} {
		if !seen[want] {
			t.Errorf("no %s in the state folder: the test misses it (%d files)", want, len(seen))
		}
	}
	hl := false
	for p := range seen {
		if m, _ := filepath.Match("cache/highlight-*.db", p); m {
			hl = true
		}
	}
	if !hl {
		t.Errorf("no highlight cache: %v", seen)
	}
	// The site's files are published: readable by others.
	if fi, err := os.Stat(filepath.Join(out, "index.html")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the site's index.html: %v", err)
	}
}
