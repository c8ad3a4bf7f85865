package search

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// TestTextKinds: a text is kept as it is when short or when S2 does not
// shrink it, else as an S2 block; each reads back whole, and so does a
// zstd frame as builds before S2 wrote them. A text another than its meta
// says, or a damaged block, is an error, never a wrong text.
func TestTextKinds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	st, err := openTexts(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"short": "a short text",
		"long":  strings.Repeat("the same words again and again, ", 100),
		"random": func() string {
			var b strings.Builder
			x := uint32(7)
			for range 2000 {
				x = x*1664525 + 1013904223
				b.WriteByte(byte(x >> 24))
			}
			return b.String()
		}(),
	}
	for id, text := range texts {
		if err := st.put(id, uint64(len(id)), text); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	// What a build before S2 wrote, and a damaged block.
	old := strings.Repeat("an older build's text, ", 50)
	db, err := bolt.Open(textsPath(dir), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]byte{}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(textsBucket)
		enc, _ := zstd.NewWriter(nil)
		v := make([]byte, 9)
		binary.LittleEndian.PutUint64(v, uint64(len("zstd")))
		v[8] = textZstd
		if err := b.Put([]byte("zstd"), enc.EncodeAll([]byte(old), v)); err != nil {
			return err
		}
		// A byte of the block's first literal (after its length, two
		// bytes of varint, and the literal's tag): the block still decodes.
		bad := append([]byte(nil), b.Get([]byte("long"))...)
		bad[13+2+1+2] ^= 0x01
		if err := b.Put([]byte("bad"), bad); err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error { kinds[string(k)] = v[8]; return nil })
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if kinds["short"] != textRaw || kinds["long"] != textS2 || kinds["random"] != textRaw || kinds["zstd"] != textZstd {
		t.Errorf("kinds %v: want short and random raw, long S2", kinds)
	}
	texts["zstd"] = old
	r, err := openTextReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	err = r.view(func(get func(m *meta) (string, error)) error {
		for id, want := range texts {
			got, err := get(&meta{id: id, hash: uint64(len(id)), text: int64(len(want))})
			if err != nil || got != want {
				t.Errorf("%s: %.40q, %v", id, got, err)
			}
		}
		if _, err := get(&meta{id: "long", hash: 4, text: 5}); !errors.Is(err, errStale) {
			t.Errorf("a text of another length: %v, want stale", err)
		}
		if got, err := get(&meta{id: "bad", hash: 4, text: int64(len(texts["long"]))}); err == nil {
			t.Errorf("a damaged block read back: %.40q", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTextChangesInOrder: changes wait and go in sorted by id, but those of
// one id keep their order: put then delete forgets, delete then put keeps,
// the last of two puts wins; batches commit as they fill.
func TestTextChangesInOrder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	st, err := openTexts(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range textsBatch + 10 { // a full batch, and more
		id := fmt.Sprintf("d%05d", (i*7919)%(textsBatch+10))
		want[id] = "text " + id
		if err := st.put(id, 1, "text "+id); err != nil {
			t.Fatal(err)
		}
	}
	steps := []func() error{
		func() error { return st.put("gone", 1, "x") }, func() error { return st.del("gone") },
		func() error { return st.del("back") }, func() error { return st.put("back", 1, "here") },
		func() error { return st.put("twice", 1, "first") }, func() error { return st.put("twice", 1, "second") },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	want["back"], want["twice"] = "here", "second"
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	r, err := openTextReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	r.view(func(get func(m *meta) (string, error)) error {
		for id, w := range want {
			if got, err := get(&meta{id: id, hash: 1, text: int64(len(w))}); err != nil || got != w {
				t.Errorf("%s: %q, %v; want %q", id, got, err, w)
			}
		}
		if _, err := get(&meta{id: "gone", hash: 1, text: 1}); err == nil {
			t.Error("a text put then deleted is there")
		}
		return nil
	})
}

// TestDisplayBodyAsJSON: a display shard's body, written by hand, is what
// encoding/json wrote: every byte, the escapes a script needs (<, >, &,
// U+2028, U+2029), invalid UTF-8, control bytes, empty and nil lists.
func TestDisplayBodyAsJSON(t *testing.T) {
	ref := func(docs []displayRow) []byte {
		var pages, titles, sessions []string
		at := map[string]int{}
		index := func(list *[]string, kind, v string) int {
			k := kind + "\x00" + v
			i, ok := at[k]
			if !ok {
				i = len(*list)
				at[k] = i
				*list = append(*list, v)
			}
			return i
		}
		rows := make([][]any, 0, len(docs))
		for _, d := range docs {
			page, anchor, _ := strings.Cut(d.m.id, "#")
			var tm int64
			if !d.m.time.IsZero() {
				tm = d.m.time.Unix()
			}
			rows = append(rows, []any{index(&pages, "p", page), anchor, index(&titles, "t", d.m.title), tm, d.text, d.kind, d.project,
				index(&sessions, "s", d.m.session)})
		}
		b, _ := json.Marshal([]any{pages, titles, rows, sessions})
		return b
	}
	var all strings.Builder
	for c := range 256 {
		all.WriteByte(byte(c))
	}
	texts := []string{"", "plain", all.String(), "a\u2028b\u2029c", "<script>&amp;</script>", "é😀\xff\xfe\xc3", `"quoted" \back\slash`, "\x00\x1f\x7f"}
	var docs []displayRow
	for i, s := range texts {
		m := meta{id: fmt.Sprintf("p%d.html#m-%d%s", i%3, i, s[:min(len(s), 3)]), title: "t<" + s, session: fmt.Sprintf("s%d", i%2)}
		if i%2 == 1 {
			m.time = time.Unix(int64(1700000000+i), 0)
		}
		docs = append(docs, displayRow{m: m, text: s, kind: i, project: -i})
	}
	for _, d := range [][]displayRow{docs, docs[:1], nil, {}} {
		if got, want := appendDisplayBody(nil, d), ref(d); !bytes.Equal(got, want) {
			t.Errorf("display body:\n%q\nencoding/json:\n%q", got, want)
		}
	}
}
