package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unsafe"
)

// The metas file, beside the index, holds every document's meta, so that
// an update knows the documents it did not add. It is read on every build
// that changes a document and written after it, so it is a compact binary
// file, not gob (at 1 GB of transcripts, 175,000 metas: gob took 0.6 CPU-s
// to write):
//
//	"ccsite metas\n" format count      (the header: opening an index reads it alone;
//	                                    count is 8 bytes, little-endian, so it can be rewritten)
//	sections, each:
//	  strings: n, then n × (len, bytes)  (project, session, title, role, tool, model, agent values)
//	  metas: n, then n × meta, in the documents' numbers (numberCmp):
//	    id (len, bytes), project session title role tool model agent (indexes into the
//	    strings of this section and those before it), time (0: none; 1: then
//	    seconds (zig-zag) and nanoseconds), text bytes, hash (8 bytes, little-endian)
//
// Numbers are unsigned varints unless said. A full write makes one section;
// an update that only adds documents newer than all others (a message
// appended) appends a section of them and rewrites the count, instead of
// rewriting 20 MB (appendMetas).
const metasMagic = "ccsite metas\n"

// metasFormat is the version of the metas file (and, since the index's
// mapping changes with it, of the index: another format makes both anew).
// 4: the binary file above, time with doc values (ties by time).
// 5: the metas in number order, in sections, the count fixed-size.
// 6: the time indexed as a day and an order key (keywords), not a date.
// 7: the metas beside a texts file, the bleve index made from both when a
// search needs it (sync.go).
// 8: the texts log of format 2 (texts.go: a text shared by its puts).
// 9: a document's agent.
const metasFormat = 9

// maxMetaSections is how many sections the file may have before an update
// writes it whole again.
const maxMetaSections = 64

// countAt is where the count is in the file.
var countAt = int64(len(metasMagic) + len(binary.AppendUvarint(nil, metasFormat)))

// badCount is the count of a file being changed: it agrees with no index.
const badCount = ^uint64(0)

// readMetasHeader reads the header: the format and the count.
func readMetasHeader(r *bufio.Reader) (format, count int, err error) {
	magic := make([]byte, len(metasMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != metasMagic {
		return 0, 0, errors.New("not a metas file")
	}
	f, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, 0, err
	}
	if f != metasFormat {
		return int(f), 0, nil
	}
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return 0, 0, err
	}
	c := binary.LittleEndian.Uint64(n[:])
	if c > 1<<40 {
		return 0, 0, errors.New("metas being written")
	}
	return int(f), int(c), nil
}

// metasFile is what readMetas learnt of the file beyond the metas: enough
// to append a section.
type metasFile struct {
	strings  int // strings in all sections
	sections int
}

// encodeSection appends a section of metas to b, their strings numbered
// from base.
func encodeSection(b []byte, metas []meta, base int) []byte {
	// the string table, in the order values first come
	at := map[string]uint64{}
	var table []string
	idx := func(s string) uint64 {
		i, ok := at[s]
		if !ok {
			i = uint64(base + len(table))
			at[s] = i
			table = append(table, s)
		}
		return i
	}
	size := 0
	for i := range metas {
		size += len(metas[i].id) + 42 // the id, seven indexes, time, length and hash
	}
	body := make([]byte, 0, size)
	for i := range metas {
		m := &metas[i]
		body = binary.AppendUvarint(body, uint64(len(m.id)))
		body = append(body, m.id...)
		for _, s := range []string{m.project, m.session, m.title, m.role, m.tool, m.model, m.agent} {
			body = binary.AppendUvarint(body, idx(s))
		}
		if m.time.IsZero() {
			body = append(body, 0)
		} else {
			body = append(body, 1)
			body = binary.AppendVarint(body, m.time.Unix())
			body = binary.AppendUvarint(body, uint64(m.time.Nanosecond()))
		}
		body = binary.AppendUvarint(body, uint64(m.text))
		body = binary.LittleEndian.AppendUint64(body, m.hash)
	}
	b = binary.AppendUvarint(b, uint64(len(table)))
	for _, s := range table {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(metas)))
	return append(b, body...)
}

