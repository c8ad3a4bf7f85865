package build

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"

	"ccsite/build/archive"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/search"
	"ccsite/theme"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// stateFormat changes when the state's meaning does.
const stateFormat = 5

// buildState is the manifest.
type buildState struct {
	Format  int    `json:"format"`
	Tool    string `json:"tool"`
	Options string `json:"options"`
	// Sources are keyed by pathKey: the manifest holds no path a page
	// would not show.
	Sources map[string]source `json:"sources"`
	// Units are the pages of each session (its sub-agents' included) or
	// orphan agent, by the page's path.
	Units map[string]*unit `json:"units"`
	// Static lists the static search index's files and Search its stats.
	Static []string           `json:"static,omitempty"`
	Search search.StaticStats `json:"search"`
	Docs   int                `json:"docs"`
	// IndexUpdated says documents were deleted from the search index
	// since it was made: its dictionary then keeps their terms, so
	// --force makes it anew.
	IndexUpdated bool `json:"indexUpdated,omitzero"`
	// Lists are the list pages (projects, index, search) this build
	// wrote, each with the hash of what it was rendered from (listHash):
	// the next build keeps a page whose hash is the same.
	Lists map[string]string `json:"lists,omitzero"`
}

// source is a source file as the last build read it.
type source struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // Unix nanoseconds
	Hash  string `json:"hash"`  // SHA-256, hex, of the content
}

// unit is what one session (or orphan agent) gave the site: enough to
// write the project pages, index, search index and summary without
// parsing it again.
type unit struct {
	Key     string   `json:"key"`
	Session string   `json:"session"`
	Title   string   `json:"title"`
	Project string   `json:"project"`
	Refs    []string `json:"refs,omitempty"`
	Claimed []string `json:"claimed,omitempty"`
	ClaimK  string   `json:"claimKey,omitempty"`
	Files   []string `json:"files"`
	// DocsHash hashes the documents, so identical ones are not indexed
	// again.
	DocsHash string `json:"docsHash,omitempty"`
	// Overview is the session's, for its project page's row; Orphan the
	// link an orphan agent gets there instead.
	Overview session.Overview `json:"overview,omitzero"`
	Orphan   *render.Nav      `json:"orphan,omitempty"`
	Agents   int              `json:"agents,omitzero"`
	Pages    int              `json:"pages"`
	// Deleted is the day the session's file was last seen, when the
	// pages were built from the archive's copy (the file is gone).
	Deleted string `json:"deleted,omitempty"`
	// Git is what the session did in git (history_index.go).
	Git *sessionGit `json:"git,omitempty"`
	// Problems are the session's and its sub-agents'.
	Problems []session.Problem `json:"problems,omitempty"`
	// Redacted holds the redaction counts, by file (as pages show its
	// path) and rule; owns lists the source files whose redactions count
	// for this session, while it is built.
	Redacted map[string]map[string]int `json:"redacted,omitempty"`
	owns     []string
}

