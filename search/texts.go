package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// The texts file, beside the metas, holds every document's text: what a
// build needs of the documents it did not add (the static index's layers
// that changed hold some), and what the bleve index is made of when a
// search first needs it (sync.go). A build no longer makes the bleve index:
// the site's search is the static index, and bleve's indexing was half a
// cold build's search cost and more than a third of a cold build at 1 GB.
//
// It is a bbolt file: one bucket, a document's id to its DocHash (8 bytes,
// little-endian), a byte saying how the text follows (textRaw: as it is;
// textS2: the text's CRC-32C (4 bytes, little-endian; an S2 block has no
// check of its own, a zstd frame did) and an S2 block,
// klauspost/compress/s2, for a text of textSmall bytes or more that
// shrinks; textZstd: a zstd frame, as builds before
// S2 wrote them, read still) and the text. Kept as they were, the 1 GB
// tree's texts took 247 MB, more than its archive of every transcript. S2
// makes them as small as zstd's fastest level without entropy coding did
// (the corpus tree's 15.4 MB of texts: 8.86 MB against 8.88) in a third of
// the time (42 ms against 145-157; at 1 GB zstd was a fifth of the
// search's CPU). A write transaction is committed every textsBatch
// documents, so what is held dirty stays small.

// textsPath is the texts file of the index in dir.
func textsPath(dir string) string { return filepath.Clean(dir) + "-texts" }

var textsBucket = []byte("texts")

// textsBatch is how many puts or deletes a write transaction takes.
const textsBatch = 2048

const (
	textRaw   = 0
	textZstd  = 1
	textS2    = 2
	textSmall = 256
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// textDec decodes the zstd frames of texts an earlier build wrote, made
// when first needed and shared (DecodeAll may be called at once by many
// goroutines).
var textDec = sync.OnceValue(func() *zstd.Decoder {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	return d
})

// textStore is the texts file, opened to change it. Changes wait in
// pending, textsBatch of them, and go in in key order, in one write
// transaction: documents come session by session, their ids all over the
// key space, and bbolt put them in at random, splitting and rewriting
// pages (1 of the 2.4 CPU-s the 1 GB tree's texts took).
type textStore struct {
	db      *bolt.DB
	pending []textChange
}

// textChange is a put (v, the value) or a delete (v nil) of id's text.
type textChange struct {
	id string
	v  []byte
}

// openTexts opens the texts file of dir to change it; fresh makes it anew.
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

func openTexts(dir string, fresh bool) (*textStore, error) {
	p := textsPath(dir)
	if fresh {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	} else if _, err := os.Stat(p); err != nil {
		return nil, err
	}
	// NoSync: never synced; NoGrowSync too, so growing the file is not a
	// truncate and an fsync each time (0.1 CPU-s of a cold 1 GB build): what that sync
	// protects from, losing the file's new size in a power failure,
	// NoSync does not protect from anyway.
	db, err := bolt.Open(p, 0o644, &bolt.Options{Timeout: 10 * time.Second, NoSync: true, NoGrowSync: true, FreelistType: bolt.FreelistMapType,
		InitialMmapSize: InitialMmap})
	if err != nil {
		return nil, fmt.Errorf("search texts: %w", err)
	}
	if fresh {
		err = db.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket(textsBucket)
			return err
		})
	} else {
		err = db.View(func(tx *bolt.Tx) error {
			if tx.Bucket(textsBucket) == nil {
				return errors.New("search texts: no bucket")
			}
			return nil
		})
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return &textStore{db: db}, nil
}

// textsFill is how full a split leaves the texts' pages: with bbolt's
// default (half), the corpus tree's texts, uncompressed, took 37 MB for 15
// MB of text; with 0.9, 34 MB.
const textsFill = 0.9

// change adds c to pending, writing them when they are textsBatch.
func (s *textStore) change(c textChange) error {
	s.pending = append(s.pending, c)
	if len(s.pending) < textsBatch {
		return nil
	}
	return s.commit()
}

