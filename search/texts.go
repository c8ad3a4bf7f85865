package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// The texts files, beside the metas, hold every document's text: what a
// build needs of the documents it did not add (a layer of the static index
// whose documents changed is analysed again), and what the bleve index is
// made of when a search first needs it (sync.go). A build no longer makes
// the bleve index: the site's search is the static index, and bleve's
// indexing was half a cold build's search cost and more than a third of a
// cold build at 1 GB.
//
// They are two append-only files: the log (textsLogPath), each text one
// after the other, and its index (textsIdxPath), a record per change: a
// put (the document's id, where its text is in the log, its length, the
// CRC-32C of its bytes there and the document's DocHash, 8 bytes,
// little-endian) or a delete (the id). The index is read whole when a
// text is first needed, the last record of an id winning; a build that
// only adds documents appends to both and reads neither. A text in the
// log is a byte saying how the text follows (textRaw: as it is; textS2:
// the text's CRC-32C (4 bytes, little-endian) and an S2 block,
// klauspost/compress/s2, for a text of textSmall bytes or more that
// shrinks) and the text. Kept as they were, the 1 GB tree's texts took
// 247 MB, more than its archive of every transcript; S2 makes them as
// small as zstd's fastest level without entropy coding did, in a third of
// the time. A text put again while the store is open (documents of one
// text: a resumed or forked session holds its parent's messages, 11% of
// the corpus's documents, 90% of the 1 GB tree's ten copies) is written
// once: its puts point at one place in the log (format 2; format 1 kept
// the DocHash in the log, before each text). At 1 GB that leaves 0.4
// CPU-s of S2 encoding and 80 MB of the log unwritten.
//
// They were a bbolt file, a document's id to its text: at 1 GB its puts
// took 1.65 CPU-s of a cold build (0.8 in bbolt, splitting and rewriting
// pages for keys that come in no order), the log's 0.72 (S2 the most of
// it), and the files take 108 MB, not 151. Replaced texts stay in the log until the log
// has grown to twice its size after it was last written whole (the index's
// header says that size) and 16 MB more: then the build that changed it
// writes it again with the live texts alone (compact), so a log is at
// most about half waste, and each byte is written again at most about
// once for each time the log doubles.

// textsPath is the texts file of builds before the log (a bbolt file):
// removed.
func textsPath(dir string) string { return filepath.Clean(dir) + "-texts" }

// textsLogPath and textsIdxPath are the texts log and its index.
func textsLogPath(dir string) string { return filepath.Clean(dir) + "-texts.log" }
func textsIdxPath(dir string) string { return filepath.Clean(dir) + "-texts.idx" }

// textsMagic begins both files; the index's is followed by the log's size
// when it was last written whole (8 bytes, little-endian).
const textsMagic = "ccsite texts 2\n"

const (
	textRaw   = 0
	textS2    = 2
	textSmall = 256
)

