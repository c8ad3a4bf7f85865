package build

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
	"unsafe"

	"ccsite/build/redact"
	"ccsite/search"

	bolt "go.etcd.io/bbolt"
)

// DefaultCacheDir is where the CLI keeps the highlight cache:
// $CCSITE_CACHE_DIR, else the user's cache folder's ccsite/.
func DefaultCacheDir(getenv func(string) string) string {
	if d := getenv("CCSITE_CACHE_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ccsite")
	}
	return ""
}

// hlCacheLimit bounds the cache file: past it, the cache starts empty.
const hlCacheLimit = 2 << 30

// hlCacheGlob matches the cache files in their folder, this version's and
// any other's.
const hlCacheGlob = "highlight*.db"

// clearDiskCache removes the highlight cache files in dir (every
// version's): they hold highlighted code and redacted lines of the
// transcripts, and the next build makes them again. It tells whether
// there were any.
func clearDiskCache(dir string) (bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, hlCacheGlob))
	if err != nil {
		return false, err
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("highlight cache: %w (remove it by hand)", err)
		}
	}
	return len(files) > 0, nil
}

// The cache's buckets, by kv.bucket.
const (
	hlKind    = iota // highlighted blocks
	cleanKind        // lines redaction found clean
	namesKind        // names redaction found clean (a few thousand: kept
	// apart from the millions of lines so a build that only looks names up
	// touches a few pages of the file, not one per name)
	filesKind // what the load filter did to each file's lines (lineMemo)
)

var buckets = [...][]byte{hlKind: []byte("highlight"), cleanKind: []byte("clean"), namesKind: []byte("names"), filesKind: []byte("files")}

// diskCache keeps highlighted code blocks between builds in a bbolt file,
// keyed by the block's hash salted with the tool's identity (a new ccsite
// or chroma highlights anew). Writes are batched on one goroutine.
type diskCache struct {
	db   *bolt.DB
	salt string
	puts chan kv
	done chan struct{}
	// empty marks the buckets that held nothing when the file was opened:
	// a cold build looks nothing up there, since nothing it asks for can
	// be found but what it wrote itself (a block or line seen twice in one
	// build, which the highlighter's memory already holds or costs a scan
	// again). On a cold corpus build bbolt went from 0.22-0.29 CPU-s to
	// 0.14-0.15 (two A/B pairs): small, but every one of those reads missed.
	empty [len(buckets)]bool
	// err is the first write error: the cache is only a cache, so it is
	// reported, not fatal.
	mu  sync.Mutex
	err error
}

type kv struct {
	k      [32]byte
	v      string
	bucket int // hlKind, cleanKind, namesKind (these two: a mark, no value) or filesKind
}

// cleanLines is the cache's set of lines (or names) redaction found
// clean, keyed also by the redactor's fingerprint.
type cleanLines struct {
	c      *diskCache
	prefix []byte // the tool's salt and the redactor's fingerprint
	bucket int    // cleanKind or namesKind
}

func newCleanLines(c *diskCache, fingerprint string, bucket int) cleanLines {
	return cleanLines{c: c, prefix: []byte(c.salt + "\x00" + fingerprint), bucket: bucket}
}

func (l cleanLines) key(k [32]byte) []byte {
	h := sha256.New()
	h.Write(l.prefix)
	h.Write(k[:])
	return h.Sum(nil)[:20]
}

// A line's value in the clean bucket: markClean alone for a clean line;
// markRedacted, the rules' counts (uvarint count of rules, then each
// rule's name, length first, and count) and the line as redacted for one
// that held secrets (redact.KnownRedacted).
const (
	markClean    = 1
	markRedacted = 2
)

// Empty tells whether the bucket held nothing when the cache was opened
// (redact.Emptier): a cold build asks it nothing.
func (l cleanLines) Empty() bool { return l.c.empty[l.bucket] }

// Clean tells whether the line was found clean before.
func (l cleanLines) Clean(k [32]byte) bool {
	out, _, ok := l.Known(k)
	return ok && out == nil
}

