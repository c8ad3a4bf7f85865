package build

import (
	"crypto/sha256"
	"testing"
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
	if _, ok := c.Get(sha256.Sum256([]byte("never stored"))); ok {
		t.Error("a block never stored is found")
	}
}
