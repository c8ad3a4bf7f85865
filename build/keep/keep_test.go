package keep

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
	os.MkdirAll(filepath.Join(dir, "packs"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "packs", ".tmp-456"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	stats, err := st.Save()
	if err != nil {
		t.Fatal(err)
	}
	if stats.Files != 2 || stats.SourceBytes != 2*int64(len(content)) || stats.StoredBytes == 0 || stats.StoredBytes*5 > int64(len(content)) {
		t.Errorf("stats %+v for two files of %d bytes with the same content", stats, len(content))
	}
	// A small copy: in a pack, alone.
	if files := copyFiles(t, dir); len(files) != 1 || !strings.HasSuffix(files[0], ".pack") {
		t.Fatalf("copies on disk: %v, want one pack", files)
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
	_, _, n := where(t, st, v[0].Hash)
	for i := n / 2; i < n; i++ {
		damage(t, st, v[0].Hash, func(z []byte) { z[i] ^= 0x20 })
		if got, err := st.Read(v[0]); err == nil && !bytes.Equal(got, content) {
			t.Fatalf("a copy damaged at byte %d of %d was read (%d bytes, not the %d kept)", i, n, len(got), len(content))
		}
		damage(t, st, v[0].Hash, func(z []byte) { z[i] ^= 0x20 }) // undone
	}
	damage(t, st, v[0].Hash, func(z []byte) { copy(z, "not zstd") })
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
	files := copyFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("copies on disk: %v, want one", files)
	}
	os.Remove(files[0])
	if st, wrote := build("2026-11-26"); !wrote || st.Written == 0 {
		t.Errorf("a copy gone: wrote %v, %+v", wrote, st)
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := st.Read(st.Entries()[0]); err != nil || string(got) != strings.Repeat("x", 1000) {
		t.Errorf("the copy gone was not made again: %v", err)
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
	if files := copyFiles(t, dir); len(files) != 1 {
		t.Errorf("copies on disk: %v, want 1", files)
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
	damage(t, st, st.Entries()[0].Hash, func(z []byte) { copy(z, "not zstd") })
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
	// Too large to pack (the older layout had no packs).
	content := randomLines(8000)
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
	// And its index of format 1, without packs.
	idx, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil || !bytes.Contains(idx, []byte(`"format":2,`)) || bytes.Contains(idx, []byte(`"packs"`)) {
		t.Fatalf("index %.80s: %v", idx, err)
	}
	os.WriteFile(filepath.Join(dir, "index.json"), bytes.Replace(idx, []byte(`"format":2,`), []byte(`"format":1,`), 1), 0o644)
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

// copyFiles lists the files that hold copies: files of their own in
// blobs/ and packs.
func copyFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, sub := range []string{"blobs", "packs"} {
		filepath.WalkDir(filepath.Join(dir, sub), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// where is the file that holds the copy of content hash, and the copy's
// place in it.
func where(t *testing.T, st *Store, hash string) (path string, off, n int64) {
	t.Helper()
	if loc, ok := st.idx.Packs[hash]; ok {
		return filepath.Join(st.packDir(), loc.Pack), loc.Off, loc.Len
	}
	p := st.blobFile(hash)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatalf("no copy of %s: %v", hash, err)
	}
	return p, 0, fi.Size()
}

// damage replaces the copy of content hash, where it is kept, with what f
// makes of it (of the same length).
func damage(t *testing.T, st *Store, hash string, f func(z []byte)) {
	t.Helper()
	p, off, n := where(t, st, hash)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f(data[off : off+n])
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// randomLines is n lines of hex digits that compress to about half.
func randomLines(n int) []byte {
	r := rand.New(rand.NewPCG(7, 8))
	var b []byte
	for range n {
		b = append(b, `{"type":"user","message":{"content":"`...)
		for range 32 {
			b = append(b, "0123456789abcdef"[r.IntN(16)])
		}
		b = append(b, "\"}}\n"...)
	}
	return b
}

// TestKeepPacks: small copies go in one pack (Flush or Save), a large one
// in a file of its own; all read back from a reopened archive. A pack of
// which less than half is still named is packed again (what is named
// moved to a new pack, the old one removed); one mostly named is left as
// it is, unless entries were forgotten (then no pack keeps a byte no
// entry names); one that nothing names is removed. A pack gone from the disk is
// not taken for a copy: its files are copied again. An index of a format
// this ccsite does not know is refused.
func TestKeepPacks(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	want := map[string][]byte{}
	for i := range 40 {
		p := filepath.Join(src, fmt.Sprintf("s%02d.jsonl", i))
		want[p] = []byte(strings.Repeat(fmt.Sprintf(`{"type":"user","message":{"content":"file %d"}}`+"\n", i), 10+i))
	}
	big := filepath.Join(src, "big.jsonl")
	want[big] = randomLines(8000)
	for p, data := range want {
		os.WriteFile(p, data, 0o644)
	}
	keepAll := func(st *Store) {
		t.Helper()
		for p := range want {
			fi, _ := os.Stat(p)
			if err := st.Keep(Entry{Path: p, Root: src, Rel: filepath.Base(p), Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, "2026-11-28"); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(what string) (packs, blobs []string) {
		t.Helper()
		st, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if n := len(st.Entries()); n != len(want) {
			t.Fatalf("%s: %d entries, want %d", what, n, len(want))
		}
		for _, e := range st.Entries() {
			if got, err := st.Read(e); err != nil || !bytes.Equal(got, want[e.Path]) {
				t.Fatalf("%s: %s reads back %d bytes, want %d: %v", what, e.Path, len(got), len(want[e.Path]), err)
			}
		}
		var size int64
		for _, f := range copyFiles(t, dir) {
			if strings.HasSuffix(f, ".pack") {
				packs = append(packs, f)
			} else {
				blobs = append(blobs, f)
			}
			fi, _ := os.Stat(f)
			size += fi.Size()
		}
		if size != st.idx.Stats.StoredBytes {
			t.Errorf("%s: %d bytes of copies on disk, stats say %d", what, size, st.idx.Stats.StoredBytes)
		}
		return packs, blobs
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	keepAll(st)
	// Flushed (as a build does once its sources are kept): the pack is
	// written, nothing waits in memory, and the save writes no other.
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	if files := copyFiles(t, dir); len(st.pending) != 0 || len(files) != 2 {
		t.Fatalf("flushed: %d bytes still wait, copies on disk %v", len(st.pending), files)
	}
	if _, err := st.Save(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	packs, blobs := check("kept")
	if len(packs) != 1 || len(blobs) != 1 {
		t.Fatalf("kept: packs %v, files %v; want one of each", packs, blobs)
	}
	first := packs[0]
	forget := func(n int) {
		t.Helper()
		st, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		k := 0
		st.Forget(func(e *Entry) bool {
			if e.Path != big && k < n {
				k++
				delete(want, e.Path)
				return true
			}
			return false
		})
		if _, err := st.Save(); err != nil {
			t.Fatal(err)
		}
		for h := range st.idx.Packs {
			named := false
			for _, e := range st.idx.Entries {
				named = named || e.Hash == h
			}
			if !named {
				t.Errorf("the index places a copy no entry names (%s)", h)
			}
		}
	}
	// 5 of 40 files changed: their earlier copies, named no more, stay
	// in the first pack, mostly named; the new copies go in a new one.
	changed := 0
	for p := range want {
		if p != big && changed < 5 {
			want[p] = append([]byte("changed "), want[p]...)
			os.WriteFile(p, want[p], 0o644)
			changed++
		}
	}
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	keepAll(st)
	if _, err := st.Save(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if packs, _ := check("5 changed"); len(packs) != 2 || !slices.Contains(packs, first) {
		t.Errorf("5 of 40 changed: packs %v, want %s as it was and a new one", packs, first)
	}
	// 5 forgotten: no pack keeps a byte no entry names, neither theirs
	// nor the changed files' earlier copies.
	forget(5)
	if packs, _ := check("5 forgotten"); len(packs) == 0 || slices.Contains(packs, first) {
		t.Errorf("5 of 40 forgotten: packs %v, want %s written again", packs, first)
	}
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int64{}
	for _, loc := range st.idx.Packs {
		named[loc.Pack] += loc.Len
	}
	st.Close()
	for _, p := range copyFiles(t, dir) {
		if fi, _ := os.Stat(p); strings.HasSuffix(p, ".pack") && fi.Size() != named[filepath.Base(p)] {
			t.Errorf("after forget, %s holds %d bytes, %d of them named", p, fi.Size(), named[filepath.Base(p)])
		}
	}
	forget(25) // 10 of 40 left
	packs, _ = check("30 forgotten")
	if len(packs) != 1 || packs[0] == first {
		t.Errorf("30 of 40 forgotten: packs %v, want one new pack", packs)
	}
	// The pack gone: its files are copied again.
	os.Remove(packs[0])
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	keepAll(st)
	if st.written == 0 {
		t.Error("files whose pack is gone were not copied again")
	}
	if _, err := st.Save(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	check("pack gone, copied again")
	forget(len(want) - 1) // all but the large one
	if packs, blobs := check("all small ones forgotten"); len(packs) != 0 || len(blobs) != 1 {
		t.Errorf("only a large copy named: packs %v, files %v", packs, blobs)
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	os.WriteFile(filepath.Join(dir, "index.json"), bytes.Replace(idx, []byte(`"format":2,`), []byte(`"format":3,`), 1), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "format 3") {
		t.Errorf("an index of format 3 opened: %v", err)
	}
}

// grepArchive lists the files under dir that hold s: as they are on disk,
// or once decoded when they are zstd (a copy, or a pack of copies).
func grepArchive(t *testing.T, dir, s string) []string {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var hits []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		plain, _ := dec.DecodeAll(data, nil) // what decodes before an error
		if bytes.Contains(data, []byte(s)) || bytes.Contains(plain, []byte(s)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

// TestForgetErases: a forgotten file's bytes leave the archive at the
// save: its copy of its own, its copies in packs (the pack written again
// without them, though most of it is still named), the copy of an
// earlier content of it that a pack still held, and its restored copy. A
// copy another entry still names stays.
func TestForgetErases(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	const (
		secretBig   = "zebraquux-big-7d1f"
		secretSmall = "zebraquux-small-90ac"
		secretKept  = "zebraquux-shared-1b2e"
	)
	files := map[string][]byte{
		"big.jsonl":     append(randomLines(8000), `{"type":"user","message":{"content":"`+secretBig+`"}}`+"\n"...),
		"small.jsonl":   []byte(`{"type":"user","message":{"content":"` + secretSmall + ` v1"}}` + "\n"),
		"shared1.jsonl": []byte(`{"type":"user","message":{"content":"` + secretKept + `"}}` + "\n"),
		"shared2.jsonl": []byte(`{"type":"user","message":{"content":"` + secretKept + `"}}` + "\n"),
	}
	for i := range 20 {
		files[fmt.Sprintf("other%02d.jsonl", i)] = []byte(strings.Repeat(fmt.Sprintf(`{"type":"user","message":{"content":"other %d"}}`+"\n", i), 5))
	}
	write := func(rel string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(src, rel), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, data := range files {
		write(rel, data)
	}
	build := func(day string, vanished ...string) {
		t.Helper()
		st, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		seen := map[string]bool{}
		for rel := range files {
			p := filepath.Join(src, rel)
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			seen[p] = true
			if err := st.Keep(Entry{Path: p, Root: src, Rel: rel, Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, day); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := st.Restore(st.Vanished([]string{src}, seen)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Save(); err != nil {
			t.Fatal(err)
		}
	}
	build("2026-11-25")
	// small.jsonl grows: its new copy goes in a pack of its own, its
	// first one stays (unnamed) in the first pack, mostly named.
	files["small.jsonl"] = append(files["small.jsonl"], `{"type":"user","message":{"content":"`+secretSmall+` v2"}}`+"\n"...)
	write("small.jsonl", files["small.jsonl"])
	build("2026-11-26")
	// Claude Code deletes small.jsonl: it is restored from its copy.
	os.Remove(filepath.Join(src, "small.jsonl"))
	build("2026-11-27")
	for _, s := range []string{secretBig, secretSmall, secretKept} {
		if len(grepArchive(t, dir, s)) == 0 {
			t.Fatalf("%s is nowhere in the archive before forget: the test finds nothing", s)
		}
	}
	if len(grepArchive(t, filepath.Join(dir, "restored"), secretSmall)) == 0 {
		t.Fatal("small.jsonl was not restored")
	}

	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := st.Forget(func(e *Entry) bool {
		return e.Rel == "big.jsonl" || e.Rel == "small.jsonl" || e.Rel == "shared1.jsonl"
	})
	if n != 3 {
		t.Errorf("forgot %d entries, want 3", n)
	}
	if _, err := st.Save(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, s := range []string{secretBig, secretSmall} {
		if hits := grepArchive(t, dir, s); len(hits) > 0 {
			t.Errorf("after forget, %q is still in %v", s, hits)
		}
	}
	// What is still named reads back, shared2.jsonl's copy (the same as
	// the forgotten shared1.jsonl's) among them.
	st, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := len(st.Entries()); got != len(files)-3 {
		t.Errorf("%d entries left, want %d", got, len(files)-3)
	}
	for _, e := range st.Entries() {
		if got, err := st.Read(e); err != nil || !bytes.Equal(got, files[e.Rel]) {
			t.Errorf("%s reads back wrong after forget: %v", e.Rel, err)
		}
	}
}

// TestExportNeverOverwrites: exporting into a folder that already has the
// files (the live projects folder) writes those that are missing, leaves
// those with the kept bytes as they are, and never touches one with other
// bytes (Claude Code's newer copy): the kept copy goes beside it, under a
// name that does not end in .jsonl (Claude Code would list it as a
// session), and the file is named in the result.
func TestExportNeverOverwrites(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(t.TempDir(), "archive")
	files := map[string]string{
		"p/missing.jsonl": "kept missing\n",
		"p/same.jsonl":    "kept same\n",
		"p/newer.jsonl":   "kept older\n",
		"p/other.jsonl":   "kept other\n",
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for rel, body := range files {
		p := filepath.Join(src, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		fi, _ := os.Stat(p)
		if err := st.Keep(Entry{Path: p, Root: src, Rel: rel, Kind: KindSession, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}, "2026-11-25"); err != nil {
			t.Fatal(err)
		}
	}
	live := t.TempDir()
	livePath := func(rel string) string { return filepath.Join(live, filepath.FromSlash(rel)) }
	os.MkdirAll(livePath("p"), 0o755)
	now := map[string]string{
		"p/same.jsonl":  "kept same\n",
		"p/newer.jsonl": "kept older\nand a newer line\n",
		"p/other.jsonl": "another session\n",
	}
	for rel, body := range now {
		os.WriteFile(livePath(rel), []byte(body), 0o644)
	}
	sameInfo, _ := os.Stat(livePath("p/same.jsonl"))
	for round := range 2 {
		res, err := st.ExportTo(live)
		if err != nil {
			t.Fatal(err)
		}
		wantWritten, wantSame := 1, 1
		if round == 1 {
			wantWritten, wantSame = 0, 2
		}
		if res.Written != wantWritten || res.Same != wantSame || len(res.Beside) != 2 {
			t.Errorf("round %d: %+v; want %d written, %d the same, 2 beside", round, res, wantWritten, wantSame)
		}
		for rel, body := range now {
			if got, _ := os.ReadFile(livePath(rel)); string(got) != body {
				t.Errorf("round %d: %s was overwritten: %q, was %q", round, rel, got, body)
			}
		}
		if got, _ := os.ReadFile(livePath("p/missing.jsonl")); string(got) != files["p/missing.jsonl"] {
			t.Errorf("round %d: the missing file was not written: %q", round, got)
		}
		if fi, _ := os.Stat(livePath("p/same.jsonl")); !os.SameFile(fi, sameInfo) || !fi.ModTime().Equal(sameInfo.ModTime()) {
			t.Errorf("round %d: the file with the kept bytes was written again", round)
		}
		for _, b := range res.Beside {
			rel, _ := filepath.Rel(live, b.Path)
			rel = filepath.ToSlash(rel)
			if _, differs := now[rel]; !differs || rel == "p/same.jsonl" {
				t.Errorf("round %d: %s set aside", round, rel)
			}
			if strings.HasSuffix(b.Copy, ".jsonl") || filepath.Dir(b.Copy) != filepath.Dir(b.Path) {
				t.Errorf("round %d: kept copy of %s written as %s", round, b.Path, b.Copy)
			}
			if got, _ := os.ReadFile(b.Copy); string(got) != files[rel] {
				t.Errorf("round %d: the copy beside %s holds %q, want the kept %q", round, rel, got, files[rel])
			}
		}
	}
	// The copy beside a file, itself changed since: never overwritten
	// either, the kept copy goes under another name.
	res, _ := st.ExportTo(live)
	if len(res.Beside) == 0 {
		t.Fatal("nothing beside")
	}
	b := res.Beside[0]
	os.WriteFile(b.Copy, []byte("edited by hand\n"), 0o644)
	res, err = st.ExportTo(live)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(b.Copy); string(got) != "edited by hand\n" {
		t.Errorf("the edited copy beside %s was overwritten", b.Path)
	}
	for _, c := range res.Beside {
		if c.Path == b.Path && (c.Copy == b.Copy || strings.HasSuffix(c.Copy, ".jsonl")) {
			t.Errorf("kept copy of %s written as %s", c.Path, c.Copy)
		}
	}
}
