// Package gemini reads Gemini CLI's chat recordings and turns them into
// the records of Claude Code's transcripts that build/session reads.
//
// Where Gemini CLI keeps them (google-gemini/gemini-cli,
// packages/core/src/config/storage.ts, projectRegistry.ts and
// services/chatRecordingService.ts): ~/.gemini/tmp/<project>/chats/
// session-<YYYY-MM-DDTHH-MM>-<first 8 of the session id>.jsonl (the
// older form is one JSON object, .json), sub-agents in
// chats/<parent session id>/<session id>.jsonl. <project> is
// sha256(project root) in older versions, a short slug registered in
// ~/.gemini/projects.json (with a .project_root file in its folder) in
// newer ones. GEMINI_CLI_HOME replaces the home folder ~/.gemini is in.
package gemini

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"ccsite/build/transcript"
)

// Name is the agent's label on pages.
const Name = "Gemini CLI"

// Default lists the folder Gemini CLI keeps its sessions in when it
// holds any (a tmp/ folder): .gemini in $GEMINI_CLI_HOME when it is set
// (Gemini CLI's homedir() reads it), else in home.
func Default(home string, getenv func(string) string) []string {
	if getenv != nil {
		if h := getenv("GEMINI_CLI_HOME"); h != "" {
			home = h
		}
	}
	if home == "" {
		return nil
	}
	dir := filepath.Join(home, ".gemini")
	if !isDir(filepath.Join(dir, "tmp")) {
		return nil
	}
	return []string{dir}
}

// Found is one session file.
type Found struct {
	Path     string    // the session file
	ID       string    // its session id
	Project  string    // the project's path, "" when unknown
	Start    time.Time // when it began
	Parent   string    // for a sub-agent: the parent session's id, else ""
	SubAgent bool
}

// Find lists the sessions under root: ~/.gemini, its tmp/, one project
// folder (tmp/<project>), its chats/ folder, or one session file. They
// come sorted by path.
func Find(root string) ([]Found, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		// One file: a Gemini CLI session when its content says so (a
		// file's agent is told by its content, not its name), or when it
		// sits where Gemini CLI keeps them.
		f, ok := found(root, newNamer(geminiHome(root)), geminiHome(root) == "")
		if !ok {
			return nil, nil
		}
		return []Found{f}, nil
	}
	var projects []string
	switch {
	case isDir(filepath.Join(root, "tmp")):
		projects, err = subdirs(filepath.Join(root, "tmp"))
	case isDir(filepath.Join(root, "chats")):
		projects = []string{root}
	case filepath.Base(root) == "chats":
		projects = []string{filepath.Dir(root)}
	default:
		projects, err = subdirs(root)
	}
	if err != nil {
		return nil, err
	}
	var out []Found
	namer := newNamer(geminiHome(filepath.Join(root, "chats", "x")))
	if len(projects) > 0 {
		namer = newNamer(geminiHome(filepath.Join(projects[0], "chats", "x")))
	}
	for _, p := range projects {
		files, err := sessionFiles(filepath.Join(p, "chats"))
		if err != nil {
			return nil, err
		}
		for _, path := range files {
			if f, ok := found(path, namer, false); ok {
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func subdirs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if p := filepath.Join(dir, e.Name()); isDir(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// sessionFiles lists chats/session-*.json(l) and the sub-agents'
// chats/<parent>/*.json(l). A .json that Gemini CLI moved to .jsonl when
// the session was resumed (the same name + "l", holding all of it) is
// left out.
func sessionFiles(chats string) ([]string, error) {
	ents, err := os.ReadDir(chats)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if p := filepath.Join(chats, e.Name()); isDir(p) {
			sub, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			out = append(out, sessionsIn(p, sub, func(string) bool { return true })...)
		}
	}
	out = append(out, sessionsIn(chats, ents, func(name string) bool { return strings.HasPrefix(name, "session-") })...)
	return out, nil
}

// sessionsIn lists the session files of one folder's entries.
func sessionsIn(dir string, ents []os.DirEntry, ok func(string) bool) []string {
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name()] = true
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !sessionExt(n) || !ok(n) || (strings.HasSuffix(n, ".json") && names[n+"l"]) {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	return out
}

func sessionExt(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
}

// geminiHome is the ~/.gemini a session file is under
// (<home>/tmp/<project>/chats/[<parent>/]file), "" when it is not.
func geminiHome(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "chats" {
		dir = filepath.Dir(dir)
	}
	if filepath.Base(dir) != "chats" {
		return ""
	}
	tmp := filepath.Dir(filepath.Dir(dir))
	if filepath.Base(tmp) != "tmp" {
		return ""
	}
	return filepath.Dir(tmp)
}

// projectDir is the tmp/<project> folder of a session file, "" when it is
// not in one.
func projectDir(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "chats" {
		dir = filepath.Dir(dir)
	}
	if filepath.Base(dir) != "chats" {
		return ""
	}
	return filepath.Dir(dir)
}

// found reads what Find reports of one file: its head for the id, start
// and kind, its folders for the project and the parent. With strict, a
// file is a session only when its metadata names a session and a project
// hash, as Gemini CLI's loader requires.
func found(path string, n *namer, strict bool) (Found, bool) {
	if !sessionExt(path) {
		return Found{}, false
	}
	meta := readMeta(path)
	if strict && (meta.SessionID == "" || meta.ProjectHash == "") {
		return Found{}, false
	}
	f := Found{Path: path, ID: meta.SessionID, Start: parseTime(meta.StartTime)}
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "chats" && filepath.Base(filepath.Dir(dir)) == "chats" {
		f.SubAgent, f.Parent = true, filepath.Base(dir)
	}
	if meta.Kind == "subagent" {
		f.SubAgent = true
	}
	if f.ID == "" {
		f.ID = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".jsonl"), ".json")
	}
	if f.Start.IsZero() {
		f.Start = nameTime(filepath.Base(path))
	}
	f.Project = n.project(path, meta.ProjectHash)
	return f, true
}

// nameTime is the minute a session's file name gives
// (session-2026-05-01T10-00-…, UTC), zero when it gives none.
func nameTime(name string) time.Time {
	const layout = "2006-01-02T15-04"
	rest, ok := strings.CutPrefix(name, "session-")
	if !ok || len(rest) < len(layout) {
		return time.Time{}
	}
	t, err := time.Parse(layout, rest[:len(layout)])
	if err != nil {
		return time.Time{}
	}
	return t
}

// readMeta reads a session's metadata: the first line of a .jsonl, the
// top-level members of a .json (its messages skipped).
func readMeta(path string) metadata {
	var m metadata
	fh, err := os.Open(path)
	if err != nil {
		return m
	}
	defer fh.Close()
	if strings.HasSuffix(path, ".jsonl") {
		br := bufio.NewReader(fh)
		line, _ := br.ReadBytes('\n')
		_ = transcript.Unmarshal(bytes.TrimSpace(line), &m)
		return m
	}
	// Members metadata lacks (messages) are skipped, not decoded.
	if data, err := os.ReadFile(path); err == nil {
		_ = transcript.Unmarshal(data, &m)
	}
	return m
}

// namer names projects: a slug through projects.json or the folder's
// .project_root, a hash folder through any path known to hash to it.
type namer struct {
	home   string
	bySlug map[string]string // folder name → project path
}

func newNamer(home string) *namer {
	n := &namer{home: home, bySlug: map[string]string{}}
	if home == "" {
		return n
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if data, err := os.ReadFile(filepath.Join(home, "projects.json")); err == nil && transcript.Unmarshal(data, &reg) == nil {
		for path, slug := range reg.Projects {
			n.bySlug[slug] = path
			n.bySlug[hashOf(path)] = path // an older folder of the same project
		}
	}
	return n
}

func hashOf(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:])
}

