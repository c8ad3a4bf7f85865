package keep

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
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
	if err := os.WriteFile(filepath.Join(dir, "blobs", ".tmp-123"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	// A damaged copy is refused, never shown as the transcript: one byte
	// changed among the compressed ones (copies carry no zstd checksum;
	// the content's SHA-256 finds it), or the whole copy not zstd.
	z, err := os.ReadFile(blobs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := len(z) / 2; i < len(z); i++ {
		d := bytes.Clone(z)
		d[i] ^= 0x20
		os.WriteFile(blobs[0], d, 0o644)
		if got, err := st.Read(v[0]); err == nil {
			if !bytes.Equal(got, content) {
				t.Fatalf("a copy damaged at byte %d of %d was read (%d bytes, not the %d kept)", i, len(z), len(got), len(content))
			}
			continue // a byte the decoder does not read
		}
	}
	os.WriteFile(blobs[0], []byte("not zstd"), 0o644)
	if _, err := st.Read(v[0]); err == nil {
		t.Error("a damaged copy was read")
	}
}

// TestKeepUnchanged: a build that keeps the same files on the same day
// writes no index and gives the last stats; a new day, a changed file, or
// a copy gone from the archive (copied again) makes it write the index.
func TestKeepUnchanged(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	a := filepath.Join(src, "a.jsonl")
	os.WriteFile(a, []byte(strings.Repeat("x", 1000)), 0o644)
	index := filepath.Join(dir, "index.json")
	build := func(day string) (Stats, bool) {
		t.Helper()
		st, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		before, _ := os.Stat(index)
		fi, _ := os.Stat(a)
		if err := st.Keep(Entry{Path: a, Root: src, Rel: "a.jsonl", Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, day); err != nil {
			t.Fatal(err)
		}
		stats, err := st.Save()
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(index)
		if err != nil {
			t.Fatal(err)
		}
		return stats, before == nil || !os.SameFile(before, after)
	}
	first, wrote := build("2026-11-25")
	if !wrote || first.Files != 1 || first.StoredBytes == 0 || first.Written == 0 {
		t.Fatalf("first build: wrote %v, %+v", wrote, first)
	}
	second, wrote := build("2026-11-25")
	if wrote {
		t.Error("nothing changed, yet the index was written")
	}
	if second.Files != first.Files || second.SourceBytes != first.SourceBytes || second.StoredBytes != first.StoredBytes || second.Written != 0 {
		t.Errorf("stats %+v, then %+v", first, second)
	}
	if _, wrote := build("2026-11-26"); !wrote {
		t.Error("a new day's build did not write the index")
	}
	var blob string
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			blob = p
		}
		return nil
	})
	os.Remove(blob)
	if st, wrote := build("2026-11-26"); !wrote || st.Written == 0 {
		t.Errorf("a copy gone: wrote %v, %+v", wrote, st)
	}
	if _, err := os.Stat(blob); err != nil {
		t.Error("the copy gone was not made again")
	}
}

// TestReadInto: files read one after another through one buffer come
// back whole, a larger one growing it and a smaller one not holding the
// tail of the one before.
func TestReadInto(t *testing.T) {
	dir := t.TempDir()
	var buf []byte
	for i, size := range []int{5000, 300 << 10, 17, 0, 1 << 20} {
		want := make([]byte, size)
		for k := range want {
			want[k] = byte('a' + (k+i)%26)
		}
		p := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readInto(p, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("file %d (%d bytes): read %d bytes, not the file", i, size, len(got))
		}
	}
	if _, err := readInto(filepath.Join(dir, "missing"), &buf); err == nil {
		t.Error("a missing file read without error")
	}
}

