// Package keep is the archive of every transcript a build has read: a
// compressed copy of each source file (sessions, sub-agents, their
// .meta.json, tool results, file-history backups), kept in the site's
// state folder, deduplicated by content, written atomically. Claude Code
// deletes transcripts after cleanupPeriodDays; a source that vanishes is
// read from its copy, so no session leaves the site because its file did.
//
// Copies are the files as they were, never redacted: a better redactor
// can rebuild everything from them. They never land in the site.
package keep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"ccsite/build/internal/readall"

	"github.com/klauspost/compress/zstd"
)

// Kinds of kept files.
const (
	KindSession     = "session"
	KindAgent       = "agent"
	KindMeta        = "meta"         // a sub-agent's .meta.json
	KindExtra       = "extra"        // other files under a session's folder (tool-results/)
	KindFileHistory = "file-history" // ~/.claude/file-history/<session>/…
)

// indexFormat changes when the index's meaning does. Format 2 keeps small
// copies in packs (Packs); a format 1 index (every copy a file of its own)
// is read as one without packs. A binary that knows only format 1 refuses
// a format 2 index rather than save one without its packs.
const indexFormat = 2

// Small copies are kept in packs: a file that holds, one after the other,
// the compressed copies a save added, each found by its place in it. Most
// copies are small (the corpus tree's median is 2 KB: sub-agents'
// .meta.json, short sessions, tool results), and on the virtual machines
// we measure on, making a file costs 0.1-1.3 ms of system CPU whatever its
// size: a cold build of the corpus tree made 352 copies, a quarter of the
// files it made. A copy of packMax compressed bytes or more is a file of
// its own, as is any copy once pendingMax bytes wait for the save (what
// waits is held in memory).
const (
	packMax    = 64 << 10
	pendingMax = 32 << 20
)

// packLoc is where a copy is in a pack: the pack's name in packs/, and the
// copy's offset and length in it.
type packLoc struct {
	Pack string `json:"pack"`
	Off  int64  `json:"off"`
	Len  int64  `json:"len"`
}

// Entry is one kept file: where it was, what it held (by hash), when a
// build last saw it, and which session it belongs to.
type Entry struct {
	// Path is the file's absolute path when it was read; Root the input
	// root it was found under, Rel its path from there (slash-separated).
	Path string `json:"path"`
	Root string `json:"root"`
	Rel  string `json:"rel"`
	Kind string `json:"kind"`
	// Hash is the SHA-256 of the content (hex), the copy's name.
	Hash  string `json:"hash"`
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // Unix nanoseconds
	// Seen is the day (UTC) a build last found the file.
	Seen string `json:"seen"`
	// Appended is how many of the content's bytes the copy holds in
	// frames of their own, added to the copy of an earlier, shorter
	// content as the file grew (see Keep); 0 for a copy compressed whole.
	Appended int64 `json:"appended,omitempty"`
	// Session is the session id the file belongs to; Project its
	// project's path; Start its first time.
	Session string    `json:"session,omitempty"`
	Project string    `json:"project,omitempty"`
	Start   time.Time `json:"start,omitzero"`
}

type index struct {
	Format  int               `json:"format"`
	Entries map[string]*Entry `json:"entries"` // by Path
	// Packs are the copies kept in packs, by hash; the others are files
	// of their own (blobFile).
	Packs map[string]packLoc `json:"packs,omitempty"`
	// Stats are the archive's as the last Save counted them (Written
	// aside): a build that changed no entry gives them without counting.
	Stats *Stats `json:"stats,omitempty"`
}

