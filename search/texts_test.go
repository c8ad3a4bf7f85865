package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTextKinds: a text is kept as it is when short or when S2 does not
// shrink it, else as an S2 block; each reads back whole. A text another
// than its meta says, a damaged byte in the log, an index cut short, or
// files that are not texts files, are errors, never a wrong text.
func TestTextKinds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	st, err := openTexts(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"short":  "a short text",
		"long":   strings.Repeat("the same words again and again, ", 100),
		"random": noise(7, 2000),
	}
	// a text over textBufKept (its buffer not kept), and texts after it
	texts["huge"] = strings.Repeat(texts["random"], textBufKept/2000+1)
	texts["after"] = "after " + texts["long"]
	for _, id := range []string{"short", "long", "random", "huge", "after"} {
		if err := st.put(id, uint64(len(id)), texts[id]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	read := func() (map[string]string, map[string]error) {
		got, errs := map[string]string{}, map[string]error{}
		viewTexts(t, dir, func(get func(m *meta) (string, error)) {
			for id, want := range texts {
				got[id], errs[id] = get(&meta{id: id, hash: uint64(len(id)), text: int64(len(want))})
			}
		})
		return got, errs
	}
	// Asked for one id, the reader holds that one alone; another is
	// read with the whole index then.
	r0, err := openTextReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r0.want([]string{"long", "none"}); err != nil || len(r0.at) != 1 || r0.full {
		t.Errorf("asked for long and none: %d ids held (%v), whole %v", len(r0.at), err, r0.full)
	}
	if got, err := r0.get(&meta{id: "short", hash: 5, text: int64(len(texts["short"]))}); err != nil || got != texts["short"] || !r0.full {
		t.Errorf("an id not asked for: %q, %v, whole %v", got, err, r0.full)
	}
	r0.close()
	got, errs := read()
	for id, want := range texts {
		if errs[id] != nil || got[id] != want {
			t.Errorf("%s: %.40q, %v", id, got[id], errs[id])
		}
	}
	log, _ := os.ReadFile(textsLogPath(dir))
	at := len(textsMagic)
	kinds := []byte{log[at]}
	at += 1 + len(texts["short"])
	kinds = append(kinds, log[at])
	if kinds[0] != textRaw || kinds[1] != textS2 {
		t.Errorf("kinds %v: want short raw, long S2", kinds)
	}
	r, err := openTextReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.view(func(get func(m *meta) (string, error)) error {
		if _, err := get(&meta{id: "long", hash: 4, text: 5}); !errors.Is(err, errStale) {
			t.Errorf("a text of another length: %v, want stale", err)
		}
		if _, err := get(&meta{id: "long", hash: 5, text: int64(len(texts["long"]))}); !errors.Is(err, errStale) {
			t.Errorf("a text of another hash: %v, want stale", err)
		}
		if _, err := get(&meta{id: "none", hash: 4, text: 5}); !errors.Is(err, errStale) {
			t.Errorf("no text: %v, want stale", err)
		}
		return nil
	})
	r.close()
	// A byte of the long text's block changed: an error, never a text.
	bad := bytes.Clone(log)
	bad[at+5+4] ^= 1
	os.WriteFile(textsLogPath(dir), bad, 0o644)
	if got, errs := read(); errs["long"] == nil || errs["short"] != nil {
		t.Errorf("a damaged text read back: %.40q, %v; the others: %v", got["long"], errs["long"], errs["short"])
	}
	os.WriteFile(textsLogPath(dir), log, 0o644)
	// An index cut short.
	idx, _ := os.ReadFile(textsIdxPath(dir))
	os.WriteFile(textsIdxPath(dir), idx[:len(idx)-3], 0o644)
	if r, err := openTextReader(dir); err == nil {
		if r.want(nil) == nil {
			t.Error("an index cut short read")
		}
		if r.want([]string{"short"}) == nil {
			t.Error("an index cut short read for one id")
		}
		r.close()
	}
	// Not texts files (a bbolt file, as builds before wrote): not opened.
	os.WriteFile(textsIdxPath(dir), []byte("something else entirely"), 0o644)
	if _, err := openTexts(dir, false); err == nil {
		t.Error("an index of another kind opened to change it")
	}
	if _, err := openTextReader(dir); err == nil {
		t.Error("an index of another kind opened to read it")
	}
}

// TestTextChanges: the last change of an id wins: put then delete
// forgets, delete then put keeps, the last of two puts wins, across
// writers appending to the files; once the log has doubled, the build
// that changes it writes it again with the live texts alone, which read
// back the same.
func TestTextChanges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	st, err := openTexts(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range 3000 {
		id := fmt.Sprintf("d%05d", (i*7919)%3000)
		want[id] = "text " + id
		if err := st.put(id, 1, "text "+id); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	st, err = openTexts(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	// Made anew, the log is whole: its size is the base.
	if fi, err := st.log.Stat(); err != nil || st.base != fi.Size() {
		t.Errorf("a new log of %d bytes (%v) has the base %d", fi.Size(), err, st.base)
	}
	steps := []func() error{
		func() error { return st.put("gone", 1, "x") }, func() error { return st.del("gone") },
		func() error { return st.del("back") }, func() error { return st.put("back", 1, "here") },
		func() error { return st.put("twice", 1, "first") }, func() error { return st.put("twice", 1, "second") },
		func() error { return st.del("d00007") }, func() error { return st.put("d00008", 1, "changed") },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	want["back"], want["twice"], want["d00008"] = "here", "second", "changed"
	delete(want, "d00007")
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		viewTexts(t, dir, func(get func(m *meta) (string, error)) {
			for id, w := range want {
				if got, err := get(&meta{id: id, hash: 1, text: int64(len(w))}); err != nil || got != w {
					t.Errorf("%s: %s: %q, %v; want %q", when, id, got, err, w)
				}
			}
			for _, id := range []string{"gone", "d00007"} {
				if _, err := get(&meta{id: id, hash: 1, text: 1}); err == nil {
					t.Errorf("%s: %s, deleted, is there", when, id)
				}
			}
		})
	}
	check("appended")
	// Texts replaced until the log is twice its size and 16 MB more.
	size := func() int64 {
		fi, err := os.Stat(textsLogPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	// Text S2 does not shrink, kept as it is.
	big := noise(11, 1<<20)
	compacted := false
	for k := 0; k < 40 && !compacted; k++ {
		st, err := openTexts(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.put("big", 1, big[:len(big)-k]); err != nil {
			t.Fatal(err)
		}
		want["big"] = big[:len(big)-k]
		grown := st.off
		if err := st.close(); err != nil {
			t.Fatal(err)
		}
		compacted = size() < grown
	}
	if !compacted {
		t.Fatalf("the log grew to %d bytes from %d and was never written again", size(), before)
	}
	if after := size(); after > before+2<<20 {
		t.Errorf("compacted: %d bytes, want the live texts' (about %d)", after, before+1<<20)
	}
	check("compacted")
	if _, err := os.Stat(textsLogPath(dir) + ".new"); !os.IsNotExist(err) {
		t.Errorf("the compaction left its new log: %v", err)
	}
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

// TestTextShared: a text put again while the store is open is written
// once, each put keeping its own DocHash; deleting one put leaves the
// others; a compaction writes a shared text once, still shared.
func TestTextShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	st, err := openTexts(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a text of many words, repeated, ", 40)
	texts := map[string]string{"a": long, "b": long, "c": "short", "d": "short", "e": long + "."}
	hashes := map[string]uint64{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if err := st.put(id, hashes[id], texts[id]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	places := func() map[string]textLoc {
		t.Helper()
		idx, err := os.Open(textsIdxPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		defer idx.Close()
		fi, _ := os.Stat(textsLogPath(dir))
		at, err := readTextIndex(idx, fi.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	at := places()
	if at["a"].off != at["b"].off || at["c"].off != at["d"].off || at["a"].off == at["e"].off {
		t.Errorf("one text, one place; two, two: %+v", at)
	}
	if at["a"].hash != 1 || at["b"].hash != 2 {
		t.Errorf("shared puts keep their own hashes: %+v", at)
	}
	check := func(when string) {
		t.Helper()
		viewTexts(t, dir, func(get func(m *meta) (string, error)) {
			for id, want := range texts {
				if got, err := get(&meta{id: id, hash: hashes[id], text: int64(len(want))}); err != nil || got != want {
					t.Errorf("%s: %s: %.30q, %v", when, id, got, err)
				}
			}
			if _, err := get(&meta{id: "b", hash: 1, text: int64(len(long))}); !errors.Is(err, errStale) {
				t.Errorf("%s: b read with a's hash: %v, want stale", when, err)
			}
		})
	}
	check("written")
	// Deleted, a's put goes; b's stays. Replaced until compacted.
	st, err = openTexts(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.del("a"); err != nil {
		t.Fatal(err)
	}
	delete(texts, "a")
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	check("a deleted")
	big := noise(5, 1<<20)
	for k := 0; ; k++ {
		if k == 40 {
			t.Fatal("never compacted")
		}
		st, err := openTexts(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		texts["big"], hashes["big"] = big[:len(big)-k], 6
		if err := st.put("big", 6, texts["big"]); err != nil {
			t.Fatal(err)
		}
		grown := st.off
		if err := st.close(); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(textsLogPath(dir)); fi.Size() < grown {
			break
		}
	}
	check("compacted")
	at = places()
	if at["c"].off != at["d"].off || at["b"].off == at["e"].off {
		t.Errorf("compacted: shared texts no longer shared, or others merged: %+v", at)
	}
}

// viewTexts calls fn with a reader's get on the texts files of dir.
func viewTexts(t *testing.T, dir string, fn func(get func(m *meta) (string, error))) {
	t.Helper()
	r, err := openTextReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if err := r.view(func(get func(m *meta) (string, error)) error { fn(get); return nil }); err != nil {
		t.Fatal(err)
	}
}

// noise is n pseudo-random bytes from seed: a text S2 does not shrink.
func noise(seed uint32, n int) string {
	b := make([]byte, n)
	for i := range b {
		seed = seed*1664525 + 1013904223
		b[i] = byte(seed >> 24)
	}
	return string(b)
}
