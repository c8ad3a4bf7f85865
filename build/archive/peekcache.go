package archive

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// PeekCache remembers what Discover read from the head (and a session's
// tail) of each transcript, by path, size and modification time, so that a
// file unchanged since the last build is not opened again: on a 1 GB
// archive those opens and reads were a quarter of a build that had nothing
// to do. It holds what transcripts hold (working directories, session ids):
// keep its file where the transcripts themselves are kept, never in a site.
// A nil *PeekCache peeks every file. It is safe for concurrent use.
type PeekCache struct {
	mu   sync.Mutex
	old  map[string]peekRecord // as read
	used map[string]peekRecord // met this time, by path
	miss bool                  // a file was peeked, not found
}

type peekRecord struct {
	Size        int64     `json:"size"`
	MTime       int64     `json:"mtime"` // Unix nanoseconds
	Tail        bool      `json:"tail,omitzero"`
	CWD         string    `json:"cwd,omitzero"`
	SessionID   string    `json:"sessionId,omitzero"`
	UUID        string    `json:"uuid,omitzero"`
	Time        time.Time `json:"time,omitzero"`
	ContinuedIn string    `json:"continuedIn,omitzero"`
}

var peekJSON = json.JoinOptions(json.Deterministic(true), jsontext.AllowInvalidUTF8(true))

// OpenPeekCache reads the cache file at path; a missing or unreadable one
// gives an empty cache.
func OpenPeekCache(path string) *PeekCache {
	c := &PeekCache{used: map[string]peekRecord{}}
	if f, err := os.Open(path); err == nil {
		if json.UnmarshalRead(f, &c.old, peekJSON) != nil {
			c.old = nil
		}
		f.Close()
	}
	return c
}

// Save writes what this Discover met (files gone since are dropped) to
// path, through a temporary file, unless it is what was read.
func (c *PeekCache) Save(path string) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.miss && len(c.used) == len(c.old) {
		return nil // every file met was in the cache, and no other is
	}
	data, err := json.Marshal(c.used, peekJSON)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	c.old, c.used, c.miss = c.used, map[string]peekRecord{}, false
	return nil
}

// peek is archive's peek through the cache: st is the file's stat from the
// walk (nil: not cached), tail whether the session's continued-in record is
// wanted.
func (c *PeekCache) peek(path string, st fs.FileInfo, tail bool) peeked {
	size := int64(-1)
	if tail && st != nil {
		size = st.Size()
	}
	if c == nil || st == nil {
		return peek(path, size)
	}
	mtime := st.ModTime().UnixNano()
	c.mu.Lock()
	r, ok := c.old[path]
	c.mu.Unlock()
	if ok && r.Size == st.Size() && r.MTime == mtime && r.Tail == tail {
		c.mu.Lock()
		c.used[path] = r
		c.mu.Unlock()
		return peeked{cwd: r.CWD, sessionID: r.SessionID, uuid: r.UUID, time: r.Time, continuedIn: r.ContinuedIn}
	}
	pk := peek(path, size)
	c.mu.Lock()
	c.used[path] = peekRecord{Size: st.Size(), MTime: mtime, Tail: tail, CWD: pk.cwd, SessionID: pk.sessionID,
		UUID: pk.uuid, Time: pk.time, ContinuedIn: pk.continuedIn}
	c.miss = true
	c.mu.Unlock()
	return pk
}