// TestRemoveTemps: the temporary file a killed save left beside the index
// is removed, and nothing else: the index and the copies stay.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "a.jsonl")
	os.WriteFile(src, []byte("{}\n"), 0o644)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keep(Entry{Path: src, Size: 3}, "2026-11-27"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".tmp-12345"), []byte(`{"half`), 0o644)
	s.RemoveTemps()
	if _, err := os.Stat(filepath.Join(dir, ".tmp-12345")); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there: %v", err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := s2.Entries()
	if len(e) != 1 {
		t.Fatalf("%d entries after, want 1", len(e))
	}
	if data, err := s2.Read(e[0]); err != nil || string(data) != "{}\n" {
		t.Fatalf("the kept copy reads %q, %v", data, err)
	}
}

// TestKeepGrown: a file that grows (a session appended to) is kept as the
// earlier copy and a frame with what was added; it reads back byte for
// byte at every step, from a reopened archive too, and the copy is made
// whole again once appended frames hold a quarter of it. A file changed
// otherwise (rewritten, cut short), or whose earlier copy is damaged, is
// compressed whole.
func TestKeepGrown(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	p := filepath.Join(src, "proj", "s.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	keep := func(content []byte) *Entry {
		t.Helper()
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if err := st.Keep(Entry{Path: p, Root: src, Rel: "proj/s.jsonl", Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano() + int64(len(content))}, "2026-11-27"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Save(); err != nil {
			t.Fatal(err)
		}
		e := st.Entries()[0]
		if got, err := st.Read(e); err != nil || !bytes.Equal(got, content) {
			t.Fatalf("%d bytes kept, read back %d: %v", len(content), len(got), err)
		}
		return e
	}
	line := func(i int) string {
		return fmt.Sprintf(`{"type":"user","uuid":"u%05d","message":{"content":"message %d of the session, appended"}}`+"\n", i, i)
	}
	var content []byte
	for i := range 400 {
		content = append(content, line(i)...)
	}
	if e := keep(content); e.Appended != 0 {
		t.Fatalf("a new copy has %d appended bytes", e.Appended)
	}
	whole, grown := 0, 0
	for i := 400; i < 600; i++ {
		content = append(content, line(i)...)
		e := keep(content)
		if e.Appended == 0 {
			whole++
		} else {
			grown++
			if e.Appended*appendedMax > e.Size {
				t.Fatalf("%d of %d bytes in appended frames", e.Appended, e.Size)
			}
		}
	}
	if grown < 150 || whole == 0 {
		t.Errorf("200 appends: %d kept by a frame added, %d compressed whole; want most added, some whole", grown, whole)
	}
	// Only the copy of the last content is left.
	blobs, _ := filepath.Glob(filepath.Join(dir, "blobs", "*.zst"))
	if len(blobs) != 1 {
		t.Errorf("%d copies on disk, want 1", len(blobs))
	}
	st.Close()
	if st, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.Read(st.Entries()[0]); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("reopened: read back %d bytes of %d: %v", len(got), len(content), err)
	}
	// A line grown before one more is added: compressed whole.
	content = append(content, line(600)...)
	keep(content)
	changed := bytes.Replace(content, []byte("message 3 of"), []byte("message 3 (edited) of"), 1)
	changed = append(changed, line(601)...)
	if e := keep(changed); e.Appended != 0 {
		t.Errorf("a file changed in its middle kept by an appended frame (%d bytes)", e.Appended)
	}
	if e := keep(changed[:len(changed)/2]); e.Appended != 0 {
		t.Errorf("a file cut short kept by an appended frame (%d bytes)", e.Appended)
	}
	// A damaged earlier copy is not built upon.
	content = changed[:len(changed)/2]
	e := st.Entries()[0]
	if err := os.WriteFile(st.blob(e.Hash), []byte("not zstd"), 0o644); err != nil {
		t.Fatal(err)
	}
	content = append(content, line(602)...)
	if e := keep(content); e.Appended != 0 {
		t.Errorf("built upon a damaged copy (%d appended bytes)", e.Appended)
	}
}

