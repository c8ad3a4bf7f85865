package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"

	"ccsite/build/transcript"

	"github.com/zeebo/xxh3"
	bolt "go.etcd.io/bbolt"
)

// lineMemo remembers, for each source file the load filter (omission, then
// redaction) went through, the bytes it read up to the last "\n" (their
// size and 128-bit XXH3, headSum) and which of those lines the filter changed. A later
// build that finds the same bytes at the head of the file passes the other
// lines on as they are, without hashing each one and asking the cache
// whether it was found clean (a bbolt transaction a line: a tenth of a warm
// --force build of the corpus tree); the changed ones, and the lines after
// that head (a session's new messages), go through the filter as before.
// Kept in the highlight cache, under the tool's salt, the redactor's
// fingerprint and the omission's options: another binary, other rules or
// other options find nothing. A file's head is compared by content, never
// trusted by size and time: a line taken as clean is published unredacted.
//
// The sum guards against a file rewritten in place (by a tool or an editor),
// which a 128-bit hash tells from the old bytes but for a chance of 2^-128.
// It is not cryptographic, and need not be: bytes crafted to collide with a
// file's head would have to be written over that file by someone who can
// read it, secrets and all, and Claude Code only appends. XXH3 hashes about
// 20 GB/s here against SHA-256's 1.3 (SHA-NI), and every warm build hashes
// every file whole: SHA-256 was 6.5% of a warm --force build of the 1 GB
// tree.
//
// The memo replaces the cache's memory of clean lines for the files it
// covers: their lines go through filter, which marks none clean (only a
// line redaction changed is kept, redacted, by its hash); a file streamed
// (over 128 MB), which the memo cannot cover, goes through streamed, which
// does.
type lineMemo struct {
	c        *diskCache
	prefix   []byte // the tool's salt, the redactor's fingerprint, the omission's options
	filter   transcript.Filter
	streamed transcript.Filter
}

func newLineMemo(c *diskCache, fingerprint, omit string, filter, streamed transcript.Filter) *lineMemo {
	return &lineMemo{c: c, prefix: []byte(c.salt + "\x00" + fingerprint + "\x00" + omit + "\x00"),
		filter: filter, streamed: streamed}
}

func (m *lineMemo) key(name string) [32]byte {
	h := sha256.New()
	h.Write(m.prefix)
	h.Write([]byte(name))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// headSum is the memo's sum of a file's head: its 128-bit XXH3, big-endian.
func headSum(b []byte) [16]byte {
	return xxh3.Hash128(b).Bytes()
}

// fileLines is what the memo holds of a file.
type fileLines struct {
	size    int      // bytes read, through the last "\n"
	sum     [16]byte // their headSum
	lines   int      // lines in them: the "\n"s
	changed []int    // the lines the filter changed, ascending
}

func (f fileLines) encode() string {
	b := binary.AppendUvarint(nil, uint64(f.size))
	b = append(b, f.sum[:]...)
	b = binary.AppendUvarint(b, uint64(f.lines))
	b = binary.AppendUvarint(b, uint64(len(f.changed)))
	last := 0
	for _, n := range f.changed {
		b = binary.AppendUvarint(b, uint64(n-last))
		last = n
	}
	return string(b)
}

// decodeFileLines reads encode's value; one it cannot read is not known.
func decodeFileLines(v []byte) (f fileLines, ok bool) {
	next := func() (int, bool) {
		n, w := binary.Uvarint(v)
		if w <= 0 || n > 1<<40 {
			return 0, false
		}
		v = v[w:]
		return int(n), true
	}
	var count int
	if f.size, ok = next(); !ok || len(v) < len(f.sum) {
		return fileLines{}, false
	}
	copy(f.sum[:], v)
	v = v[len(f.sum):]
	if f.lines, ok = next(); !ok {
		return fileLines{}, false
	}
	if count, ok = next(); !ok || count > f.lines {
		return fileLines{}, false
	}
	f.changed = make([]int, 0, count)
	last := 0
	for range count {
		d, ok := next()
		if !ok || d == 0 || last+d > f.lines {
			return fileLines{}, false
		}
		last += d
		f.changed = append(f.changed, last)
	}
	return f, len(v) == 0
}

func (m *lineMemo) get(name string) (fileLines, bool) {
	if m.c.empty[filesKind] {
		return fileLines{}, false
	}
	k := m.key(name)
	var f fileLines
	ok := false
	m.c.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(buckets[filesKind]).Get(k[:20]); v != nil {
			f, ok = decodeFileLines(v)
		}
		return nil
	})
	return f, ok
}

// Lines gives the filter of one file: lines an earlier build read in the
// same bytes and left unchanged are passed on as they are.
func (m *lineMemo) Lines(name string, data []byte) transcript.LineFilter {
	if data == nil {
		// Streamed: every line filtered, nothing remembered here.
		return transcript.Lines(m.streamed).Lines(name, nil)
	}
	l := &memoLines{m: m, name: name, data: data}
	if f, ok := m.get(name); ok && f.size > 0 && f.size <= len(data) && data[f.size-1] == '\n' &&
		headSum(data[:f.size]) == f.sum {
		l.known = f
	}
	return l
}

type memoLines struct {
	m     *lineMemo
	name  string
	data  []byte    // the file, read whole
	known fileLines // what an earlier build read of it (zero: nothing)
	next  int       // index in known.changed of the first line not passed yet
	// changed are the lines the filter changed in this read, ascending.
	changed []int
}

func (l *memoLines) Line(n int, line []byte) []byte {
	if n <= l.known.lines {
		ch := l.known.changed
		for l.next < len(ch) && ch[l.next] < n {
			l.next++
		}
		if l.next == len(ch) || ch[l.next] != n {
			return line
		}
	}
	out := l.m.filter(l.name, line)
	if len(out) != len(line) || len(out) > 0 && &out[0] != &line[0] && !bytes.Equal(out, line) {
		l.changed = append(l.changed, n)
	}
	return out
}

func (l *memoLines) Done() {
	end := bytes.LastIndexByte(l.data, '\n') + 1
	if end == 0 || end == l.known.size {
		return // nothing new to remember
	}
	f := fileLines{size: end, sum: headSum(l.data[:end]), lines: bytes.Count(l.data[:end], []byte{'\n'})}
	f.changed = l.changed
	for len(f.changed) > 0 && f.changed[len(f.changed)-1] > f.lines {
		f.changed = f.changed[:len(f.changed)-1] // a last line not ended yet
	}
	k := l.m.key(l.name)
	var key [32]byte
	copy(key[:], k[:20])
	l.m.c.puts <- kv{k: key, v: f.encode(), bucket: filesKind}
}
