package build

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"ccsite/build/archive"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/search"
)

// TestStateRoundTrip: the manifest reads back as it was written, every
// kind of field a unit holds included (times, durations, costs, an orphan's
// link, problems, redaction counts), and a second write of what was read
// is the same bytes.
func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 5, 1, 9, 30, 0, 123456789, time.UTC)
	st := &buildState{
		Format: stateFormat, Tool: "tool", Options: "opts",
		Sources: map[string]source{"b/x.jsonl": {Size: 10, MTime: 99, Hash: "ab"}, "a/y.jsonl": {Size: 1}},
		Units: map[string]*unit{
			"p/s.html": {Key: "k", Session: "s", Title: "Fix the <b>thing</b> \u2028 ünïcode", Project: "/home/p",
				Refs: []string{"r"}, Files: []string{"p/s.html", "p/s.md"}, DocsHash: "dh",
				Overview: session.Overview{Title: "t", Start: start, End: start.Add(time.Hour), Active: 37*time.Minute + 5*time.Millisecond,
					Turns: 3, Tokens: session.Tokens{Input: 5, Output: 7, CacheRead: 1 << 40}, Models: []string{"m"},
					Cost: 0.1 + 0.2, CostByModel: map[string]float64{"m": 1e-9, "n": 3}},
				Pages: 2, Problems: []session.Problem{{File: "f", Line: 3, Kind: "line", Reason: "bad"}},
				Redacted: map[string]map[string]int{"f": {"aws": 2}}},
			"p/agent-a.html": {Key: "o", Orphan: &render.Nav{Title: "o", URL: "../x.html", Time: render.Time{ISO: "i", Zero: true}},
				Files: []string{"p/agent-a.html"}, Deleted: "2026-05-02"},
		},
		Static: []string{"search/index.js"}, Search: search.StaticStats{Docs: 4, Bytes: 5}, Docs: 4, IndexUpdated: true,
	}
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, stateFile))
	got := readState(dir, "tool", "opts")
	if got == nil {
		t.Fatalf("the manifest written does not read back:\n%s", first)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("read back:\n%+v\nwant:\n%+v", got, st)
	}
	os.Remove(filepath.Join(dir, stateFile))
	if err := writeState(dir, got); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(filepath.Join(dir, stateFile)); string(second) != string(first) {
		t.Errorf("written again, the manifest changed:\n%s\n%s", first, second)
	}
	if readState(dir, "other tool", "opts") != nil || readState(dir, "tool", "other") != nil {
		t.Error("a manifest of another tool or other options was taken")
	}
	st.IndexUpdated = false
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, stateFile)); len(data) == 0 || strings.Contains(string(data), "indexUpdated") {
		t.Errorf("an index made anew is still said to be updated: %s", data)
	}
}

// TestSameWriter: what is written is compared with the old file as it
// streams; the result is "same" only when the two are equal whole, and
// otherwise buf holds exactly what was written, whatever the chunking and
// wherever the two part (start, middle, end, one a prefix of the other).
func TestSameWriter(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for i := 0; big.Len() < 300<<10; i++ {
		fmt.Fprintf(&big, "line %d of the old manifest\n", i)
	}
	old := big.String()
	flip := func(s string, i int) string { return s[:i] + "#" + s[i+1:] }
	for _, c := range []struct {
		name, new string
	}{
		{"equal", old},
		{"first byte", flip(old, 0)},
		{"middle", flip(old, len(old)/2)},
		{"last byte", flip(old, len(old)-1)},
		{"a prefix of old", old[:len(old)-10]},
		{"old a prefix", old + "more\n"},
		{"empty", ""},
	} {
		for _, chunk := range []int{1 << 10, 7919, 100 << 10, 1 << 20} {
			p := filepath.Join(dir, "old")
			if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			w := &sameWriter{old: f, br: bufio.NewReaderSize(f, 64<<10), size: int64(len(old))}
			for s := c.new; len(s) > 0; {
				k := min(chunk, len(s))
				if n, err := w.Write([]byte(s[:k])); n != k || err != nil {
					t.Fatalf("%s: Write = %d, %v", c.name, n, err)
				}
				s = s[k:]
			}
			same := w.same()
			if !same {
				if err := w.keep(0); err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
			if same != (c.new == old) {
				t.Errorf("%s, chunks of %d: same = %v", c.name, chunk, same)
			} else if !same && string(w.buf) != c.new {
				t.Errorf("%s, chunks of %d: buf holds %d bytes, not the %d written", c.name, chunk, len(w.buf), len(c.new))
			}
		}
	}
	// No old file: everything is kept.
	w := &sameWriter{}
	w.Write([]byte("abc"))
	if w.same() || w.keep(0) != nil || string(w.buf) != "abc" {
		t.Errorf("without an old file: same = %v, buf = %q", w.same(), w.buf)
	}
}

// TestFingerprintTakesKeptHash: a file the archive has just read at the
// size and mtime the walk found is not hashed again (its kept hash is
// taken: here a made-up one, to tell); a file whose kept entry is of
// another mtime is; both are what hashFile gives when hashed.
func TestFingerprintTakesKeptHash(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for p, data := range map[string]string{a: `{"type":"user"}` + "\n", b: `{"type":"assistant"}` + "\n"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stat := func(p string) fs.FileInfo {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	arch := &archive.Archive{Projects: []*archive.Project{{Sessions: []*archive.SessionFile{
		{Path: a, Info: stat(a)}, {Path: b, Info: stat(b)}}}}}
	made := strings.Repeat("ab", 32)
	kept := func(path string, size, mtime int64) (string, bool) {
		fi := stat(path)
		switch path {
		case a:
			if size == fi.Size() && mtime == fi.ModTime().UnixNano() {
				return made, true
			}
		case b:
			if size == fi.Size() && mtime == fi.ModTime().UnixNano()+1 {
				return made, true
			}
		}
		return "", false
	}
	fp := fingerprint(arch, nil, 2, kept)
	if got := fp[a].Hash; got != made[:32] {
		t.Errorf("a: hash %q, want the kept one's first half %q", got, made[:32])
	}
	if got, want := fp[b].Hash, hashFile(b); got != want || got == "" {
		t.Errorf("b: hash %q, want %q (hashed: its kept entry is of another mtime)", got, want)
	}
	// The archive's hash of a file is the one hashFile's is the half of.
	data, _ := os.ReadFile(a)
	sum := sha256.Sum256(data)
	if full := hex.EncodeToString(sum[:]); full[:32] != hashFile(a) {
		t.Errorf("hashFile(a) = %q, not the first half of the content's SHA-256 %q", hashFile(a), full)
	}
}
