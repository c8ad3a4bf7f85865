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
//	"ccsite metas\n" format count     (the header: opening an index reads it alone)
//	strings: n, then n × (len, bytes)  (project, session, title, role, tool, model values)
//	count × meta, in the documents' numbers (numberCmp):
//	  id (len, bytes), project session title role tool model (indexes into strings),
//	  time (0: none; 1: then seconds (zig-zag) and nanoseconds), text bytes,
//	  hash (8 bytes, little-endian)
//
// Numbers are unsigned varints unless said.
const metasMagic = "ccsite metas\n"

// metasFormat is the version of the metas file (and, since the index's
// mapping changes with it, of the index: another format makes both anew).
// 4: the binary file above, time with doc values (ties by time).
// 5: the metas in number order, not by id (an update need not sort them).
const metasFormat = 5

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
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, 0, err
	}
	return int(f), int(n), nil
}

// writeMetas writes the metas file at path (through a temporary file);
// metas must be in number order.
func writeMetas(path string, metas []meta) error {
	// the string table, in the order values first come
	at := map[string]uint64{}
	var table []string
	idx := func(s string) uint64 {
		i, ok := at[s]
		if !ok {
			i = uint64(len(table))
			at[s] = i
			table = append(table, s)
		}
		return i
	}
	size := 0
	for i := range metas {
		size += len(metas[i].id) + 40 // the id, six indexes, time, length and hash
	}
	body := make([]byte, 0, size)
	for i := range metas {
		m := &metas[i]
		id := m.id
		body = binary.AppendUvarint(body, uint64(len(id)))
		body = append(body, id...)
		for _, s := range []string{m.project, m.session, m.title, m.role, m.tool, m.model} {
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
	head := []byte(metasMagic)
	head = binary.AppendUvarint(head, metasFormat)
	head = binary.AppendUvarint(head, uint64(len(metas)))
	head = binary.AppendUvarint(head, uint64(len(table)))
	for _, s := range table {
		head = binary.AppendUvarint(head, uint64(len(s)))
		head = append(head, s...)
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(head)
	if err == nil {
		_, err = f.Write(body)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path + ".tmp")
		return err
	}
	return os.Rename(path+".tmp", path)
}

// readMetas reads the metas file at path, which must hold count metas, in
// number order. The slice has room for a few more (an update's).
func readMetas(path string, count int) ([]meta, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// One string holds the file: ids and values are parts of it, not a
	// string each.
	d := metaDecoder{b: data, s: unsafe.String(unsafe.SliceData(data), len(data))} // data is never written
	if !strings.HasPrefix(d.s, metasMagic) {
		return nil, errors.New("not a metas file")
	}
	d.i = len(metasMagic)
	if f := d.uvarint(); f != metasFormat {
		return nil, fmt.Errorf("metas of format %d", f)
	}
	if n := d.uvarint(); int(n) != count {
		return nil, fmt.Errorf("%d documents, the header said %d", n, count)
	}
	table := make([]string, d.uvarint())
	for i := range table {
		table[i] = d.str()
	}
	str := func() string {
		i := d.uvarint()
		if i >= uint64(len(table)) {
			d.err = errors.New("string index out of range")
			return ""
		}
		return table[i]
	}
	metas := make([]meta, 0, count+count/64+16)
	for k := 0; k < count && d.err == nil; k++ {
		var m meta
		m.id = d.str()
		m.project, m.session, m.title, m.role, m.tool, m.model = str(), str(), str(), str(), str(), str()
		if d.byte() == 1 {
			sec := d.varint()
			m.time = time.Unix(sec, int64(d.uvarint())).UTC()
		}
		m.text = int64(d.uvarint())
		m.hash = d.uint64()
		metas = append(metas, m)
	}
	if d.err == nil && d.i != len(d.b) {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("search index metas: %w", d.err)
	}
	return metas, nil
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