// Index records.
const (
	textDel = 0
	textPut = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// InitialMmap is the size bbolt first maps its file with (an address
// range, not memory: pages are read in as they are used). bbolt maps a
// file anew each time it outgrows the map, doubling it, and before each
// copies every key and value the writing transaction touched out of the
// old map: a cold corpus build's highlight cache (34 MB, written in
// transactions of up to 32 MB) spent 0.22 of its 0.37 CPU-s doing that.
// On Windows a map cannot be larger than its file, and bbolt grows the
// file to the map's size: there it starts at bbolt's own size.
var InitialMmap = func() int {
	if runtime.GOOS == "windows" {
		return 0
	}
	return 512 << 20
}()

// textBufKept is the largest log record buffer a store keeps for the next.
const textBufKept = 1 << 20

// textStore is the texts files, opened to change them: both appended to
// through buffers.
type textStore struct {
	dir      string
	log, idx *os.File
	lw, iw   *bufio.Writer
	off      int64  // the log's size
	base     int64  // the log's size when it was last written whole
	rec      []byte // an index record, reused
	buf      []byte // a log record, reused (up to textBufKept)
	// same is where each text put since the store was opened is, by what
	// it is made of (textKey): a text put again is not written again.
	same    map[textKey]textLoc
	changed bool // a put or delete since opened
	fresh   bool // made anew: written whole when closed
}

// openTexts opens the texts files of dir to change them; fresh makes them
// anew.
func openTexts(dir string, fresh bool) (*textStore, error) {
	s := &textStore{dir: dir}
	if fresh {
		os.Remove(textsPath(dir))
		if err := s.create(textsLogPath(dir), textsIdxPath(dir)); err != nil {
			return nil, err
		}
		s.fresh = true
		return s, nil
	}
	log, err := os.OpenFile(textsLogPath(dir), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	idx, err := os.OpenFile(textsIdxPath(dir), os.O_RDWR, 0)
	if err != nil {
		log.Close()
		return nil, err
	}
	base, err := checkHeaders(log, idx)
	var end, iend int64
	if err == nil {
		end, err = log.Seek(0, io.SeekEnd)
	}
	if err == nil {
		iend, err = idx.Seek(0, io.SeekEnd)
	}
	if err != nil || iend < int64(len(textsMagic)+8) {
		log.Close()
		idx.Close()
		return nil, fmt.Errorf("search texts: %v", err)
	}
	s.log, s.idx, s.off, s.base = log, idx, end, base
	s.lw, s.iw = bufio.NewWriterSize(log, 1<<20), bufio.NewWriterSize(idx, 256<<10)
	return s, nil
}

// create makes the log and index at the paths, empty, and opens them.
func (s *textStore) create(logPath, idxPath string) error {
	log, err := createPrivate(logPath)
	if err != nil {
		return fmt.Errorf("search texts: %w", err)
	}
	idx, err := createPrivate(idxPath)
	if err != nil {
		log.Close()
		return fmt.Errorf("search texts: %w", err)
	}
	s.log, s.idx, s.off, s.base = log, idx, int64(len(textsMagic)), int64(len(textsMagic))
	s.lw, s.iw = bufio.NewWriterSize(log, 1<<20), bufio.NewWriterSize(idx, 256<<10)
	s.lw.WriteString(textsMagic)
	s.iw.WriteString(textsMagic)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(s.base))
	s.iw.Write(b[:])
	return nil
}

// checkHeaders checks both files begin as texts files do and returns the
// index's base.
func checkHeaders(log, idx *os.File) (int64, error) {
	head := make([]byte, len(textsMagic)+8)
	if _, err := log.ReadAt(head[:len(textsMagic)], 0); err != nil || string(head[:len(textsMagic)]) != textsMagic {
		return 0, errors.New("not a texts log")
	}
	if _, err := idx.ReadAt(head, 0); err != nil || string(head[:len(textsMagic)]) != textsMagic {
		return 0, errors.New("not a texts index")
	}
	return int64(binary.LittleEndian.Uint64(head[len(textsMagic):])), nil
}

// put keeps a document's text.
func (s *textStore) put(id string, hash uint64, text string) error {
	return s.putKeyed(id, hash, text, keyOfText(text))
}

// textKey names a text by what it is made of: two hashes with their own
// seeds (a process's own, so no text can be made to collide with
// another), and its length.
type textKey struct {
	a, b uint64
	n    int
}

var textSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// keyOfText is text's key.
func keyOfText(text string) textKey {
	return textKey{a: maphash.String(textSeeds[0], text), b: maphash.String(textSeeds[1], text), n: len(text)}
}

// putKeyed is put of a text whose key is k.
func (s *textStore) putKeyed(id string, hash uint64, text string, k textKey) error {
	if l, ok := s.same[k]; ok {
		return s.appendPut(id, l, hash)
	}
	// v is made in the store's buffer: the log's copies it.
	var v []byte
	if n := s2.MaxEncodedLen(len(text)); len(text) >= textSmall && n > 0 {
		v = slices.Grow(s.buf[:0], 5+n)[:5+n]
		s.buf = v
		src := unsafe.Slice(unsafe.StringData(text), len(text)) // only read
		if z := s2.Encode(v[5:], src); len(z)+4 < len(text) {
			v[0] = textS2
			binary.LittleEndian.PutUint32(v[1:], crc32.Checksum(src, castagnoli))
			v = v[:5+len(z)]
		} else {
			v = nil
		}
	}
	if v == nil {
		v = append(append(s.buf[:0], textRaw), text...)
		s.buf = v
	}
	l, err := s.appendLog(v)
	if cap(s.buf) > textBufKept {
		s.buf = nil
	}
	if err != nil {
		return err
	}
	if s.same == nil {
		s.same = map[textKey]textLoc{}
	}
	s.same[k] = l
	return s.appendPut(id, l, hash)
}

// appendLog writes v to the log and returns where it is.
func (s *textStore) appendLog(v []byte) (textLoc, error) {
	s.changed = true
	if _, err := s.lw.Write(v); err != nil {
		return textLoc{}, err
	}
	l := textLoc{off: s.off, n: int64(len(v)), crc: crc32.Checksum(v, castagnoli)}
	s.off += int64(len(v))
	return l, nil
}

// appendPut writes a put of id to the index: its text is at l, and its
// document's DocHash is hash.
func (s *textStore) appendPut(id string, l textLoc, hash uint64) error {
	s.changed = true
	rec := append(s.rec[:0], textPut)
	rec = binary.AppendUvarint(rec, uint64(len(id)))
	rec = append(rec, id...)
	rec = binary.AppendUvarint(rec, uint64(l.off))
	rec = binary.AppendUvarint(rec, uint64(l.n))
	rec = binary.LittleEndian.AppendUint32(rec, l.crc)
	rec = binary.LittleEndian.AppendUint64(rec, hash)
	s.rec = rec
	_, err := s.iw.Write(rec)
	return err
}

// del forgets a document's text.
func (s *textStore) del(id string) error {
	s.changed = true
	rec := append(s.rec[:0], textDel)
	rec = binary.AppendUvarint(rec, uint64(len(id)))
	rec = append(rec, id...)
	s.rec = rec
	_, err := s.iw.Write(rec)
	return err
}

// commit writes what the buffers hold: the log first, so the index never
// points past it.
func (s *textStore) commit() error {
	if s == nil || s.log == nil {
		return nil
	}
	if err := s.lw.Flush(); err != nil {
		return err
	}
	return s.iw.Flush()
}

// close commits, compacts when the log has doubled (see above) and it
// changed (so with the metas marked: a compaction stopped half-way leaves
// an index the next build makes anew) and closes.
func (s *textStore) close() error {
	if s == nil || s.log == nil {
		return nil
	}
	err := s.commit()
	switch {
	case err != nil:
	case s.fresh:
		// Written whole: the base for the next builds.
		err = s.setBase(s.idx, s.off)
	case s.changed && s.off > 2*s.base+16<<20:
		err = s.compact()
	}
	s.shut()
	return err
}

// setBase writes base into the header of the index idx.
func (s *textStore) setBase(idx *os.File, base int64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(base))
	_, err := idx.WriteAt(b[:], int64(len(textsMagic)))
	return err
}

