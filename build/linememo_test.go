package build

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/transcript"
)

// TestLineMemo: a file read again in the same bytes filters only the lines
// the filter changed before; lines after the bytes it remembers (a session
// appended to) and every line of a file whose remembered head changed, even
// at the same size, are filtered; what the memo passes on is what the filter
// gives; another redactor or omission finds nothing.
func TestLineMemo(t *testing.T) {
	dir := t.TempDir()
	var calls []int
	filter := func(_ string, line []byte) []byte {
		if bytes.Contains(line, []byte("SECRET")) {
			return bytes.ReplaceAll(line, []byte("SECRET"), []byte("[gone]"))
		}
		return line
	}
	// read filters data as the decoder would, through the memo of a cache
	// opened anew (a later build), and checks the lines against filter's.
	read := func(how, fp, omit string, data string) {
		t.Helper()
		c, err := openDiskCache(dir, "tool")
		if err != nil {
			t.Fatal(err)
		}
		m := newLineMemo(c, fp, omit, filter, nil)
		calls = calls[:0]
		lf := m.Lines("s.jsonl", []byte(data))
		for i, line := range strings.SplitAfter(data, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			line = strings.TrimSuffix(line, "\n")
			in := []byte(line)
			got := lf.(*memoLines).lineCounted(i+1, in, &calls)
			if want := filter("", []byte(line)); !bytes.Equal(got, want) {
				t.Errorf("%s: line %d is %q, want %q", how, i+1, got, want)
			}
		}
		lf.Done()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	want := func(how string, filtered ...int) {
		t.Helper()
		if fmt.Sprint(calls) != fmt.Sprint(filtered) {
			t.Errorf("%s: lines filtered %v, want %v", how, calls, filtered)
		}
	}
	v1 := "clean one\nthe SECRET\n\nclean two\nhalf a li"
	read("first read", "fp", "o", v1)
	want("first read", 1, 2, 4, 5)
	read("same bytes", "fp", "o", v1)
	want("same bytes", 2, 5) // the changed line, and the last, not ended then
	read("another redactor", "fp2", "o", v1)
	want("another redactor", 1, 2, 4, 5)
	read("other omissions", "fp", "o2", v1)
	want("other omissions", 1, 2, 4, 5)
	v2 := "clean one\nthe SECRET\n\nclean two\nhalf a line\nclean three\nnew SECRET\n"
	read("appended", "fp", "o", v2)
	want("appended", 2, 5, 6, 7)
	read("appended, again", "fp", "o", v2)
	want("appended, again", 2, 7)
	// The same size, a clean line now a secret: every line filtered.
	v3 := strings.Replace(v2, "clean two", "SECRET!!!", 1)
	if len(v3) != len(v2) {
		t.Fatal("v3 is not v2's size")
	}
	read("rewritten in place", "fp", "o", v3)
	want("rewritten in place", 1, 2, 4, 5, 6, 7)
	read("rewritten, again", "fp", "o", v3)
	want("rewritten, again", 2, 4, 7)
	// Shorter than what is remembered: all filtered again.
	read("cut short", "fp", "o", "clean one\n")
	want("cut short", 1)
	// Streamed (no bytes): every line through the streamed filter.
	c, err := openDiskCache(dir, "tool")
	if err != nil {
		t.Fatal(err)
	}
	var streamed []string
	m := newLineMemo(c, "fp", "o", filter, func(name string, line []byte) []byte {
		streamed = append(streamed, name+":"+string(line))
		return line
	})
	lf := m.Lines("t.jsonl", nil)
	lf.Line(1, []byte("x"))
	lf.Done()
	c.Close()
	if fmt.Sprint(streamed) != "[t.jsonl:x]" {
		t.Errorf("streamed: the streamed filter saw %q", streamed)
	}
}

// lineCounted is Line, noting in calls each line given to the filter.
func (l *memoLines) lineCounted(n int, line []byte, calls *[]int) []byte {
	f := l.m.filter
	l.m.filter = func(name string, line []byte) []byte {
		*calls = append(*calls, n)
		return f(name, line)
	}
	defer func() { l.m.filter = f }()
	return l.Line(n, line)
}

// TestFileLinesEncoding: a memo's value reads back as written, and a value
// cut anywhere or changed is not taken for another.
func TestFileLinesEncoding(t *testing.T) {
	f := fileLines{size: 123456, lines: 300, changed: []int{1, 2, 77, 300}}
	copy(f.sum[:], bytes.Repeat([]byte{0xab}, len(f.sum)))
	v := f.encode()
	got, ok := decodeFileLines([]byte(v))
	if !ok || fmt.Sprint(got) != fmt.Sprint(f) {
		t.Fatalf("decoded %v, %v; want %v", got, ok, f)
	}
	for i := range len(v) {
		if g, ok := decodeFileLines([]byte(v[:i])); ok {
			t.Errorf("value cut at %d read as %v", i, g)
		}
	}
	if _, ok := decodeFileLines([]byte(v + "x")); ok {
		t.Error("a value with a byte more is read")
	}
	bad := fileLines{size: 1, lines: 2, changed: []int{3}}
	if _, ok := decodeFileLines([]byte(bad.encode())); ok {
		t.Error("a changed line past the lines is read")
	}
	var _ transcript.FileFilter = &lineMemo{}
}

// TestLineMemoSecretsInPlace: a session rewritten in place, at the same
// size and with its old modification time, a secret where a clean line's
// filler was, and then appended a line with another: a --force build with
// the cache that remembers the file's lines clean publishes neither.
func TestLineMemoSecretsInPlace(t *testing.T) {
	sec := fakeSecrets()
	in, _ := secretArchive(t, sec)
	path := filepath.Join(in, "-home-kim-shop", "5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b.jsonl")
	filler := strings.Repeat("z", len(sec["stripe"]))
	note := func(uuid, text string) string {
		return `{"uuid":"` + uuid + `","parentUuid":"44444444-4444-4444-8444-444444444444","type":"user","sessionId":"5e0f6a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b",` +
			`"cwd":"/home/kim/shop","timestamp":"2026-03-01T10:05:00Z","version":"2.1.3","message":{"role":"user","content":"a note: ` + text + `"}}` + "\n"
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(note("77777777-7777-4777-8777-777777777777", filler))
	f.Close()
	cache := t.TempDir()
	build := func(out string) Summary { return redactedForceBuild(t, in, out, cache) }
	build(filepath.Join(t.TempDir(), "one"))
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	changed := bytes.Replace(data, []byte(filler), []byte(sec["stripe"]), 1)
	if len(changed) != len(data) || bytes.Equal(changed, data) {
		t.Fatal("the rewrite changed the size, or nothing")
	}
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	leaks := func(how, out string) {
		t.Helper()
		all := readAll(t, out)
		if !strings.Contains(all, "a note: ") {
			t.Fatalf("%s: the note is not in the site: the test tests nothing", how)
		}
		for name, v := range sec {
			if name != "literal" && name != "userregx" && strings.Contains(all, v) {
				t.Errorf("%s: the %s secret is in the site", how, name)
			}
		}
	}
	two := filepath.Join(t.TempDir(), "two")
	build(two)
	leaks("rewritten in place", two)
	f, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(note("88888888-8888-4888-8888-888888888888", sec["github"]))
	f.Close()
	three := filepath.Join(t.TempDir(), "three")
	build(three)
	leaks("appended", three)
}

// TestHeadSumChanges: a head changed in any one byte, or cut by one, sums
// otherwise (the memo takes a head with its old sum for the same bytes).
func TestHeadSumChanges(t *testing.T) {
	head := []byte(strings.Repeat(`{"type":"user","message":{"content":"AKIA and more"}}`+"\n", 80))
	want := headSum(head)
	if headSum(bytes.Clone(head)) != want {
		t.Fatal("the same bytes sum otherwise")
	}
	for i := range head {
		b := bytes.Clone(head)
		b[i] ^= 0x20
		if headSum(b) == want {
			t.Fatalf("byte %d changed: same sum", i)
		}
	}
	if headSum(head[:len(head)-1]) == want {
		t.Fatal("a head one byte shorter: same sum")
	}
}