// commit writes the pending changes, in key order (the changes of one id
// in the order they came), in one transaction.
func (s *textStore) commit() error {
	if len(s.pending) == 0 {
		return nil
	}
	slices.SortStableFunc(s.pending, func(a, b textChange) int { return strings.Compare(a.id, b.id) })
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(textsBucket)
		if b == nil {
			return errors.New("search texts: no bucket")
		}
		b.FillPercent = textsFill
		for _, c := range s.pending {
			var err error
			if c.v == nil {
				err = b.Delete([]byte(c.id))
			} else {
				err = b.Put([]byte(c.id), c.v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	clear(s.pending)
	s.pending = s.pending[:0]
	return err
}

// put keeps a document's text.
func (s *textStore) put(id string, hash uint64, text string) error {
	var v []byte
	if n := s2.MaxEncodedLen(len(text)); len(text) >= textSmall && n > 0 {
		v = make([]byte, 13+n)
		src := unsafe.Slice(unsafe.StringData(text), len(text)) // only read
		if z := s2.Encode(v[13:], src); len(z)+4 < len(text) {
			v[8] = textS2
			binary.LittleEndian.PutUint32(v[9:], crc32.Checksum(src, castagnoli))
			v = v[:13+len(z)]
		} else {
			v = nil
		}
	}
	if v == nil {
		v = make([]byte, 9, 9+len(text))
		v[8] = textRaw
		v = append(v, text...)
	}
	binary.LittleEndian.PutUint64(v, hash)
	return s.change(textChange{id, v})
}

// del forgets a document's text.
func (s *textStore) del(id string) error {
	return s.change(textChange{id: id})
}

// close commits and closes.
func (s *textStore) close() error {
	if s == nil || s.db == nil {
		return nil
	}
	err := s.commit()
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	s.db = nil
	return err
}

// abort closes without committing what the open transaction holds.
func (s *textStore) abort() {
	if s == nil || s.db == nil {
		return
	}
	s.pending = nil
	s.db.Close()
	s.db = nil
}

// textReader reads the texts file.
type textReader struct {
	db *bolt.DB
}

// openTextReader opens the texts file of dir to read it (waiting a while
// for a build that has it open).
func openTextReader(dir string) (*textReader, error) {
	db, err := bolt.Open(textsPath(dir), 0o644, &bolt.Options{ReadOnly: true, Timeout: 30 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("search texts: %w", err)
	}
	return &textReader{db: db}, nil
}

func (r *textReader) close() error { return r.db.Close() }

// errStale is a text of another content than its meta's: the texts file
// and the metas disagree.
var errStale = errors.New("search texts and metas disagree")

// view calls fn with a function that reads the text of a meta, in one read
// transaction (a transaction is not shared between goroutines: each
// worker has its own).
func (r *textReader) view(fn func(get func(m *meta) (string, error)) error) error {
	return r.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(textsBucket)
		if b == nil {
			return errors.New("search texts: no bucket")
		}
		return fn(func(m *meta) (string, error) {
			v := b.Get([]byte(m.id))
			if len(v) < 9 {
				return "", fmt.Errorf("%s: %w (no text)", m.id, errStale)
			}
			if binary.LittleEndian.Uint64(v) != m.hash {
				return "", fmt.Errorf("%s: %w", m.id, errStale)
			}
			var text []byte
			switch v[8] {
			case textRaw:
				text = bytes.Clone(v[9:]) // bbolt's memory lives with tx
			case textS2:
				if len(v) < 13 {
					return "", fmt.Errorf("%s: search texts: a text cut short", m.id)
				}
				n, err := s2.DecodedLen(v[13:])
				if err == nil && int64(n) != m.text {
					return "", fmt.Errorf("%s: %w", m.id, errStale)
				}
				if err == nil {
					text, err = s2.Decode(make([]byte, n), v[13:])
				}
				if err == nil && crc32.Checksum(text, castagnoli) != binary.LittleEndian.Uint32(v[9:]) {
					err = errors.New("text damaged (CRC)")
				}
				if err != nil {
					return "", fmt.Errorf("%s: search texts: %w", m.id, err)
				}
			case textZstd:
				var err error
				if text, err = textDec().DecodeAll(v[9:], make([]byte, 0, m.text)); err != nil {
					return "", fmt.Errorf("%s: search texts: %w", m.id, err)
				}
			default:
				return "", fmt.Errorf("%s: search texts: a text of kind %d", m.id, v[8])
			}
			if int64(len(text)) != m.text {
				return "", fmt.Errorf("%s: %w", m.id, errStale)
			}
			return unsafe.String(unsafe.SliceData(text), len(text)), nil // text is never written
		})
	})
}