// abort closes without writing what the buffers hold.
func (s *textStore) abort() {
	if s == nil || s.log == nil {
		return
	}
	s.shut()
}

func (s *textStore) shut() {
	s.log.Close()
	s.idx.Close()
	s.log, s.idx = nil, nil
}

// compact writes the log again with the live texts alone, and its index,
// beside them, then renames them over them.
func (s *textStore) compact() error {
	at, err := readTextIndex(s.idx, s.off, nil)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(at))
	for id := range at {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	logPath, idxPath := textsLogPath(s.dir), textsIdxPath(s.dir)
	n := &textStore{dir: s.dir}
	if err := n.create(logPath+".new", idxPath+".new"); err != nil {
		return err
	}
	var buf []byte
	moved := map[int64]textLoc{} // a text shared by puts is written once
	for _, id := range ids {
		l := at[id]
		nl, ok := moved[l.off]
		if !ok {
			buf = slices.Grow(buf[:0], int(l.n))[:l.n]
			if _, err := s.log.ReadAt(buf, l.off); err != nil {
				n.shut()
				return err
			}
			if nl, err = n.appendLog(buf); err != nil {
				n.shut()
				return err
			}
			moved[l.off] = nl
		}
		if err := n.appendPut(id, nl, l.hash); err != nil {
			n.shut()
			return err
		}
	}
	err = n.commit()
	if err == nil {
		err = n.setBase(n.idx, n.off) // the log as written whole
	}
	n.shut()
	if err == nil {
		err = os.Rename(logPath+".new", logPath)
	}
	if err == nil {
		err = os.Rename(idxPath+".new", idxPath)
	}
	if err != nil {
		os.Remove(logPath + ".new")
		os.Remove(idxPath + ".new")
	}
	return err
}

