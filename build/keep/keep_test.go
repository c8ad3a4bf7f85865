package keep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeep: a file is kept once per content (a copy shared by two files
// holding the same bytes), reads back byte for byte, and survives a kill
// mid-copy: a temporary file a kill left is never taken for a copy and is
// removed at the next save, and a damaged copy is refused on reading.
func TestKeep(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	a := filepath.Join(src, "proj", "a.jsonl")
	b := filepath.Join(src, "proj", "b.jsonl")
	os.MkdirAll(filepath.Dir(a), 0o755)
	content := []byte(strings.Repeat(`{"type":"user","message":{"content":"hello"}}`+"\n", 500))
	os.WriteFile(a, content, 0o644)
	os.WriteFile(b, content, 0o644)
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		fi, _ := os.Stat(p)
		rel, _ := filepath.Rel(src, p)
		if err := st.Keep(Entry{Path: p, Root: src, Rel: filepath.ToSlash(rel), Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, "2026-11-25"); err != nil {
			t.Fatal(err)
		}
	}
	// What a kill between writing a copy and renaming it leaves.
	os.WriteFile(filepath.Join(dir, "blobs", "ab", ".tmp-123"), []byte("half"), 0o644)
	stats, err := st.Save()
	if err != nil {
		t.Fatal(err)
	}
	if stats.Files != 2 || stats.SourceBytes != 2*int64(len(content)) || stats.StoredBytes == 0 || stats.StoredBytes*5 > int64(len(content)) {
		t.Errorf("stats %+v for two files of %d bytes with the same content", stats, len(content))
	}
	var blobs []string
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			blobs = append(blobs, p)
		}
		return nil
	})
	if len(blobs) != 1 || !strings.HasSuffix(blobs[0], ".zst") {
		t.Fatalf("copies on disk: %v, want one", blobs)
	}
	st.Close()
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, e := range st.Entries() {
		got, err := st.Read(e)
		if err != nil || string(got) != string(content) {
			t.Errorf("%s read back wrong: %v", e.Path, err)
		}
	}
	// Gone from the input: vanished, and restored in place.
	os.Remove(a)
	v := st.Vanished([]string{src}, map[string]bool{b: true})
	if len(v) != 1 || v[0].Path != a {
		t.Fatalf("vanished: %v", v)
	}
	roots, origin, err := st.Restore(v)
	if err != nil || len(roots) != 1 {
		t.Fatalf("restore: %v %v", roots, err)
	}
	restored := filepath.Join(roots[0], "proj", "a.jsonl")
	if got, err := os.ReadFile(restored); err != nil || string(got) != string(content) || origin[restored] == nil {
		t.Errorf("restored file: %v", err)
	}
	// A damaged copy is refused, never shown as the transcript.
	os.WriteFile(blobs[0], []byte("not zstd"), 0o644)
	if _, err := st.Read(v[0]); err == nil {
		t.Error("a damaged copy was read")
	}
}