// Known tells whether the line was found clean (ok, nil out) or redacted
// (ok, the line as redacted and the rules' counts) before.
func (l cleanLines) Known(k [32]byte) (out []byte, rules map[string]int, ok bool) {
	if l.c.empty[l.bucket] {
		return nil, nil, false
	}
	l.c.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(buckets[l.bucket]).Get(l.key(k))
		switch {
		case len(v) == 1 && v[0] == markClean:
			ok = true
		case len(v) > 1 && v[0] == markRedacted:
			out, rules, ok = decodeRedacted(v[1:])
		}
		return nil
	})
	return out, rules, ok
}

// MarkClean records a clean line.
func (l cleanLines) MarkClean(k [32]byte) {
	var key [32]byte
	copy(key[:], l.key(k))
	l.c.puts <- kv{k: key, bucket: l.bucket}
}

// MarkRedacted records a line redaction changed, as redacted; one longer
// than redactedMax is not kept, and is redacted again by the next build.
func (l cleanLines) MarkRedacted(k [32]byte, out []byte, rules map[string]int) {
	if len(out) > redactedMax {
		return
	}
	var key [32]byte
	copy(key[:], l.key(k))
	l.c.puts <- kv{k: key, v: encodeRedacted(out, rules), bucket: l.bucket}
}

// redactedMax bounds a redacted line the cache keeps. The lines that held
// secrets in the corpus tree took 4 MB of the cache all together; a line
// is changed also when the metadata of an image it carries is removed, and
// an archive of pasted screenshots would fill the cache (reset whole past
// hlCacheLimit) with them, for little: such a line costs milliseconds to
// redact again.
const redactedMax = 1 << 20

func encodeRedacted(out []byte, rules map[string]int) string {
	names := slices.Sorted(maps.Keys(rules))
	size := 1 + binary.MaxVarintLen64 + len(out)
	for _, n := range names {
		size += 2*binary.MaxVarintLen64 + len(n)
	}
	b := make([]byte, 0, size) // one allocation, the string's own
	b = append(b, markRedacted)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = binary.AppendUvarint(b, uint64(len(n)))
		b = append(b, n...)
		b = binary.AppendUvarint(b, uint64(rules[n]))
	}
	b = append(b, out...)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// decodeRedacted reads encodeRedacted's value (after its mark), copying
// out of bbolt's page; a value it cannot read is not known.
func decodeRedacted(v []byte) (out []byte, rules map[string]int, ok bool) {
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)) {
		return nil, nil, false
	}
	v = v[w:]
	if n > 0 {
		rules = make(map[string]int, n)
	}
	for ; n > 0; n-- {
		l, w := binary.Uvarint(v)
		if w <= 0 || l > uint64(len(v)-w) {
			return nil, nil, false
		}
		name := string(v[w : w+int(l)])
		v = v[w+int(l):]
		c, w := binary.Uvarint(v)
		if w <= 0 {
			return nil, nil, false
		}
		v = v[w:]
		rules[name] = int(c)
	}
	if len(v) == 0 {
		return nil, nil, false
	}
	return bytes.Clone(v), rules, true
}

// openDiskCache opens (or makes) the cache in dir. Another build holding it
// makes this one go without (after a second).
//
// The file holds highlighted code and redacted lines of the transcripts:
// it is the user's alone (0600, in a folder made 0700), also one an older
// ccsite made readable by others.
func openDiskCache(dir, salt string) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// The file is named for the redaction rules' version and for the
	// tool: a cache written by another version is removed, never read.
	// An older version's may have let a secret through; and every key
	// holds the tool's identity (salt), so another binary's entries are
	// never found: kept, they grew the file by the whole archive's worth
	// at each new binary (432 MB after four builds of the 1 GB tree, up
	// to hlCacheLimit), and a build's RSS with the pages it touched (930
	// MB to rebuild the 1 GB tree, 727 cold).
	sum := sha256.Sum256([]byte(salt))
	name := "highlight-r" + redact.Version + "-" + hex.EncodeToString(sum[:6]) + ".db"
	if old, err := filepath.Glob(filepath.Join(dir, hlCacheGlob)); err == nil {
		for _, o := range old {
			if filepath.Base(o) != name {
				os.Remove(o)
			}
		}
	}
	p := filepath.Join(dir, name)
	if st, err := os.Stat(p); err == nil && st.Size() > hlCacheLimit {
		os.Remove(p)
	}
	// The freelist is written with each (large, batched) transaction: a
	// file without one is read whole at every open to find its free
	// pages (100 MB of page faults for a build with nothing to do).
	// Never synced, growing included: a grow's truncate and fsync (0.1
	// CPU-s of a cold 1 GB build with the search texts, then a bbolt file
	// too) keep the file's new size through a power failure, which NoSync
	// does not keep its pages through anyway.
	db, err := bolt.Open(p, 0o600, &bolt.Options{Timeout: time.Second, NoSync: true, NoGrowSync: true, InitialMmapSize: search.InitialMmap})
	if err != nil {
		return nil, fmt.Errorf("highlight cache %s: %w", p, err)
	}
	if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
		os.Chmod(p, 0o600)
	}
	c := &diskCache{db: db, salt: salt + " redact/" + redact.Version, puts: make(chan kv, 1024), done: make(chan struct{})}
	if err := db.Update(func(tx *bolt.Tx) error {
		for i, b := range buckets {
			bk, err := tx.CreateBucketIfNotExists(b)
			if err != nil {
				return err
			}
			k, _ := bk.Cursor().First()
			c.empty[i] = k == nil
		}
		return nil
	}); err != nil {
		db.Close()
		return nil, err
	}
	go c.writer()
	return c, nil
}