// Store is the archive in a state folder.
type Store struct {
	dir string
	mu  sync.Mutex
	idx index
	enc *zstd.Encoder
	// dirty says an entry changed since the index was read (Save writes
	// it then, and only then).
	dirty bool
	// blobs are the copies' names (hash.zst) as listed once, on the first
	// Keep of a file unchanged: its copy is checked there, not by a stat.
	blobsOnce sync.Once
	blobs     map[string]bool
	// written counts the bytes of new copies this build; reused those of
	// sources whose content was already kept.
	written, reused int64
	// pending holds the small copies made since the last pack was
	// written, one after the other, and pendingAt where each is in it, by
	// hash: Flush or Save writes them as a pack.
	pending   []byte
	pendingAt map[string][2]int64
	// packOnDisk remembers which packs were found (or written) on disk.
	packOnDisk map[string]bool
	// erase says entries were forgotten since the last save: the next
	// one leaves no byte of a copy no entry names (see Save).
	erase bool
}

// Open opens (or makes) the archive in dir. The archive holds the
// transcripts as they were, secrets and all: its folders are the user's
// alone (0700, as is every folder made on the way to it), and an archive
// made open to others before is closed to them.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		return nil, err
	}
	for _, d := range []string{dir, filepath.Join(dir, "blobs")} {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(d, fi.Mode().Perm()&0o700); err != nil {
				return nil, err
			}
		}
	}
	// A 4 MB window, not the level's 8 MB: the encoder's history is twice
	// the window, on the heap for the whole build, and the corpus'
	// copies came out byte for byte the same size with either. The
	// fastest level: the corpus tree's 104 MB compress in 0.45 CPU-s to
	// 17.1 MB, against 0.57-0.65 CPU-s to 16.0 MB at the default level
	// (a copy is written once, by a build someone waits for, and read
	// back only when its source is gone). No frame checksum (xxhash64 of
	// the content, a sixth of the compressor's time): a copy is checked
	// against its SHA-256, its name, whenever it is read (Read), and
	// against the file itself before one is built upon (holds).
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(4<<20), zstd.WithEncoderCRC(false))
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, enc: enc, idx: index{Format: indexFormat, Entries: map[string]*Entry{}, Packs: map[string]packLoc{}},
		pendingAt: map[string][2]int64{}, packOnDisk: map[string]bool{}}
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		var idx index
		if err := json.Unmarshal(data, &idx); err != nil || idx.Format != indexFormat && idx.Format != 1 {
			if err == nil {
				err = fmt.Errorf("format %d, this ccsite reads 1 and %d", idx.Format, indexFormat)
			}
			return nil, fmt.Errorf("archive index %s: unreadable (%v); move it aside to start a new archive", filepath.Join(dir, "index.json"), err)
		}
		if idx.Entries == nil {
			idx.Entries = map[string]*Entry{}
		}
		if idx.Packs == nil {
			idx.Packs = map[string]packLoc{}
		}
		idx.Format = indexFormat
		s.idx = idx
	}
	return s, nil
}

// RemoveTemps removes what a process killed while it saved the index left
// of its temporary file (.tmp-*, beside index.json); a killed copy's, in
// blobs, goes at the next save that changes the index. The caller must be
// the one process saving the index (a build holds the site's lock).
func (s *Store) RemoveTemps() {
	for _, dir := range []string{s.dir, s.packDir()} {
		names, _ := os.ReadDir(dir)
		for _, d := range names {
			if !d.IsDir() && strings.HasPrefix(d.Name(), ".tmp-") {
				os.Remove(filepath.Join(dir, d.Name()))
			}
		}
	}
}

// packDir is the folder of packs.
func (s *Store) packDir() string { return filepath.Join(s.dir, "packs") }

// blob is where the copy of content hash is written: blobs/<hash>.zst.
// Archives made before kept copies in a folder per hash's first two hex
// digits, which a cold build made ~200 of (on the virtual machines we
// measure on, a folder made costs ~1 ms of system CPU); those copies are
// read where they are (blobFile), never moved.
func (s *Store) blob(hash string) string {
	return filepath.Join(s.dir, "blobs", hash+".zst")
}