// project names the project of a session file: the registry, the
// folder's .project_root, a path in the session that hashes to the
// folder's name; "" when nothing names it.
func (n *namer) project(path, hash string) string { return n.projectOf(path, hash, nil) }

// projectOf is project with the file's bytes when they were read.
func (n *namer) projectOf(path, hash string, data []byte) string {
	dir := projectDir(path)
	if dir == "" {
		return pathFromContent(path, hash, data)
	}
	name := filepath.Base(dir)
	if p, ok := n.bySlug[name]; ok {
		return p
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".project_root")); err == nil {
		if p := strings.TrimSpace(string(data)); p != "" {
			n.bySlug[name] = p
			return p
		}
	}
	if hash == "" {
		hash = name
	}
	p := pathFromContent(path, hash, data)
	if p != "" {
		n.bySlug[name] = p
	}
	return p
}

// absPaths calls f with each absolute path as JSON strings hold them, in
// order: what the regular expression (?:[A-Za-z]:)?(?:/|\\\\)[^"\s:*?<>|]+
// matches (FindAll; TestAbsPathsAsRegexp), scanned by hand: the
// expression, with no literal to start from, ran its machine over every
// byte of every session and cost half the CPU of a cold build of Gemini
// CLI sessions. f returns false to stop.
func absPaths(data []byte, f func([]byte) bool) {
	end := 0 // where the last path ended
	for i := 0; i < len(data); {
		j := bytes.IndexAny(data[i:], `/\`)
		if j < 0 {
			return
		}
		j += i
		i = j + 1
		sep := 1
		if data[j] == '\\' {
			if j+1 >= len(data) || data[j+1] != '\\' {
				continue
			}
			sep = 2
		}
		k := j + sep
		for k < len(data) && !pathStop(data[k]) {
			k++
		}
		if k == j+sep {
			continue // a separator with nothing after it
		}
		start := j
		if j-2 >= end && data[j-1] == ':' && isLetter(data[j-2]) {
			start = j - 2
		}
		if !f(data[start:k]) {
			return
		}
		end, i = k, k
	}
}

// pathStop reports whether c ends a path: a quote, white space (RE2's
// \s) or one of :*?<>|.
func pathStop(c byte) bool {
	switch c {
	case '"', '\t', '\n', '\f', '\r', ' ', ':', '*', '?', '<', '>', '|':
		return true
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// pathFromContent finds the project root of a hash-named folder: the
// first ancestor of a path the session mentions whose sha256 is hash
// (Gemini CLI's getProjectHash), "" when none is.
func pathFromContent(path, hash string, data []byte) string {
	if len(hash) != 64 {
		return ""
	}
	if data == nil {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return ""
		}
	}
	return rootIn(data, hash)
}

// rootIn is pathFromContent on the bytes.
func rootIn(data []byte, hash string) string {
	tried := map[string]bool{}
	found := ""
	absPaths(data, func(m []byte) bool {
		found = rootOf(string(m), hash, tried)
		return found == ""
	})
	return found
}

// rootOf is m's first ancestor (or m) whose hash is hash, "" when none
// is; tried are the paths tried before, not tried again.
func rootOf(m, hash string, tried map[string]bool) string {
	p := strings.ReplaceAll(m, `\\`, `\`)
	for p != "" && !tried[p] {
		tried[p] = true
		if hashOf(p) == hash {
			return p
		}
		parent := filepath.Dir(p)
		if strings.Contains(p, `\`) && !strings.Contains(p, "/") {
			if i := strings.LastIndex(p, `\`); i > 0 {
				parent = p[:i]
			}
		}
		if parent == p || parent == "." {
			break
		}
		p = parent
	}
	return ""
}