func (c *diskCache) key(k [32]byte) []byte {
	h := sha256.New()
	h.Write([]byte(c.salt))
	h.Write(k[:])
	return h.Sum(nil)[:20]
}

// Get looks a block up.
func (c *diskCache) Get(k [32]byte) (string, bool) {
	if c.empty[hlKind] {
		return "", false
	}
	var out string
	found := false
	c.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(buckets[hlKind]).Get(c.key(k)); v != nil {
			out, found = string(v), true
		}
		return nil
	})
	return out, found
}

// Put queues a block to store.
func (c *diskCache) Put(k [32]byte, html string) {
	var key [32]byte
	copy(key[:], c.key(k))
	c.puts <- kv{k: key, v: html, bucket: hlKind}
}

func (c *diskCache) writer() {
	defer close(c.done)
	var batch []kv
	size := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		// In key order: bbolt then fills pages one after the other
		// instead of splitting and rewriting them at random.
		slices.SortFunc(batch, func(a, b kv) int {
			if a.bucket != b.bucket {
				return cmp.Compare(a.bucket, b.bucket)
			}
			return bytes.Compare(a.k[:], b.k[:])
		})
		err := c.db.Update(func(tx *bolt.Tx) error {
			for _, e := range batch {
				v := []byte{markClean}
				if e.bucket == hlKind || e.v != "" {
					// bbolt reads a value until the commit and never
					// writes it; the batch holds the string that long.
					// A copy was up to 32 MB more for each batch.
					v = unsafe.Slice(unsafe.StringData(e.v), len(e.v))
				}
				if err := tx.Bucket(buckets[e.bucket]).Put(e.k[:20], v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			c.mu.Lock()
			if c.err == nil {
				c.err = err
			}
			c.mu.Unlock()
		}
		clear(batch) // the values written are not held until overwritten
		batch, size = batch[:0], 0
	}
	// Each transaction rewrites every page it touches, so transactions are
	// few and large: a session of a million lines made two thousand of
	// them, a minute of rewriting a growing tree.
	for e := range c.puts {
		if e.bucket == flushKind {
			flush()
			batch = nil // its array held the values
			continue
		}
		batch = append(batch, e)
		size += len(e.v) + 20
		if len(batch) >= 1<<16 || size >= 32<<20 {
			flush()
		}
	}
	flush()
}

// flushKind marks a put that asks the writer to write its batch now.
const flushKind = -1

// Flush has the writer write the entries it holds, so that their values'
// memory is given back before the static index is written (afterPages):
// up to 32 MB of HTML and redacted lines that phase carried to the end.
func (c *diskCache) Flush() {
	if c != nil {
		c.puts <- kv{bucket: flushKind}
	}
}

// Close writes what is queued and closes the file.
func (c *diskCache) Close() error {
	close(c.puts)
	<-c.done
	err := c.db.Sync()
	if cerr := c.db.Close(); err == nil {
		err = cerr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.err, err)
}
