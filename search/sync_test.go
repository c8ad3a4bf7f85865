package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hitIDs searches the index in dir (Open: synced first) and lists the
// ids found.
func hitIDs(t *testing.T, dir, q string) []string {
	t.Helper()
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	res, err := idx.Search(context.Background(), Query{Text: q, Size: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func syncDoc(page string, k int, text string) Doc {
	return Doc{ID: fmt.Sprintf("%s#m-%d", page, k), Project: "p", Session: strings.TrimSuffix(page, ".html"), Title: page,
		Role: "prompt", Time: time.Date(2026, 11, 27, 10, k, 0, 0, time.UTC), Text: text}
}

// TestSyncFollowsBuilds: a build makes no bleve index; the first search
// makes it of the build's documents, and each search after a build brings
// it up to that build's: documents added, replaced and deleted. With
// nothing changed, a search leaves it as it is.
func TestSyncFollowsBuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	w, err := OpenWriter(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add([]Doc{syncDoc("a.html", 1, "quokka alpha"), syncDoc("a.html", 2, "quokka beta"), syncDoc("b.html", 1, "quokka gamma")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a build made the bleve index (%v)", err)
	}
	if got := hitIDs(t, dir, "quokka"); len(got) != 3 {
		t.Fatalf("first search: %v, want 3 documents", got)
	}
	metas, _ := os.ReadFile(metaPath(dir))
	if held, err := os.ReadFile(heldPath(dir)); err != nil || !bytes.Equal(held, metas) {
		t.Fatalf("the held file is not the metas it was made of (%v)", err)
	}
	// Nothing changed: the index's files are left as they are.
	before := dirState(t, dir)
	hitIDs(t, dir, "quokka")
	if after := dirState(t, dir); after != before {
		t.Errorf("a search with nothing changed rewrote the index:\n%s\n%s", before, after)
	}

	// A build replaces a.html's documents (one the same, one changed, one
	// new) and deletes b.html's.
	w, err = OpenWriter(dir, false)
	if err != nil || w.Fresh() {
		t.Fatalf("update: %v", err)
	}
	if _, err := w.ReplacePages([]string{"a.html"}, []Doc{syncDoc("a.html", 1, "quokka alpha"), syncDoc("a.html", 2, "wombat beta"), syncDoc("a.html", 3, "quokka delta")}); err != nil {
		t.Fatal(err)
	}
	if err := w.DeletePages([]string{"b.html"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(hitIDs(t, dir, "quokka"), " "); got != "a.html#m-3 a.html#m-1" && got != "a.html#m-1 a.html#m-3" {
		t.Errorf("after the update, quokka finds %q", got)
	}
	if got := hitIDs(t, dir, "wombat"); len(got) != 1 || got[0] != "a.html#m-2" {
		t.Errorf("after the update, wombat finds %v", got)
	}
	if got := hitIDs(t, dir, "gamma"); len(got) != 0 {
		t.Errorf("a deleted page's document is still found: %v", got)
	}

	// A build stopped after changing the texts leaves metas that agree
	// with nothing: a search says so, and the next build starts anew.
	w, err = OpenWriter(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add([]Doc{syncDoc("c.html", 1, "quokka stopped")}); err != nil {
		t.Fatal(err)
	}
	w.texts.close() // as a killed build leaves them, the lock let go
	w.unlock()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "stopped build") {
		t.Errorf("a search after a stopped build: %v", err)
	}
	w, err = OpenWriter(dir, false)
	if err != nil || !w.Fresh() {
		t.Fatalf("the build after a stopped one: fresh %v, %v", w != nil && w.Fresh(), err)
	}
	w.Add([]Doc{syncDoc("d.html", 1, "quokka anew")})
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(t, dir, "quokka"); len(got) != 1 || got[0] != "d.html#m-1" {
		t.Errorf("after a new build, quokka finds %v", got)
	}
}

// dirState lists dir's files with their sizes and times.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// TestSyncWaitsForBuild: a search does not read the documents while a
// build is changing them; it waits for the build's Close.
func TestSyncWaitsForBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bleve")
	buildIndex(t, dir, []Doc{syncDoc("a.html", 1, "quokka one")})
	w, err := OpenWriter(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add([]Doc{syncDoc("a.html", 2, "quokka two")}); err != nil {
		t.Fatal(err)
	}
	done := make(chan []string)
	go func() {
		idx, err := Open(dir)
		if err != nil {
			t.Error(err)
			done <- nil
			return
		}
		defer idx.Close()
		res, err := idx.Search(context.Background(), Query{Text: "quokka"})
		if err != nil {
			t.Error(err)
		}
		var ids []string
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		done <- ids
	}()
	select {
	case ids := <-done:
		t.Fatalf("a search during a build went on: %v", ids)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ids := <-done; len(ids) != 2 {
		t.Errorf("the search after the build found %v, want both documents", ids)
	}
}