// textLoc is where a text is in the log: its offset, length and CRC; and
// the DocHash of the document a put gave it to.
type textLoc struct {
	off  int64
	n    int64
	crc  uint32
	hash uint64
}

// readTextIndex reads an index: the last put of each id not deleted after
// it, of the ids in need (all when nil). size is the log's: a put past it
// is an error.
func readTextIndex(idx *os.File, size int64, need map[string]bool) (map[string]textLoc, error) {
	at := map[string]textLoc{}
	err := eachIndexRecord(idx, size, func(op byte, id []byte, l textLoc) {
		switch {
		case need != nil && !need[string(id)]:
		case op == textDel:
			delete(at, string(id))
		default:
			at[string(id)] = l
		}
	})
	if err != nil {
		return nil, err
	}
	return at, nil
}

// eachIndexRecord reads the index idx and calls fn with each record in
// order: a put of id (where its text is) or a delete (l zero). size is the
// log's: a put past it is an error.
func eachIndexRecord(idx *os.File, size int64, fn func(op byte, id []byte, l textLoc)) error {
	fi, err := idx.Stat()
	if err != nil {
		return err
	}
	data := make([]byte, fi.Size())
	if _, err := idx.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if len(data) < len(textsMagic)+8 || string(data[:len(textsMagic)]) != textsMagic {
		return errors.New("search texts: not a texts index")
	}
	b := data[len(textsMagic)+8:]
	bad := errors.New("search texts: the index is cut short or damaged")
	for len(b) > 0 {
		op := b[0]
		k, w := binary.Uvarint(b[1:])
		if w <= 0 || uint64(len(b)-1-w) < k || op > textPut {
			return bad
		}
		id := b[1+w : 1+w+int(k)]
		b = b[1+w+int(k):]
		if op == textDel {
			fn(op, id, textLoc{})
			continue
		}
		off, w1 := binary.Uvarint(b)
		if w1 <= 0 {
			return bad
		}
		n, w2 := binary.Uvarint(b[w1:])
		if w2 <= 0 || len(b) < w1+w2+12 || off+n > uint64(size) || off < uint64(len(textsMagic)) {
			return bad
		}
		b = b[w1+w2:]
		fn(op, id, textLoc{off: int64(off), n: int64(n), crc: binary.LittleEndian.Uint32(b), hash: binary.LittleEndian.Uint64(b[4:])})
		b = b[12:]
	}
	return nil
}

// textReader reads the texts files. Where texts are is read from the
// index when first needed: for the ids want names (a scan that keeps
// those alone: an appended message's build reads the texts of the newest
// layer's few documents, and holding the 1 GB tree's whole index, 174,000
// ids, took 0.2 CPU-s and 50 MB), or whole, for a search's sync or an id
// want did not name.
type textReader struct {
	log  *os.File
	idx  *os.File
	size int64
	mu   sync.RWMutex
	at   map[string]textLoc
	full bool // at holds the whole index
}

// openTextReader opens the texts files of dir to read them.
func openTextReader(dir string) (*textReader, error) {
	log, err := os.Open(textsLogPath(dir))
	if err != nil {
		return nil, fmt.Errorf("search texts: %w", err)
	}
	idx, err := os.Open(textsIdxPath(dir))
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("search texts: %w", err)
	}
	fi, err := log.Stat()
	if err == nil {
		_, err = checkHeaders(log, idx)
	}
	if err != nil {
		log.Close()
		idx.Close()
		return nil, fmt.Errorf("search texts: %w", err)
	}
	return &textReader{log: log, idx: idx, size: fi.Size(), at: map[string]textLoc{}}, nil
}