// readState reads the last build's manifest; nil when there is none or it
// was written by another tool or for other options.
func readState(state, tool, options string) *buildState {
	f, err := os.Open(filepath.Join(state, stateFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	// Decoded as it is read: the file (megabytes for a large archive) is
	// never held whole.
	var st buildState
	if json.UnmarshalRead(f, &st, stateJSON) != nil || st.Format != stateFormat || st.Tool != tool || st.Options != options {
		return nil
	}
	if st.Units == nil {
		st.Units = map[string]*unit{}
	}
	return &st
}

// stateJSON are the manifest's JSON options: encoding/json/v2 (several
// times faster than encoding/json on a manifest of tens of MB), map keys
// sorted, text from transcripts taken as it is (invalid UTF-8 replaced),
// durations in nanoseconds.
var stateJSON = json.JoinOptions(json.Deterministic(true), jsontext.AllowInvalidUTF8(true), jsonv1.FormatDurationAsNano(true))

// writeState writes the manifest, sorted (map keys too), through a
// temporary file; a manifest the same as the one there is not written.
// The encoding is compared with the old file as it streams, so a build
// that changed nothing holds neither in memory (megabytes of fresh pages,
// costly to fault in, for a 1 GB archive).
func writeState(state string, st *buildState) error {
	for _, u := range st.Units {
		sort.Strings(u.Files)
		u.Files = slices.Compact(u.Files)
	}
	path := filepath.Join(state, stateFile)
	w := &sameWriter{}
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		w.old, w.br = f, bufio.NewReaderSize(f, 64<<10)
		if fi, err := f.Stat(); err == nil {
			w.size = fi.Size()
		}
	}
	if err := json.MarshalWrite(w, st, stateJSON); err != nil {
		return err
	}
	if w.same() {
		return nil // a build that changed nothing: no write, no sync
	}
	if err := w.keep(0); err != nil {
		return err
	}
	return WritePrivateFile(path, w.buf)
}

// sameWriter compares what is written to it with the file old (nil: none)
// until the two differ; from there on it keeps all that is written, the
// equal beginning read back from old first, in buf.
type sameWriter struct {
	old  *os.File
	br   *bufio.Reader
	size int64 // old's size, to size buf
	n    int64 // bytes written
	diff bool
	buf  []byte
	err  error
}

func (w *sameWriter) Write(p []byte) (int, error) {
	if !w.diff && w.br != nil {
		rest := p
		for len(rest) > 0 {
			k := min(len(rest), w.br.Size())
			b, _ := w.br.Peek(k)
			if len(b) < k || !bytes.Equal(b, rest[:k]) {
				break
			}
			w.br.Discard(k)
			rest = rest[k:]
		}
		if len(rest) == 0 {
			w.n += int64(len(p))
			return len(p), nil
		}
	}
	if err := w.keep(len(p)); err != nil {
		return 0, err
	}
	w.buf = append(w.buf, p...)
	w.n += int64(len(p))
	return len(p), nil
}

// keep makes buf hold all that was written (with room for more bytes):
// from the first call on, everything written is kept.
func (w *sameWriter) keep(more int) error {
	if w.diff {
		return nil
	}
	w.diff = true
	w.buf = make([]byte, w.n, max(w.size+w.size/8, w.n+int64(more))+4096)
	if w.n > 0 {
		if _, err := w.old.ReadAt(w.buf, 0); err != nil {
			return err
		}
	}
	return nil
}

// same reports whether all that was written equals old, whole.
func (w *sameWriter) same() bool {
	if w.diff || w.br == nil {
		return false
	}
	_, err := w.br.Peek(1)
	return err == io.EOF
}

// toolID names the running binary: its version, revision and file, so a
// new build of ccsite redoes every page.
func toolID() string {
	h := sha256.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintln(h, bi.GoVersion, bi.Main.Path, bi.Main.Version)
		for _, s := range bi.Settings {
			fmt.Fprintln(h, s.Key, s.Value)
		}
	}
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			fmt.Fprintln(h, exe, st.Size(), st.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// optionsID hashes every option that changes what a page holds: the
// theme's files, base URL, exports, search, redaction and omissions.
func optionsID(cfg Config, th *theme.Theme) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "base=%q json=%v nosearch=%v omit=%+v\n", cfg.BaseURL, cfg.JSON, cfg.NoSearch, cfg.Omit)
	fmt.Fprintf(h, "redact=%s\n", cfg.Redact.Fingerprint())
	if cfg.Home != "" {
		fmt.Fprintf(h, "home=%q\n", cfg.Home)
	}
	if cfg.Demo {
		fmt.Fprintln(h, "demo")
	}
	if d := cfg.History.Digest(); d != "" {
		fmt.Fprintf(h, "history %s\n", d)
	}
	if cfg.Pricing != "" {
		data, err := os.ReadFile(cfg.Pricing)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "pricing %d\n", len(data))
		h.Write(data)
	}
	files, err := th.Templates()
	if err != nil {
		return "", err
	}
	for _, f := range files {
		fmt.Fprintf(h, "t %s %d\n", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	for _, name := range th.Assets() {
		data, err := th.Asset(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "a %s %d\n", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// pathKey stands for a source file's path in the manifest.
func pathKey(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:12])
}

// keyed returns fingerprints keyed by pathKey.
func keyed(fp map[string]source) map[string]source {
	out := make(map[string]source, len(fp))
	for p, s := range fp {
		out[pathKey(p)] = s
	}
	return out
}

// changedSources reports whether fp holds a file prev does not hold with
// the same content (prev nil: every file is new).
func changedSources(fp, prev map[string]source) bool {
	for p, s := range fp {
		if old, ok := prev[pathKey(p)]; !ok || old.Hash != s.Hash {
			return true
		}
	}
	return false
}

// fingerprint takes every source file's size and mtime (from the walk's
// stat) and hashes, in parallel, those whose size or mtime differ from
// prev (all of them when prev is nil) and whose hash kept does not know
// (the archive's, which read and hashed every changed file just before:
// its hash's first half is the one hashFile gives).
func fingerprint(a *archive.Archive, prev map[string]source, workers int, kept func(path string, size, mtime int64) (string, bool)) map[string]source {
	var files []fileStat
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			files = append(files, fileStat{s.Path, s.Info})
			for _, ag := range s.Agents {
				files = append(files, fileStat{ag.Path, ag.Info})
			}
		}
	}
	for _, ag := range a.Orphans {
		files = append(files, fileStat{ag.Path, ag.Info})
	}
	out := make(map[string]source, len(files))
	var todo []string
	for _, f := range files {
		st := f.info
		if st == nil {
			var err error
			if st, err = os.Stat(f.path); err != nil {
				out[f.path] = source{}
				continue
			}
		}
		src := source{Size: st.Size(), MTime: st.ModTime().UnixNano()}
		if old, ok := prev[pathKey(f.path)]; ok && old.Size == src.Size && old.MTime == src.MTime && old.Hash != "" {
			src.Hash = old.Hash
		} else if h, ok := kept(f.path, src.Size, src.MTime); ok && len(h) == 64 {
			src.Hash = h[:32]
		} else {
			todo = append(todo, f.path)
		}
		out[f.path] = src
	}
	if len(todo) == 0 {
		return out
	}
	var mu sync.Mutex
	jobs := make(chan string)
	var wg sync.WaitGroup
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for w := 0; w < min(workers, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				h := hashFile(p)
				mu.Lock()
				src := out[p]
				src.Hash = h
				out[p] = src
				mu.Unlock()
			}
		}()
	}
	for _, p := range todo {
		jobs <- p
	}
	close(jobs)
	wg.Wait()
	return out
}