// blobFile is the copy of content hash as it is on disk: blob(hash), or
// an older archive's blobs/<2 digits>/<hash>.zst; blob(hash) if neither.
func (s *Store) blobFile(hash string) string {
	p := s.blob(hash)
	if _, err := os.Stat(p); err != nil && len(hash) > 2 {
		if q := filepath.Join(s.dir, "blobs", hash[:2], hash+".zst"); exists(q) {
			return q
		}
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Keep records the file at e.Path (e.Size, e.MTime as the build found
// them) as seen on day; it copies the file when its content is not kept
// yet. A file whose size and mtime are those kept is not read again.
func (s *Store) Keep(e Entry, day string) error {
	s.mu.Lock()
	old := s.idx.Entries[e.Path]
	s.mu.Unlock()
	if old != nil && old.Size == e.Size && old.MTime == e.MTime && old.Hash != "" && s.haveBlob(old.Hash) {
		s.mu.Lock()
		was := *old
		old.Seen, old.Root, old.Rel, old.Kind = day, e.Root, e.Rel, e.Kind
		if e.Session != "" {
			old.Session, old.Project, old.Start = e.Session, e.Project, e.Start
		}
		if !sameEntry(*old, was) {
			s.dirty = true
		}
		s.mu.Unlock()
		return nil
	}
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	data, err := readInto(e.Path, bp)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	e.Hash, e.Size, e.Seen = hex.EncodeToString(sum[:]), int64(len(data)), day
	if e.Appended, err = s.writeGrown(old, e.Hash, data); err != nil {
		return err
	}
	s.mu.Lock()
	s.idx.Entries[e.Path] = &e
	s.dirty = true
	s.mu.Unlock()
	return nil
}

// readBuffers hold the files Keep reads, reused from one file to the next
// (grown to the largest): a new buffer per file, zeroed memory the size of
// the archive, was a twentieth of a cold build's allocations.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// readInto reads the file at path whole into *bp (grown when too small),
// returning its content.
func readInto(path string, bp *[]byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf, err := readall.File(f, st.Size(), *bp)
	*bp = buf
	if err != nil {
		return nil, err
	}
	return buf, nil
}

// sameEntry tells whether two entries say the same (times by instant).
func sameEntry(a, b Entry) bool {
	st := a.Start.Equal(b.Start)
	a.Start, b.Start = time.Time{}, time.Time{}
	return st && a == b
}

// Hash returns the content hash (SHA-256, hex) of the file at path as it
// was kept, when it was found at this size and mtime: what the file holds
// unless it changed without changing either, which a build takes as
// unchanged anyway.
func (s *Store) Hash(path string, size, mtime int64) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.idx.Entries[path]
	if e == nil || e.Hash == "" || e.Size != size || e.MTime != mtime {
		return "", false
	}
	return e.Hash, true
}

// haveBlob tells whether the copy of content hash is in the archive, as
// its folder was listed on the first call (names only: a few directory
// reads, not a stat per kept file).
func (s *Store) haveBlob(hash string) bool {
	if s.packed(hash) {
		return true
	}
	s.blobsOnce.Do(func() {
		s.blobs = map[string]bool{}
		base := filepath.Join(s.dir, "blobs")
		dirs, _ := os.ReadDir(base)
		for _, d := range dirs {
			if d.Type().IsRegular() {
				s.blobs[d.Name()] = true
				continue
			}
			if !d.IsDir() {
				continue
			}
			files, _ := os.ReadDir(filepath.Join(base, d.Name())) // an older archive's
			for _, f := range files {
				if f.Type().IsRegular() {
					s.blobs[f.Name()] = true
				}
			}
		}
	})
	return s.blobs[hash+".zst"]
}

// packed tells whether the copy of content hash is in a pack that is on
// disk, or waits for one.
func (s *Store) packed(hash string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, waits := s.pendingAt[hash]; waits {
		return true
	}
	loc, ok := s.idx.Packs[hash]
	if !ok {
		return false
	}
	on, seen := s.packOnDisk[loc.Pack]
	if !seen {
		on = exists(filepath.Join(s.packDir(), loc.Pack))
		s.packOnDisk[loc.Pack] = on
	}
	return on
}

// have tells whether the copy of content hash is kept (in a pack, waiting
// for one, or a file of its own).
func (s *Store) have(hash string) bool {
	return s.packed(hash) || exists(s.blobFile(hash))
}

// compressed returns the copy of content hash as it is kept: its zstd
// frames.
func (s *Store) compressed(hash string) ([]byte, error) {
	s.mu.Lock()
	at, waits := s.pendingAt[hash]
	loc, ok := s.idx.Packs[hash]
	var z []byte
	if waits {
		z = bytes.Clone(s.pending[at[0] : at[0]+at[1]])
	}
	s.mu.Unlock()
	switch {
	case waits:
		return z, nil
	case ok:
		f, err := os.Open(filepath.Join(s.packDir(), loc.Pack))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		z = make([]byte, loc.Len)
		if _, err := f.ReadAt(z, loc.Off); err != nil {
			return nil, fmt.Errorf("pack %s: %w", loc.Pack, err)
		}
		return z, nil
	}
	return os.ReadFile(s.blobFile(hash))
}

// put keeps parts, the compressed copy of content hash: in the next pack
// when small and there is room, else as a file of its own, through a
// temporary file and a rename (a kill leaves a whole copy or none).
func (s *Store) put(hash string, parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n < packMax {
		s.mu.Lock()
		if _, dup := s.pendingAt[hash]; dup {
			s.mu.Unlock()
			return nil
		}
		if len(s.pending)+n <= pendingMax {
			at := [2]int64{int64(len(s.pending)), int64(n)}
			for _, p := range parts {
				s.pending = append(s.pending, p...)
			}
			s.pendingAt[hash] = at
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
	}
	return writeAtomic(s.blob(hash), parts...) // blobs/ made by Open
}

// write stores content under its hash, once.
func (s *Store) write(hash string, data []byte) error {
	if s.have(hash) {
		s.mu.Lock()
		s.reused += int64(len(data))
		s.mu.Unlock()
		return nil
	}
	z := s.enc.EncodeAll(data, make([]byte, 0, len(data)/4)) // safe to call concurrently
	s.mu.Lock()
	s.written += int64(len(z))
	s.mu.Unlock()
	return s.put(hash, z)
}

// appendedMax is the share of a copy's content that may be in appended
// frames (1/appendedMax): past it the copy is compressed whole again (a
// frame of a few lines compresses less well than the whole file does).
const appendedMax = 4

// writeGrown stores data under hash. When old is the copy of a file that
// data continues (old's content is data's start: a session that grew, the
// commonest change by far), the new copy is old's compressed bytes and one
// more zstd frame with what was added (a stream of frames decodes to their
// contents one after the other), so only the new lines are compressed,
// not the whole file again (one message appended to a session of the
// corpus tree: 0.435 -> 0.405 CPU-s for the whole build, median of 6
// alternated pairs; a longer session saves more). It returns the bytes in
// appended frames (0: compressed whole).
func (s *Store) writeGrown(old *Entry, hash string, data []byte) (int64, error) {
	if old == nil || old.Hash == "" || old.Size <= 0 || old.Size >= int64(len(data)) ||
		(old.Appended+int64(len(data))-old.Size)*appendedMax > int64(len(data)) {
		return 0, s.write(hash, data)
	}
	if s.have(hash) {
		return 0, s.write(hash, data) // kept already (counted as reused there)
	}
	base, err := s.compressed(old.Hash)
	if err != nil {
		return 0, s.write(hash, data)
	}
	// The earlier copy must hold exactly data's start: decoded and
	// compared, so a damaged copy is never built upon. Decoded as a
	// stream against data, not into a buffer the session's size, and
	// written with the new frame after it, not joined to it first: an
	// append to a long session allocated both, each page of them a page
	// fault.
	if !holds(base, data[:old.Size]) {
		return 0, s.write(hash, data)
	}
	frame := s.enc.EncodeAll(data[old.Size:], nil)
	s.mu.Lock()
	s.written += int64(len(frame))
	s.mu.Unlock()
	return old.Appended + int64(len(data)) - old.Size, s.put(hash, base, frame)
}

// holds tells whether the zstd frames z decode to exactly want.
func holds(z, want []byte) bool {
	dec := decoders.Get().(*zstd.Decoder)
	defer decoders.Put(dec)
	if err := dec.Reset(bytes.NewReader(z)); err != nil {
		return false
	}
	w := &prefixWriter{want: want}
	_, err := dec.WriteTo(w)
	dec.Reset(nil)
	return err == nil && len(w.want) == 0
}

// prefixWriter takes the bytes of want, in order, and fails on any other.
type prefixWriter struct{ want []byte }

func (w *prefixWriter) Write(p []byte) (int, error) {
	if len(p) > len(w.want) || !bytes.Equal(p, w.want[:len(p)]) {
		return 0, errNotPrefix
	}
	w.want = w.want[len(p):]
	return len(p), nil
}

var errNotPrefix = errors.New("kept copy differs from the file's start")

// decoders are zstd decoders (Read, writeGrown), reused.
var decoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		panic(err) // options are constant: cannot fail
	}
	return d
}}