// want reads where the texts of ids are from the index (all of them when
// ids is nil), unless it was read before.
func (r *textReader) want(ids []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.full {
		return nil
	}
	if ids == nil {
		at, err := readTextIndex(r.idx, r.size, nil)
		if err == nil {
			r.at, r.full = at, true
		}
		return err
	}
	need := map[string]bool{}
	for _, id := range ids {
		if _, ok := r.at[id]; !ok {
			need[id] = true
		}
	}
	if len(need) == 0 {
		return nil
	}
	at, err := readTextIndex(r.idx, r.size, need)
	for id, l := range at {
		r.at[id] = l
	}
	return err
}

func (r *textReader) close() error {
	r.idx.Close()
	return r.log.Close()
}

// errStale is a text of another content than its meta's: the texts files
// and the metas disagree.
var errStale = errors.New("search texts and metas disagree")

// view calls fn with a function that reads the text of a meta (safe to
// call from several goroutines).
func (r *textReader) view(fn func(get func(m *meta) (string, error)) error) error {
	return fn(r.get)
}

// get reads the text of m.
func (r *textReader) get(m *meta) (string, error) {
	r.mu.RLock()
	l, ok := r.at[m.id]
	full := r.full
	r.mu.RUnlock()
	if !ok && !full {
		// Not asked for (want): the whole index, once.
		if err := r.want(nil); err != nil {
			return "", err
		}
		r.mu.RLock()
		l, ok = r.at[m.id]
		r.mu.RUnlock()
	}
	if !ok || l.n < 1 {
		return "", fmt.Errorf("%s: %w (no text)", m.id, errStale)
	}
	if l.hash != m.hash {
		return "", fmt.Errorf("%s: %w", m.id, errStale)
	}
	v := make([]byte, l.n)
	if _, err := r.log.ReadAt(v, l.off); err != nil {
		return "", fmt.Errorf("%s: search texts: %w", m.id, err)
	}
	if crc32.Checksum(v, castagnoli) != l.crc {
		return "", fmt.Errorf("%s: search texts: text damaged (CRC)", m.id)
	}
	var text []byte
	switch v[0] {
	case textRaw:
		text = v[1:]
	case textS2:
		if len(v) < 5 {
			return "", fmt.Errorf("%s: search texts: a text cut short", m.id)
		}
		n, err := s2.DecodedLen(v[5:])
		if err == nil && int64(n) != m.text {
			return "", fmt.Errorf("%s: %w", m.id, errStale)
		}
		if err == nil {
			text, err = s2.Decode(make([]byte, n), v[5:])
		}
		if err == nil && crc32.Checksum(text, castagnoli) != binary.LittleEndian.Uint32(v[1:]) {
			err = errors.New("text damaged (CRC)")
		}
		if err != nil {
			return "", fmt.Errorf("%s: search texts: %w", m.id, err)
		}
	default:
		return "", fmt.Errorf("%s: search texts: a text of kind %d", m.id, v[0])
	}
	if int64(len(text)) != m.text {
		return "", fmt.Errorf("%s: %w", m.id, errStale)
	}
	return unsafe.String(unsafe.SliceData(text), len(text)), nil // text is never written
}

// EachStoredText calls fn with every text the texts log at logPath holds,
// replaced ones included, as stored (raw) and decoded (s2: whether it was
// an S2 block), for audits that must see every byte of the state (the
// leak tests): an S2 block has no magic to be found by.
func EachStoredText(logPath string, fn func(text []byte, s2Block bool)) error {
	dir, ok := strings.CutSuffix(logPath, "-texts.log")
	if !ok {
		return fmt.Errorf("%s: not a texts log", logPath)
	}
	r, err := openTextReader(dir)
	if err != nil {
		return err
	}
	defer r.close()
	var bad error
	err = eachIndexRecord(r.idx, r.size, func(op byte, _ []byte, l textLoc) {
		if op != textPut || bad != nil {
			return
		}
		v := make([]byte, l.n)
		if _, err := r.log.ReadAt(v, l.off); err != nil || l.n < 1 {
			bad = fmt.Errorf("search texts: a text cut short (%v)", err)
			return
		}
		if v[0] == textS2 && l.n > 5 {
			if out, err := s2.Decode(nil, v[5:]); err == nil {
				fn(out, true)
				return
			}
		}
		fn(v[1:], false)
	})
	if err == nil {
		err = bad
	}
	return err
}