// writeMetas writes the metas file at path (through a temporary file);
// metas must be in number order.
func writeMetas(path string, metas []meta) error {
	head := []byte(metasMagic)
	head = binary.AppendUvarint(head, metasFormat)
	head = binary.LittleEndian.AppendUint64(head, uint64(len(metas)))
	data := encodeSection(head, metas, 0)
	f, err := createPrivate(path + ".tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path + ".tmp")
		return err
	}
	return os.Rename(path+".tmp", path)
}

// setMetasCount rewrites the count of the metas file at path.
func setMetasCount(path string, count uint64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], count)
	_, err = f.WriteAt(n[:], countAt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendMetas appends a section of metas (newer than all the file holds,
// in number order) to the metas file at path, which the last read found as
// mf, and sets its count; the file's count must have been set to badCount
// before the index changed (an interrupted update leaves a file that agrees
// with no index).
func appendMetas(path string, mf metasFile, add []meta, count int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(encodeSection(nil, add, mf.strings))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return setMetasCount(path, uint64(count))
}

// readMetas reads the metas file at path, which must hold count metas, in
// number order. The slice has room for a few more (an update's).
func readMetas(path string, count int) ([]meta, metasFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, metasFile{}, err
	}
	return decodeMetas(data, count)
}

// decodeMetas reads a metas file's content, which must hold count metas
// (count < 0: as many as its header says). data is the metas' memory.
func decodeMetas(data []byte, count int) ([]meta, metasFile, error) {
	var mf metasFile
	// One string holds the file: ids and values are parts of it, not a
	// string each.
	d := metaDecoder{b: data, s: unsafe.String(unsafe.SliceData(data), len(data))} // data is never written
	if !strings.HasPrefix(d.s, metasMagic) {
		return nil, mf, errors.New("not a metas file")
	}
	d.i = len(metasMagic)
	if f := d.uvarint(); f != metasFormat {
		return nil, mf, fmt.Errorf("metas of format %d", f)
	}
	if n := d.uint64(); count < 0 {
		if n == badCount || n > uint64(len(data)) {
			return nil, mf, errors.New("search index metas being changed, or left so by a stopped build")
		}
		count = int(n)
	} else if n != uint64(count) {
		return nil, mf, fmt.Errorf("%d documents, the header said %d", count, n)
	}
	var table []string
	metas := make([]meta, 0, count+count/64+16)
	str := func() string {
		i := d.uvarint()
		if i >= uint64(len(table)) {
			d.err = errors.New("string index out of range")
			return ""
		}
		return table[i]
	}
	for d.err == nil && d.i < len(d.b) {
		mf.sections++
		for n := d.uvarint(); n > 0 && d.err == nil; n-- {
			table = append(table, d.str())
		}
		n := d.uvarint()
		if n > uint64(count-len(metas)) {
			d.err = errors.New("more metas than the header said")
		}
		for k := uint64(0); k < n && d.err == nil; k++ {
			var m meta
			m.id = d.str()
			m.project, m.session, m.title, m.role, m.tool, m.model, m.agent = str(), str(), str(), str(), str(), str(), str()
			if d.byte() == 1 {
				sec := d.varint()
				m.time = time.Unix(sec, int64(d.uvarint())).UTC()
			}
			m.text = int64(d.uvarint())
			m.hash = d.uint64()
			metas = append(metas, m)
		}
	}
	if d.err == nil && len(metas) != count {
		d.err = fmt.Errorf("%d metas, the header said %d", len(metas), count)
	}
	if d.err != nil {
		return nil, mf, fmt.Errorf("search index metas: %w", d.err)
	}
	mf.strings = len(table)
	return metas, mf, nil
}

// metaDecoder reads the metas file's numbers and strings; the first error
// sticks.
type metaDecoder struct {
	b   []byte
	s   string // b, as a string
	i   int
	err error
}

var errShort = errors.New("truncated")

func (d *metaDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.i:])
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.i += n
	return v
}

func (d *metaDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.i:])
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.i += n
	return v
}

func (d *metaDecoder) byte() byte {
	if d.err != nil || d.i >= len(d.b) {
		d.err = errShort
		return 0
	}
	d.i++
	return d.b[d.i-1]
}

func (d *metaDecoder) str() string {
	n := d.uvarint()
	if d.err != nil || uint64(len(d.b)-d.i) < n {
		d.err = errShort
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

func (d *metaDecoder) uint64() uint64 {
	if d.err != nil || len(d.b)-d.i < 8 {
		d.err = errShort
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b[d.i:])
	d.i += 8
	return v
}