// Read returns a kept file's content.
func (s *Store) Read(e *Entry) ([]byte, error) {
	z, err := s.compressed(e.Hash)
	if err != nil {
		return nil, err
	}
	dec := decoders.Get().(*zstd.Decoder)
	data, err := dec.DecodeAll(z, nil)
	decoders.Put(dec)
	if err != nil {
		return nil, fmt.Errorf("kept copy of %s: %w", e.Path, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.Hash {
		return nil, fmt.Errorf("kept copy of %s: content does not match its hash", e.Path)
	}
	return data, nil
}

// Vanished lists the kept files under roots that the build did not find
// (seen holds the paths it found), by path. Files kept from roots this
// build does not read are left alone.
func (s *Store) Vanished(roots []string, seen map[string]bool) []*Entry {
	in := map[string]bool{}
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			in[abs] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Entry
	for p, e := range s.idx.Entries {
		if !seen[p] && in[e.Root] && e.Kind != KindFileHistory {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// RestoredRoot is the folder a build reads the vanished files of root
// from: the files in their places under it, as under root.
func (s *Store) RestoredRoot(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(s.dir, "restored", hex.EncodeToString(sum[:8]))
}

// Restore writes the vanished files back under their roots' restored
// folders (each only when its copy there differs), removes what is no
// longer vanished from them, and returns the restored roots and a map
// from restored path to entry.
func (s *Store) Restore(vanished []*Entry) (roots []string, origin map[string]*Entry, err error) {
	origin = map[string]*Entry{}
	want := map[string]bool{}
	for _, e := range vanished {
		root := s.RestoredRoot(e.Root)
		p := filepath.Join(root, filepath.FromSlash(e.Rel))
		if !strings.HasPrefix(p, root+string(filepath.Separator)) {
			continue // a relative path that leaves its root: never written
		}
		want[p] = true
		origin[p] = e
		if !containsStr(roots, root) {
			roots = append(roots, root)
		}
		if st, err := os.Stat(p); err == nil && st.Size() == e.Size {
			continue
		}
		data, err := s.Read(e)
		if err != nil {
			return nil, nil, err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, nil, err
		}
		if err := writeAtomic(p, data); err != nil {
			return nil, nil, err
		}
		// The file's time as it was: the build orders and fingerprints by it.
		os.Chtimes(p, time.Unix(0, e.MTime), time.Unix(0, e.MTime))
	}
	base := filepath.Join(s.dir, "restored")
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !want[p] {
			os.Remove(p)
		}
		return nil
	})
	sort.Strings(roots)
	return roots, origin, nil
}

// Forget removes the entries match selects and returns how many. The save
// that follows erases their bytes: every copy no entry names any more
// (a copy another entry names stays), each pack written again without
// them, and their restored files.
func (s *Store) Forget(match func(*Entry) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, e := range s.idx.Entries {
		if match(e) {
			delete(s.idx.Entries, p)
			n++
		}
	}
	if n > 0 {
		s.dirty, s.erase = true, true
	}
	return n
}

// Entries returns every entry, by path.
func (s *Store) Entries() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Entry, 0, len(s.idx.Entries))
	for _, e := range s.idx.Entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Exported says what ExportTo did.
type Exported struct {
	Written int // files written where there were none
	Same    int // files already there with the kept bytes, left as they are
	// Beside are the files already there with other bytes (a newer copy,
	// or another file): each is left as it is, the kept copy written
	// beside it.
	Beside []Beside
}

// Beside is a file ExportTo did not touch, and where it wrote the kept
// copy instead.
type Beside struct {
	Path, Copy string
}

// besideSuffix ends the name of a kept copy set beside a file with other
// bytes: <name>.archived, never .jsonl (Claude Code lists a project
// folder's *.jsonl as its sessions; ccsite reads them too).
const besideSuffix = ".archived"

// ExportTo writes every kept transcript (not file-history backups) to dir
// as a projects tree: each file at its path from its root, byte for byte,
// with its time as it was. dir may be the live projects folder: a file
// already there is never overwritten. One with the kept bytes is left as
// it is; one with other bytes (Claude Code's newer copy) too, and the
// kept copy is written beside it (<name>.archived, or .archived.2 … when
// that name holds something else). A file is written under a temporary
// name and linked into place, so a file made meanwhile is not replaced
// either.
func (s *Store) ExportTo(dir string) (Exported, error) {
	var res Exported
	base := filepath.Clean(dir)
	for _, e := range s.Entries() {
		if e.Kind == KindFileHistory {
			continue
		}
		p := filepath.Join(base, filepath.FromSlash(e.Rel))
		if !strings.HasPrefix(p, base+string(filepath.Separator)) {
			continue
		}
		switch same, err := holdsHash(p, e.Hash); {
		case err == nil && same:
			res.Same++
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return res, err
		}
		data, err := s.Read(e)
		if err != nil {
			return res, err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return res, err
		}
		// Missing: written in its place (unless one appears meanwhile).
		// There with other bytes: beside it, under the first free name.
		for i := 0; ; i++ {
			target := p
			if i > 0 {
				target = p + besideSuffix
				if i > 1 {
					target += "." + strconv.Itoa(i)
				}
				same, err := holdsHash(target, e.Hash)
				if err == nil && same {
					res.Beside = append(res.Beside, Beside{Path: p, Copy: target})
					break
				}
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return res, err
				}
				if err == nil {
					continue // a copy of other bytes: the next name
				}
			}
			err := writeNew(target, data)
			if errors.Is(err, fs.ErrExist) {
				if i == 0 {
					if same, err := holdsHash(p, e.Hash); err == nil && same {
						res.Same++ // made meanwhile, with the kept bytes
						break
					}
				}
				continue
			}
			if err != nil {
				return res, err
			}
			os.Chtimes(target, time.Unix(0, e.MTime), time.Unix(0, e.MTime))
			if i == 0 {
				res.Written++
			} else {
				res.Beside = append(res.Beside, Beside{Path: p, Copy: target})
			}
			break
		}
	}
	return res, nil
}

// holdsHash tells whether the file at p holds the content of hash
// (SHA-256, hex); an error when it cannot be read (fs.ErrNotExist: no
// such file). A folder where a file would be holds other bytes.
func holdsHash(p, hash string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == hash, nil
}

// writeNew writes data as a new file at path, private (0600), whole or
// not at all, failing with fs.ErrExist when something is there already:
// a temporary file linked into place (where the file system cannot link,
// made with O_EXCL and written).
func writeNew(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	os.Remove(tmp.Name())
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	var le *os.LinkError
	if !errors.As(err, &le) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// Stats are the archive's size: its copies on disk, the sources they
// hold, and this build's new copies.
type Stats struct {
	Files       int
	SourceBytes int64 // the kept files' sizes
	StoredBytes int64 // the copies on disk (compressed, deduplicated)
	Written     int64 // new copies this build (compressed)
}

// Save writes the copies waiting for a pack as one, then the index
// (atomically), and removes the copies no entry names any more; it
// returns the archive's size. A pack of which less than half is still
// named is packed again: what is named goes into this save's pack.
//
// After Forget, no byte of a copy no entry names is left: every pack
// holding any is packed again, however much of it is still named (the
// copy of a file's earlier content, which a grown file's left unnamed in
// a pack mostly named, goes too), and the restored files of entries no
// longer kept are removed.
//
// An archive whose entries did not change since it was opened is neither
// written nor walked: its stats are the last Save's.
func (s *Store) Save() (Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty && s.idx.Stats != nil && len(s.pendingAt) == 0 {
		st := *s.idx.Stats
		st.Written = s.written
		return st, nil
	}
	st := Stats{Files: len(s.idx.Entries), Written: s.written}
	used := map[string]bool{}
	for _, e := range s.idx.Entries {
		st.SourceBytes += e.Size
		used[e.Hash] = true
	}
	var unused []string // files to remove once the index no longer names them
	filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		name := d.Name()
		h := strings.TrimSuffix(name, ".zst")
		_, waits := s.pendingAt[h]
		_, packed := s.idx.Packs[h]
		if strings.HasPrefix(name, ".tmp-") || !used[h] || waits || packed {
			// A copy no entry names, half of one a kill left, or one
			// a pack holds too.
			unused = append(unused, p)
			return nil
		}
		if info, err := d.Info(); err == nil {
			st.StoredBytes += info.Size()
		}
		return nil
	})
	if err := s.repack(used, s.erase); err != nil {
		return Stats{}, err
	}
	// The packs the index names, and their sizes.
	named := map[string]bool{}
	for _, loc := range s.idx.Packs {
		named[loc.Pack] = true
	}
	packs, _ := os.ReadDir(s.packDir())
	for _, d := range packs {
		if !named[d.Name()] {
			unused = append(unused, filepath.Join(s.packDir(), d.Name()))
		} else if info, err := d.Info(); err == nil {
			st.StoredBytes += info.Size()
		}
	}
	saved := st
	saved.Written = 0
	s.idx.Stats = &saved
	data, err := json.Marshal(&s.idx)
	if err != nil {
		return Stats{}, err
	}
	// The index first: until it is written, the one on disk may name
	// the copies about to go.
	if err := writeAtomic(filepath.Join(s.dir, "index.json"), data); err != nil {
		return Stats{}, err
	}
	var failed []error
	for _, p := range unused {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) && s.erase {
			failed = append(failed, err)
		}
	}
	if s.erase {
		failed = append(failed, s.removeRestored())
		if err := errors.Join(failed...); err != nil {
			return Stats{}, fmt.Errorf("erasing forgotten copies: %w", err)
		}
		s.erase = false
	}
	s.dirty = false
	return st, nil
}