// TestHolds: holds takes a copy that decodes to exactly the bytes asked,
// and no other (longer, shorter, different, not zstd), decoding as a
// stream; the decoders it uses still decode whole after.
func TestHolds(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	data := bytes.Repeat([]byte(`{"type":"user","message":"a line of a session"}`+"\n"), 50000)
	z := enc.EncodeAll(data, nil)
	z2 := enc.EncodeAll([]byte("and one more line\n"), append([]byte(nil), z...)) // two frames
	for _, c := range []struct {
		name string
		z    []byte
		want []byte
		ok   bool
	}{
		{"same", z, data, true},
		{"two frames", z2, append(append([]byte(nil), data...), "and one more line\n"...), true},
		{"longer than asked", z2, data, false},
		{"shorter than asked", z, append(append([]byte(nil), data...), 'x'), false},
		{"different", z, bytes.Replace(data, []byte("session"), []byte("sessioN"), 1), false},
		{"not zstd", []byte("not zstd at all"), data, false},
		{"cut short", z[:len(z)/2], data, false},
	} {
		if got := holds(c.z, c.want); got != c.ok {
			t.Errorf("%s: holds = %v, want %v", c.name, got, c.ok)
		}
		dec := decoders.Get().(*zstd.Decoder)
		out, err := dec.DecodeAll(z, nil)
		decoders.Put(dec)
		if err != nil || !bytes.Equal(out, data) {
			t.Fatalf("after %s: a pooled decoder decodes %d bytes, %v", c.name, len(out), err)
		}
	}
}

// TestKeepOlderLayout: an archive an older ccsite wrote, its copies in a
// folder per hash's first two digits, is read as it is: a file unchanged
// is not copied again, reads back, grows from its old copy (the new one
// written in blobs/ itself), and the old copy goes when no entry names it.
func TestKeepOlderLayout(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	a := filepath.Join(src, "a.jsonl")
	content := []byte(strings.Repeat(`{"type":"user","message":{"content":"hello"}}`+"\n", 200))
	os.WriteFile(a, content, 0o644)
	keep := func(st *Store) *Entry {
		t.Helper()
		fi, _ := os.Stat(a)
		if err := st.Keep(Entry{Path: a, Root: src, Rel: "a.jsonl", Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, "2026-11-28"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Save(); err != nil {
			t.Fatal(err)
		}
		return st.Entries()[0]
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := keep(st)
	st.Close()
	// Moved where an older ccsite wrote it.
	flat := filepath.Join(dir, "blobs", e.Hash+".zst")
	old := filepath.Join(dir, "blobs", e.Hash[:2], e.Hash+".zst")
	os.MkdirAll(filepath.Dir(old), 0o755)
	if err := os.Rename(flat, old); err != nil {
		t.Fatal(err)
	}
	if st, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	keep(st)
	if st.written != 0 || exists(flat) {
		t.Errorf("an unchanged file kept in the older layout was copied again (%d bytes)", st.written)
	}
	if got, err := st.Read(e); err != nil || !bytes.Equal(got, content) {
		t.Errorf("read from the older layout: %v", err)
	}
	st.Close()
	// Grown: the new copy is the old one's frames and one more.
	more := []byte(`{"type":"assistant","message":{"content":"hi"}}` + "\n")
	os.WriteFile(a, append(append([]byte{}, content...), more...), 0o644)
	if st, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g := keep(st)
	if g.Appended != int64(len(more)) {
		t.Errorf("grown copy: %d bytes appended, want %d (built on the older copy)", g.Appended, len(more))
	}
	if got, err := st.Read(g); err != nil || !bytes.Equal(got, append(content, more...)) {
		t.Errorf("grown copy reads back wrong: %v", err)
	}
	if !exists(filepath.Join(dir, "blobs", g.Hash+".zst")) || exists(old) {
		t.Errorf("after growing: new copy in blobs/ %v, old copy still there %v", exists(filepath.Join(dir, "blobs", g.Hash+".zst")), exists(old))
	}
}
