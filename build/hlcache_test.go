package build

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestDiskCacheCold: a cache opened empty looks nothing up (a cold build's
// every lookup would miss), and what it stored is found when it is opened
// again, by a warm build.
func TestDiskCacheCold(t *testing.T) {
	dir := t.TempDir()
	c, err := openDiskCache(dir, "tool")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range c.empty {
		if !e {
			t.Errorf("bucket %d of a new cache is not marked empty", i)
		}
	}
	block := sha256.Sum256([]byte("func main() {}"))
	line := sha256.Sum256([]byte(`{"type":"user"}`))
	c.Put(block, "<pre>func main() {}</pre>")
	lines := newCleanLines(c, "fp", cleanKind)
	lines.MarkClean(line)
	dirty := sha256.Sum256([]byte(`{"type":"user","secret":"sk_live_x"}`))
	big := sha256.Sum256([]byte("a long line"))
	lines.MarkRedacted(big, bytes.Repeat([]byte("x"), redactedMax+1), map[string]int{"image-metadata": 1})
	lines.MarkRedacted(dirty, []byte(`{"type":"user","secret":"[REDACTED:stripe-access-token]"}`), map[string]int{"stripe-access-token": 1, "generic-api-key": 2})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = openDiskCache(dir, "tool")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.empty[hlKind] || c.empty[cleanKind] || !c.empty[namesKind] {
		t.Errorf("reopened cache: empty buckets %v, want only names", c.empty)
	}
	if got, ok := c.Get(block); !ok || got != "<pre>func main() {}</pre>" {
		t.Errorf("warm Get = %q, %v", got, ok)
	}
	if !newCleanLines(c, "fp", cleanKind).Clean(line) {
		t.Error("a line marked clean is not found when the cache is opened again")
	}
	if newCleanLines(c, "other redactor", cleanKind).Clean(line) {
		t.Error("a line marked clean by another redactor is found")
	}
	warm := newCleanLines(c, "fp", cleanKind)
	if warm.Clean(dirty) {
		t.Error("a redacted line is found clean")
	}
	out, rules, ok := warm.Known(dirty)
	if !ok || string(out) != `{"type":"user","secret":"[REDACTED:stripe-access-token]"}` ||
		fmt.Sprint(rules) != "map[generic-api-key:2 stripe-access-token:1]" {
		t.Errorf("warm Known of a redacted line = %q, %v, %v", out, rules, ok)
	}
	if out, _, ok := warm.Known(line); !ok || out != nil {
		t.Errorf("warm Known of a clean line = %q, %v", out, ok)
	}
	if _, _, ok := warm.Known(big); ok {
		t.Error("a redacted line over redactedMax was kept")
	}
	if _, ok := c.Get(sha256.Sum256([]byte("never stored"))); ok {
		t.Error("a block never stored is found")
	}
}

// TestDecodeRedactedBroken: a value cut anywhere, or garbage, is not known
// (the line is scanned again), never a panic or a wrong line.
func TestDecodeRedactedBroken(t *testing.T) {
	v := encodeRedacted([]byte(`{"a":"[REDACTED:x]"}`), map[string]int{"x": 1, "generic-api-key": 300})
	if out, rules, ok := decodeRedacted([]byte(v[1:])); !ok || string(out) != `{"a":"[REDACTED:x]"}` || rules["generic-api-key"] != 300 {
		t.Fatalf("round trip: %q %v %v", out, rules, ok)
	}
	for n := 1; n < len(v)-len(`{"a":"[REDACTED:x]"}`); n++ {
		if out, _, ok := decodeRedacted([]byte(v[1:n])); ok {
			t.Errorf("cut at %d: read as %q", n, out)
		}
	}
	for _, g := range []string{"", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\x05\x01", "\x01\xff\x01"} {
		if _, _, ok := decodeRedacted([]byte(g)); ok {
			t.Errorf("garbage %q read as a line", g)
		}
	}
}

// TestDiskCacheOtherTool: a cache another binary wrote is removed when a
// build opens its own (its keys hold that binary's identity: nothing in
// it could be found), and the two never share a file.
func TestDiskCacheOtherTool(t *testing.T) {
	dir := t.TempDir()
	block := sha256.Sum256([]byte("func main() {}"))
	c, err := openDiskCache(dir, "tool A")
	if err != nil {
		t.Fatal(err)
	}
	c.Put(block, "<pre>A</pre>")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		names, _ := filepath.Glob(filepath.Join(dir, "highlight*.db"))
		return names
	}
	a := files()
	if len(a) != 1 {
		t.Fatalf("cache files %v", a)
	}
	c, err = openDiskCache(dir, "tool B")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(block); ok {
		t.Error("tool B found tool A's block")
	}
	c.Put(block, "<pre>B</pre>")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if b := files(); len(b) != 1 || b[0] == a[0] {
		t.Errorf("after tool B: cache files %v (tool A's was %v)", b, a)
	}
	c, err = openDiskCache(dir, "tool B")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, ok := c.Get(block); !ok || got != "<pre>B</pre>" {
		t.Errorf("tool B's own block: %q, %v", got, ok)
	}
}

// TestDiskCacheFlush: Flush has the queued entries written before Close
// (their values then no longer held by the writer's batch), and the cache
// takes puts after it as before.
func TestDiskCacheFlush(t *testing.T) {
	dir := t.TempDir()
	c, err := openDiskCache(dir, "tool")
	if err != nil {
		t.Fatal(err)
	}
	stored := func(k [32]byte) bool {
		found := false
		c.db.View(func(tx *bolt.Tx) error {
			found = tx.Bucket(buckets[hlKind]).Get(c.key(k)) != nil
			return nil
		})
		return found
	}
	first := sha256.Sum256([]byte("first"))
	c.Put(first, "<pre>first</pre>")
	time.Sleep(50 * time.Millisecond)
	if stored(first) {
		t.Fatal("a single put is written before a flush: the test shows nothing")
	}
	c.Flush()
	for deadline := time.Now().Add(5 * time.Second); !stored(first); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Flush did not write the queued entry")
		}
	}
	second := sha256.Sum256([]byte("second"))
	c.Put(second, "<pre>second</pre>")
	c.Flush()
	c.Flush() // an empty batch
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = openDiskCache(dir, "tool")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, k := range [][32]byte{first, second} {
		if got, ok := c.Get(k); !ok || !strings.HasPrefix(got, "<pre>") {
			t.Errorf("after reopening: %q, %v", got, ok)
		}
	}
	var nilCache *diskCache
	nilCache.Flush() // no cache: nothing
}