// fileStat is a source file and its stat from the walk (nil: stat it).
type fileStat struct {
	path string
	info fs.FileInfo
}

func hashFile(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	bp := chunkBuffers.Get().(*[]byte)
	defer chunkBuffers.Put(bp)
	// struct{ io.Reader } hides the file's WriteTo, which would copy
	// through a buffer of its own.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *bp); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// chunkBuffers are the buffers files are read through a chunk at a time
// (hashFile, sameContent), reused: a new one per file (a MB, zeroed, for
// hashing) was the largest allocation of a cold build.
var chunkBuffers = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// keyer builds unit keys.
type keyer struct {
	hist    *historyIndex // the repository's commits and checkpoints (--git)
	options string
	fp      map[string]source
	history map[string]string // what --git's History says of each session (gitsrc.History.SessionDigests)
}

func (k keyer) agent(w io.Writer, ag *archive.AgentFile) {
	fmt.Fprintf(w, "agent %q %q %q %q %q %s\n", ag.Path, ag.ID, ag.Layout, ag.LinkedBy, ag.ParentID, k.fp[ag.Path].Hash)
	if ag.Meta != nil {
		fmt.Fprintf(w, "meta %q %q %q\n", ag.Meta.AgentType, ag.Meta.Description, ag.Meta.WorktreePath)
		fmt.Fprintf(w, "nest %q %q\n", ag.Meta.ParentAgentID, ag.WorkflowID)
	}
}

func (k keyer) project(w io.Writer, pp *projectPlan, page string) {
	fmt.Fprintf(w, "%s\npage %q slug %q project %q %q\n", k.options, page, pp.slug, pp.p.Path, pp.p.Name)
}

// session is the key of a session's unit: everything its pages are made
// from but the agent files its calls claim (see claims).
func (k keyer) session(pp *projectPlan, sp *sessionPlan) string {
	h := sha256.New()
	k.project(h, pp, sp.page)
	f := sp.file
	fmt.Fprintf(h, "session %q %q %q %s\n", f.Path, f.ID, f.SessionID, k.fp[f.Path].Hash)
	if d := k.history[f.SessionID]; d != "" {
		fmt.Fprintf(h, "history %s\n", d)
	}
	for _, ag := range f.Agents {
		k.agent(h, ag)
	}
	for _, n := range []*sessionPlan{sp.prev, sp.next} {
		if n != nil {
			fmt.Fprintf(h, "nav %q %d\n", n.page, n.file.FirstTime.UnixNano())
		} else {
			fmt.Fprintln(h, "nav -")
		}
	}
	k.continuationKey(h, sp)
	k.hist.key(h, f.ID, f.SessionID)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (k keyer) orphan(pp *projectPlan, page string, ag *archive.AgentFile) string {
	h := sha256.New()
	k.project(h, pp, page)
	k.agent(h, ag)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (k keyer) claims(files []*archive.AgentFile) string {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, ag := range files {
		k.agent(h, ag)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// journal records the files a build is about to write.
type journal struct {
	mu sync.Mutex
	f  *os.File
}

// openJournal starts the journal; it returns what an interrupted build's
// journal listed (nil when the last build completed).
func openJournal(state string) (*journal, []string, error) {
	p := filepath.Join(state, journalFile)
	var left []string
	if data, err := os.ReadFile(p); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				left = append(left, l)
			}
		}
		if left == nil {
			left = []string{}
		}
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, nil, err
	}
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		os.Remove(p) // a link: never append through it
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return &journal{f: f}, left, nil
}

// add records a file (a slash path from the site root) before it is
// written: one write, so a kill loses at most the line being written.
func (j *journal) add(rel string) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err := j.f.WriteString(rel + "\n")
	return err
}

// done removes the journal: the build completed.
func (j *journal) done() error {
	if j == nil {
		return nil
	}
	j.f.Close()
	return os.Remove(j.f.Name())
}

func (j *journal) close() {
	if j != nil {
		j.f.Close()
	}
}