// removeRestored removes the files under restored/ that are no entry's
// restored copy (those of forgotten entries), and the folders left empty.
// Called with s.mu held.
func (s *Store) removeRestored() error {
	base := filepath.Join(s.dir, "restored")
	keep := map[string]bool{}
	for _, e := range s.idx.Entries {
		keep[filepath.Join(s.RestoredRoot(e.Root), filepath.FromSlash(e.Rel))] = true
	}
	var dirs []string
	var failed []error
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if !errors.Is(err, fs.ErrNotExist) {
				failed = append(failed, err)
			}
		case d.IsDir():
			dirs = append(dirs, p)
		case !keep[p]:
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				failed = append(failed, err)
			}
		}
		return nil
	})
	// Deepest first: a folder emptied empties its parent. One that is
	// not empty stays (os.Remove fails).
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if d != base {
			os.Remove(d)
		}
	}
	return errors.Join(failed...)
}

// repack writes the copies waiting for a pack, with the named copies of
// packs less than half named (erase: of every pack holding anything
// else), as a new pack, and drops from the index the copies no entry
// names (used: the hashes entries name). Called with s.mu held; the packs
// left unnamed go at the save, after the index.
func (s *Store) repack(used map[string]bool, erase bool) error {
	live := map[string]int64{}
	for h, loc := range s.idx.Packs {
		if !used[h] {
			delete(s.idx.Packs, h)
			continue
		}
		live[loc.Pack] += loc.Len
	}
	var next []copyAt
	for h, at := range s.pendingAt {
		if used[h] {
			next = append(next, copyAt{h, s.pending[at[0] : at[0]+at[1]]})
		}
	}
	for name, n := range live {
		p := filepath.Join(s.packDir(), name)
		info, err := os.Stat(p)
		if err != nil {
			if erase && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("pack %s: %w", name, err)
			}
			continue // gone, or unreadable: left as it is
		}
		if 2*n >= info.Size() && !(erase && n < info.Size()) {
			continue // mostly named
		}
		data, err := os.ReadFile(p)
		if err != nil {
			if erase {
				return fmt.Errorf("pack %s: %w", name, err)
			}
			continue
		}
		for h, loc := range s.idx.Packs {
			if loc.Pack == name && loc.Off+loc.Len <= int64(len(data)) {
				next = append(next, copyAt{h, data[loc.Off : loc.Off+loc.Len]})
			}
		}
	}
	return s.writePack(next)
}

