package build

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ccsite/build/keep"
	"ccsite/search"
)

// TestDeletedSourcesStay: Claude Code deletes a session's file and one
// sub-agent's file; the next build still shows the session, its
// sub-agent and their search documents, built from the archive's copies.
// The pages are the same as before but for the "deleted" notice. forget
// then removes the session everywhere, and archive export gives back
// every kept file byte for byte.
func TestDeletedSourcesStay(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	site := filepath.Join(t.TempDir(), "site")
	state := filepath.Join(t.TempDir(), "state")
	cfg := Config{Paths: []string{in}, Out: site, State: state}
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Archive.Files == 0 || first.Archive.StoredBytes == 0 || first.Archived != 0 {
		t.Fatalf("first build: archive %+v, %d sessions from it", first.Archive, first.Archived)
	}
	// The session about to go grows first: its copy becomes the earlier
	// one and a frame with the new line (keep's writeGrown), and all of
	// it must come back.
	grow := filepath.Join(in, "-home-demo-webapp", "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2.jsonl")
	appendLine(t, grow, "One more question about the deploy, asked after the first build.")
	grown, err := Run(context.Background(), cfg)
	if err != nil || grown.Archive.Written == 0 || grown.Docs != first.Docs+1 {
		t.Fatalf("build after the session grew: %v, %d documents (%d before), archive %+v", err, grown.Docs, first.Docs, grown.Archive)
	}
	if st, err := keep.Open(archiveDir(state)); err != nil {
		t.Fatal(err)
	} else {
		for _, e := range st.Entries() {
			if e.Path == grow && e.Appended == 0 {
				t.Errorf("the grown session was compressed whole again, not kept by a frame added")
			}
		}
		st.Close()
	}
	originals := map[string][]byte{}
	filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(in, p)
			originals[filepath.ToSlash(rel)] = data
		}
		return nil
	})
	before := siteFiles(t, site)

	// The session of the webapp with a sub-agent in the 2.1.x layout goes,
	// and so does infra's second session's... only the agent file of the
	// legacy layout.
	gone := filepath.Join(in, "-home-demo-webapp", "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2.jsonl")
	goneAgents := filepath.Join(in, "-home-demo-webapp", "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2")
	goneAgent := filepath.Join(in, "-home-demo-webapp", "agent-c0ffee12.jsonl")
	for _, p := range []string{gone, goneAgents, goneAgent} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != grown.Sessions || sum.Agents != grown.Agents || sum.Docs != grown.Docs || sum.Pages != grown.Pages {
		t.Errorf("after the deletion: %d sessions, %d sub-agent pages, %d documents, %d pages; before %d, %d, %d, %d",
			sum.Sessions, sum.Agents, sum.Docs, sum.Pages, grown.Sessions, grown.Agents, grown.Docs, grown.Pages)
	}
	if sum.Archived != 1 {
		t.Errorf("%d sessions kept only in the archive, want 1", sum.Archived)
	}
	after := siteFiles(t, site)
	notice := regexp.MustCompile(`<p class="notice deleted-source">.*?</p>`)
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			t.Errorf("%s is gone from the site", name)
		case a == b:
		case strings.HasSuffix(name, ".html") && notice.ReplaceAllString(a, "") == b:
			if !strings.Contains(a, "Source file deleted") {
				t.Errorf("%s: changed without the notice", name)
			}
		case strings.HasPrefix(name, "search/") || name == ".ccsite-site":
			// The static index's shards follow the documents, unchanged.
		default:
			t.Errorf("%s differs after its source was deleted (beyond the notice)", name)
			if os.Getenv("CCSITE_DEBUG_DIFF") != "" {
				os.WriteFile("/tmp/dbg-a.html", []byte(notice.ReplaceAllString(a, "")), 0o644)
				os.WriteFile("/tmp/dbg-b.html", []byte(b), 0o644)
			}
		}
	}
	page := after["home-demo-webapp/8f6c56cd-7dc9-5b10-8aee-686bfe5862c2.html"]
	if !strings.Contains(page, "Source file deleted") || !strings.Contains(page, "last seen 20") {
		t.Error("the deleted session's page does not say its file is gone")
	}
	for name := range after {
		if strings.Contains(name, "archive") || strings.HasSuffix(name, ".zst") {
			t.Errorf("the archive reached the site: %s", name)
		}
	}
	// Search still finds the deleted session's words.
	idx, err := search.Open(IndexPath(state))
	if err != nil {
		t.Fatal(err)
	}
	res, err := idx.Search(context.Background(), search.Query{Text: "naive string comparisons", Size: 5})
	idx.Close()
	if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Page, "8f6c56cd") {
		t.Errorf("search after the deletion: %+v, %v", res.Hits, err)
	}

	// archive export: every file back, byte for byte.
	out := t.TempDir()
	ex, err := ExportKept(state, out)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Written != len(originals) || ex.Same != 0 || len(ex.Beside) != 0 {
		t.Errorf("exported %+v, the input had %d files", ex, len(originals))
	}
	for rel, data := range originals {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("exported %s differs from the original (%v)", rel, err)
		}
	}

	// forget: the session goes everywhere (pages, exports, documents,
	// copies).
	f, err := ForgetErasing(context.Background(), site, state, "", ForgetSelect{Sessions: []string{"8f6c56cd-7dc9-5b10-8aee-686bfe5862c2"}})
	if err != nil || f.Sessions != 1 || f.Files < 2 || f.StillThere != 0 || !f.Rebuild {
		t.Fatalf("forget: %+v, %v", f, err)
	}
	sum, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != first.Sessions-1 || sum.Archived != 0 {
		t.Errorf("after forget: %d sessions (%d from the archive), want %d and 0", sum.Sessions, sum.Archived, first.Sessions-1)
	}
	for name := range siteFiles(t, site) {
		if strings.Contains(name, "8f6c56cd") {
			t.Errorf("after forget, %s is still in the site", name)
		}
	}
	idx, err = search.Open(IndexPath(state))
	if err != nil {
		t.Fatal(err)
	}
	res, _ = idx.Search(context.Background(), search.Query{Text: "naive string comparisons", Size: 5})
	idx.Close()
	for _, h := range res.Hits {
		if strings.Contains(h.Page, "8f6c56cd") {
			t.Errorf("after forget, search still finds %s", h.Page)
		}
	}
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, e := range st.Entries() {
		if e.Session == "8f6c56cd-7dc9-5b10-8aee-686bfe5862c2" {
			t.Errorf("after forget, the archive still keeps %s", e.Path)
		}
		if _, err := st.Read(e); err != nil {
			t.Errorf("kept copy: %v", err)
		}
	}
}

// TestFileHistoryKept: the file-history backups Claude Code keeps for a
// session (~/.claude/file-history/<session>/) are kept with it.
func TestFileHistoryKept(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	copyTree(t, "../demo/projects", projects)
	sid := "2f17df70-2c36-56b8-95ef-251e65ace575"
	fh := filepath.Join(home, ".claude", "file-history", sid, "3f2a9c@v2")
	if err := os.MkdirAll(filepath.Dir(fh), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(fh, []byte("package api // as it was at turn 2\n"), 0o644)
	state := filepath.Join(t.TempDir(), "state")
	if _, err := Run(context.Background(), Config{Paths: []string{projects}, Out: filepath.Join(t.TempDir(), "site"), State: state}); err != nil {
		t.Fatal(err)
	}
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	found := false
	for _, e := range st.Entries() {
		if e.Kind == keep.KindFileHistory && e.Path == fh && e.Session == sid && e.Rel == "file-history/"+sid+"/3f2a9c@v2" {
			data, err := st.Read(e)
			found = err == nil && string(data) == "package api // as it was at turn 2\n"
		}
	}
	if !found {
		t.Errorf("the file-history backup is not kept: %+v", st.Entries())
	}
}