// copyAt is a compressed copy on its way to a pack.
type copyAt struct {
	hash string
	z    []byte
}

// Flush writes the copies waiting for a pack as one (when there are any),
// so they are not held in memory to the save. Like a copy of its own, a
// pack is written under a name of its own (its content's hash): a process
// that does not hold the site's lock may write one.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make([]copyAt, 0, len(s.pendingAt))
	for h, at := range s.pendingAt {
		next = append(next, copyAt{h, s.pending[at[0] : at[0]+at[1]]})
	}
	return s.writePack(next)
}

// writePack writes copies as a pack, places them in the index, and empties
// what waits for a pack (all of which must be among them). Called with
// s.mu held.
func (s *Store) writePack(next []copyAt) error {
	if len(next) == 0 {
		return nil
	}
	// In hash order, and named by content: the same copies make the same
	// pack.
	sort.Slice(next, func(i, j int) bool { return next[i].hash < next[j].hash })
	size := 0
	for _, c := range next {
		size += len(c.z)
	}
	pack := make([]byte, 0, size)
	locs := make([]packLoc, len(next))
	for i, c := range next {
		locs[i] = packLoc{Off: int64(len(pack)), Len: int64(len(c.z))}
		pack = append(pack, c.z...)
	}
	sum := sha256.Sum256(pack)
	name := hex.EncodeToString(sum[:16]) + ".pack"
	if err := os.MkdirAll(s.packDir(), 0o700); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(s.packDir(), name), pack); err != nil {
		return err
	}
	for i, c := range next {
		locs[i].Pack = name
		s.idx.Packs[c.hash] = locs[i]
	}
	s.packOnDisk[name] = true
	s.pending, s.pendingAt = nil, map[string][2]int64{}
	return nil
}

// Close releases the compressor.
func (s *Store) Close() error { return s.enc.Close() }

func writeAtomic(path string, parts ...[]byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	for _, data := range parts {
		if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func containsStr(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
