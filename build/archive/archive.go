// Package archive finds Claude Code transcripts on disk: projects, their
// session files and the sub-agent files of each session, in all three
// layouts. It reads only the first lines of each file.
package archive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"ccsite/build/agents"
	"ccsite/build/agents/claude"
	"ccsite/build/transcript"
)

// Layouts of sub-agent files.
const (
	LayoutInline    = "inline"    // 1.0.x: sidechain records inside the session file
	LayoutLegacy    = "legacy"    // 2.0.x: agent-<id>.jsonl beside the sessions
	LayoutSubagents = "subagents" // 2.1.x: <session>/subagents/agent-<id>.jsonl
)

// Archive is what Discover found.
type Archive struct {
	Roots    []string
	Projects []*Project
	// Orphans are sub-agent files whose parent session file was not found
	// by layout or sessionId; a parent may still claim one by its agent id
	// once parsed.
	Orphans []*AgentFile
	// Skipped lists the paths met but not used, with why: unreadable or
	// missing paths, broken links, link loops, files and folders reached
	// again through another path, things named .jsonl that are not regular
	// files. Sorted by Path, then Reason.
	Skipped []Skip
	Files   int
	Bytes   int64
}

// Skip is a path Discover could not use.
type Skip struct {
	// Path is the path as the walk reached it (absolute below a root; a
	// root as given).
	Path string `json:"path"`
	// Reason is why, in a few words: "does not exist", "permission
	// denied", "broken symlink to <target>", "symlink loop", "symlink loop:
	// leads back to <folder>", "same file as <path>", "same folder as
	// <path>", "not a regular file (named pipe)", "a directory named .jsonl"
	// (not a transcript, though its contents are still walked), "a link
	// out of the session's folder" (WhyLinkOut).
	Reason string `json:"reason"`
}

// Project is the set of sessions run in one directory.
type Project struct {
	// Path is the real working directory from the records' cwd; when no
	// record has one, the folder's path and FromFolder is set.
	Path       string
	Name       string
	FromFolder bool
	Folders    []string
	Sessions   []*SessionFile
}

// SessionFile is a main session transcript and its sub-agent files.
type SessionFile struct {
	Path   string
	ID     string
	Folder string
	Size   int64
	// Info is the file's stat when it was walked (size, modification
	// time): a build fingerprints and keeps the file by it, without a
	// stat of its own.
	Info      fs.FileInfo
	FirstCWD  string
	SessionID string
	// FirstTime is the first timestamp in the file's first lines: enough to
	// order sessions before they are parsed.
	FirstTime time.Time
	Agents    []*AgentFile
	// Extras are other files under the session's folder (workflow
	// journals, large tool outputs in tool-results/): listed, not parsed.
	Extras []string
	// FirstUUID is the uuid of the file's first record that has one: a
	// background fork re-writes its source's chain with the same uuids.
	FirstUUID string
	// ContinuedIn is the session id a continued-in record at the end of
	// the file names: the conversation went on in that session.
	ContinuedIn string
	// Skipped are the files under the session's folder left out, with
	// why: links out of the folder (WhyLinkOut), never read.
	Skipped []Skip
	// Agent is the key of the agent that wrote it (build/agents), "" for
	// Claude Code. ParentSession is a sub-agent's or fork's parent
	// session id (SubAgent tells which).
	Agent         string
	ParentSession string
	SubAgent      bool
}

// AgentFile is a sub-agent transcript.
type AgentFile struct {
	Path     string
	ID       string
	Layout   string
	Folder   string
	Size     int64
	Info     fs.FileInfo // as SessionFile's
	FirstCWD string
	// FirstTime is the first timestamp in the file's first lines.
	FirstTime time.Time
	// ParentID is the parent session id the layout or the records name.
	ParentID string
	// LinkedBy says how the parent was found: subagents-dir, sessionId.
	LinkedBy string
	Meta     *Meta
	// MetaInfo is the stat of the agent's .meta.json (nil: none, or not a
	// regular file), whether or not Meta could be read from it.
	MetaInfo fs.FileInfo
	// WorkflowID names the workflow of an agent under
	// <session>/subagents/workflows/<workflow-id>/.
	WorkflowID string
}

// Meta is an agent-<id>.meta.json sidecar.
type Meta struct {
	AgentType    string `json:"agentType"`
	Description  string `json:"description"`
	WorktreePath string `json:"worktreePath"`
	// ParentAgentID names the agent that started this one (depth ≥ 2).
	ParentAgentID       string `json:"parentAgentId"`
	WorktreeBranch      string `json:"worktreeBranch"`
	SpawnedWithWorktree bool   `json:"spawnedWithWorktree"`
}

// DefaultRoots returns $CLAUDE_CONFIG_DIR/projects for each entry of that
// comma-separated variable, else ~/.claude/projects and
// ~/.config/claude/projects; only those that exist.
func DefaultRoots(getenv func(string) string, home string) []string {
	return claude.Default(home, getenv)
}

// AllDefaultRoots returns every agent's folders that exist (build/agents),
// Claude Code's first; only the agents of only when it is not nil.
func AllDefaultRoots(getenv func(string) string, home string, only map[string]bool) []string {
	var out []string
	for _, ag := range agents.All {
		if only == nil || only[ag.Key] {
			out = append(out, ag.Default(home, getenv)...)
		}
	}
	return out
}

// ErrNothing is returned when the paths hold no transcript at all.
var ErrNothing = errors.New("no transcripts found")

// Discover walks paths (folders, walked recursively, or .jsonl files) and
// groups what it finds into projects. Symbolic links are followed (the
// roots, folders and files), with loop protection; a file or folder reached
// again through another path is used once, under the first path the walk
// (in lexical order, root by root) met it by. Paths keep the names they were
// reached by, not their link targets. A session's folder is the exception:
// nothing under it is read through a link that leads out of it (confine).
// Everything not used is listed in Skipped with why; unreadable entries are
// Skipped, not fatal; the error is ErrNothing (wrapped) when no transcript
// was found.
func Discover(ctx context.Context, paths []string) (*Archive, error) {
	return DiscoverCached(ctx, paths, nil)
}

// DiscoverCached is Discover reading the heads and tails of files unchanged
// since c was filled from c (nil: none).
func DiscoverCached(ctx context.Context, paths []string, c *PeekCache) (*Archive, error) {
	return DiscoverAgents(ctx, paths, c, nil)
}

// DiscoverAgents is DiscoverCached finding only the sessions of the agents
// only names by key (build/agents: "claude", "codex"…); nil: every agent.
func DiscoverAgents(ctx context.Context, paths []string, c *PeekCache, only map[string]bool) (*Archive, error) {
	a := &Archive{Roots: paths}
	w := &walker{ctx: ctx, a: a, files: map[string]string{}, dirs: map[string]string{}, realOf: map[string]string{}}
	others := w.others(paths, only)
	for _, root := range paths {
		if only != nil && !only["claude"] {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := w.root(root); err != nil {
			return nil, err
		}
	}
	skipsIn := w.confine()
	sortSkips(a)
	sessions, subs := w.sessions, w.agents
	if len(sessions) == 0 && len(subs) == 0 && len(others) == 0 {
		return a, fmt.Errorf("%w in %s", ErrNothing, strings.Join(paths, ", "))
	}
	for _, s := range sessions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pk := c.peek(s.Path, s.Info, true)
		s.FirstCWD, s.SessionID, s.FirstTime, s.FirstUUID = pk.cwd, pk.sessionID, pk.time, pk.uuid
		s.ContinuedIn = pk.continuedIn
		s.ID = sessionFileID(s.Path, pk.sessionID)
	}
	for _, ag := range subs {
		pk := c.peek(ag.Path, ag.Info, false)
		ag.FirstCWD, ag.FirstTime = pk.cwd, pk.time
		if ag.ParentID == "" {
			ag.ParentID = pk.sessionID
		}
	}
	if len(w.owned) > 0 {
		kept := sessions[:0]
		for _, s := range sessions {
			if !notClaude(s, w.owned) {
				kept = append(kept, s)
			}
		}
		sessions = kept
	}
	sessions = append(sessions, others...)
	uniqueIDs(sessions)
	attachAgents(a, sessions, subs)
	attachExtras(sessions, w.extras)
	for _, s := range sessions {
		s.Skipped = skipsIn[strings.TrimSuffix(s.Path, ".jsonl")]
	}
	a.Projects = group(sessions)
	return a, nil
}

// uniqueIDs makes session ids unique across the archive: pages and links
// are named by them. A copy of a session under another file name carries the
// same sessionId; the file whose stem is the id keeps it, the others take
// their own file stem, numbered when that is taken too.
func uniqueIDs(sessions []*SessionFile) {
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].Path < sessions[j].Path })
	owner := map[string]*SessionFile{}
	for _, s := range sessions {
		if stem(s.Path) == s.ID {
			if owner[s.ID] == nil {
				owner[s.ID] = s
			}
		}
	}
	for _, s := range sessions {
		if owner[s.ID] == nil {
			owner[s.ID] = s
		}
	}
	taken := map[string]bool{}
	for id := range owner {
		taken[id] = true
	}
	for _, s := range sessions {
		if owner[s.ID] == s {
			continue
		}
		id := stem(s.Path)
		for n := 2; taken[id]; n++ {
			id = fmt.Sprintf("%s-%d", stem(s.Path), n)
		}
		taken[id] = true
		s.ID = id
	}
}

func stem(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

// inSessionTree reports a path under a "subagents" or "workflows" folder.
func inSessionTree(p string) bool {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(p)), "/") {
		if part == "subagents" || part == "workflows" {
			return true
		}
	}
	return false
}

// classifyAgent recognises agent-<id>.jsonl files and their layout.
func classifyAgent(path string, st fs.FileInfo) *AgentFile {
	base := filepath.Base(path)
	id, ok := strings.CutPrefix(strings.TrimSuffix(base, ".jsonl"), "agent-")
	if !ok || id == "" {
		return nil
	}
	ag := &AgentFile{Path: path, ID: id, Layout: LayoutLegacy, Folder: filepath.Dir(path), Size: st.Size(), Info: st}
	// <folder>/<session>/subagents/[workflows/<wf>/]agent-<id>.jsonl
	dir := filepath.Dir(path)
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(filepath.Dir(d)) == "workflows" && ag.WorkflowID == "" {
			ag.WorkflowID = filepath.Base(d)
		}
		if filepath.Base(d) == "subagents" {
			sessDir := filepath.Dir(d)
			ag.Layout = LayoutSubagents
			ag.ParentID = filepath.Base(sessDir)
			ag.LinkedBy = "subagents-dir"
			ag.Folder = filepath.Dir(sessDir)
			break
		}
	}
	// Its .meta.json is read once the walk is done (walker.confine).
	return ag
}

// readMeta reads an agent's .meta.json: nil when there is none or it does
// not parse; st is its stat, nil when it is missing or not a regular file.
func readMeta(path string) (m *Meta, st fs.FileInfo) {
	// Never open a named pipe or a device: reading it could block.
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, st
	}
	m = new(Meta)
	if transcript.Unmarshal(b, m) != nil {
		return nil, st
	}
	return m, st
}

// attachAgents gives each agent file to its parent session: by the
// subagents folder, else by the sessionId its records carry (same folder
// first, then anywhere when unique). The rest are orphans.
func attachAgents(a *Archive, sessions []*SessionFile, agents []*AgentFile) {
	type key struct{ folder, id string }
	byFolder := map[key]*SessionFile{}
	byID := map[string][]*SessionFile{}
	for _, s := range sessions {
		for _, id := range []string{s.ID, s.SessionID} {
			if id == "" {
				continue
			}
			k := key{s.Folder, id}
			if byFolder[k] == nil {
				byFolder[k] = s
			}
			if len(byID[id]) == 0 || byID[id][len(byID[id])-1] != s {
				byID[id] = append(byID[id], s)
			}
		}
	}
	for _, ag := range agents {
		var parent *SessionFile
		if ag.ParentID != "" {
			parent = byFolder[key{ag.Folder, ag.ParentID}]
			if parent == nil && len(byID[ag.ParentID]) == 1 {
				parent = byID[ag.ParentID][0]
			}
		}
		if parent == nil {
			a.Orphans = append(a.Orphans, ag)
			continue
		}
		if ag.LinkedBy == "" {
			ag.LinkedBy = "sessionId"
		}
		parent.Agents = append(parent.Agents, ag)
	}
	for _, s := range sessions {
		sort.Slice(s.Agents, func(i, j int) bool { return s.Agents[i].Path < s.Agents[j].Path })
	}
	sort.Slice(a.Orphans, func(i, j int) bool { return a.Orphans[i].Path < a.Orphans[j].Path })
}

func attachExtras(sessions []*SessionFile, extras []string) {
	byDir := map[string]*SessionFile{}
	for _, s := range sessions {
		byDir[strings.TrimSuffix(s.Path, ".jsonl")] = s
	}
	for _, e := range extras {
		for d := filepath.Dir(e); d != filepath.Dir(d); d = filepath.Dir(d) {
			if s := byDir[d]; s != nil {
				s.Extras = append(s.Extras, e)
				break
			}
		}
	}
}

// group assigns sessions to projects. A session whose first cwd encodes to
// its folder's name (as Claude Code names folders) belongs to that cwd's
// project; the other sessions of such a folder (started in a subfolder, say)
// to the folder's commonest such cwd; in a folder no cwd names, each session
// goes to its own first cwd, and sessions with no cwd to their folder.
func group(sessions []*SessionFile) []*Project {
	byFolder := map[string][]*SessionFile{}
	var folders []string
	for _, s := range sessions {
		if _, ok := byFolder[s.Folder]; !ok {
			folders = append(folders, s.Folder)
		}
		byFolder[s.Folder] = append(byFolder[s.Folder], s)
	}
	projects := map[string]*Project{}
	get := func(path string, fromFolder bool, folder string) *Project {
		p := projects[path]
		if p == nil {
			p = &Project{Path: path, Name: ShortName(path), FromFolder: fromFolder}
			projects[path] = p
		}
		if len(p.Folders) == 0 || p.Folders[len(p.Folders)-1] != folder {
			if !containsStr(p.Folders, folder) {
				p.Folders = append(p.Folders, folder)
			}
		}
		return p
	}
	for _, folder := range folders {
		ss := byFolder[folder]
		counts := map[string]int{}
		for _, s := range ss {
			if s.FirstCWD != "" && Slug(s.FirstCWD) == Slug(filepath.Base(folder)) {
				counts[s.FirstCWD]++
			}
		}
		folderPath := ""
		for c, n := range counts {
			if folderPath == "" || n > counts[folderPath] || n == counts[folderPath] && c < folderPath {
				folderPath = c
			}
		}
		for _, s := range ss {
			switch {
			case s.FirstCWD != "" && Slug(s.FirstCWD) == Slug(filepath.Base(folder)):
				// Its own cwd names the folder: the truth, even when the
				// lossy encoding maps another path there too.
				p := get(s.FirstCWD, false, folder)
				p.Sessions = append(p.Sessions, s)
			case folderPath != "":
				p := get(folderPath, false, folder)
				p.Sessions = append(p.Sessions, s)
			case s.FirstCWD != "":
				p := get(s.FirstCWD, false, folder)
				p.Sessions = append(p.Sessions, s)
			default:
				p := get(folder, true, folder)
				p.Sessions = append(p.Sessions, s)
			}
		}
	}
	out := make([]*Project, 0, len(projects))
	for _, p := range projects {
		sort.Slice(p.Sessions, func(i, j int) bool { return p.Sessions[i].Path < p.Sessions[j].Path })
		sort.Strings(p.Folders)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func containsStr(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Slug encodes a path the way Claude Code names project folders: every
// character other than an ASCII letter or digit becomes "-" (older versions
// replaced only / \ : and ., which this also matches).
func Slug(path string) string {
	b := []byte(path)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	return string(b)
}

// ShortName is a project path's last element (either slash style), with
// its parent when the last element alone says little (".worktrees/2").
func ShortName(path string) string {
	p := strings.TrimRight(strings.ReplaceAll(path, `\`, "/"), "/")
	if p == "" {
		return path
	}
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if len(parts) >= 2 && parts[len(parts)-2] != "" && (len(last) <= 2 || strings.Trim(last, "0123456789") == "") {
		return parts[len(parts)-2] + "/" + last
	}
	return last
}

// sessionFileID is the file stem when it looks like a uuid, else the first
// sessionId of its records when it is a plain name (PlainName: it names
// pages and the session's file-history folder), else the stem.
func sessionFileID(path, sessionID string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(stem) == 36 && strings.Count(stem, "-") == 4 || !PlainName(sessionID) {
		return stem
	}
	return sessionID
}

type peeked struct {
	cwd, sessionID, uuid string
	time                 time.Time
	continuedIn          string // see continuedIn
}

// peekReaders are peek's readers, 64 KB each: made once per goroutine,
// not once per file (thousands of files make hundreds of MB to clear).
var peekReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// peek reads the first lines of a transcript for its first cwd and
// sessionId: at most 200 lines or 4 MB. With size >= 0 (the file's size
// when walked), it also reads the session's continued-in record from the
// file's end, through the same open file.
func peek(path string, size int64) peeked {
	var pk peeked
	f, err := os.Open(path)
	if err != nil {
		return pk
	}
	defer f.Close()
	if size >= 0 {
		pk.continuedIn = continuedIn(f, size)
	}
	br := peekReaders.Get().(*bufio.Reader)
	br.Reset(f)
	defer peekReaders.Put(br)
	read := 0
	for n := 0; n < 200 && read < 4<<20; n++ {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull && read+len(line) < 4<<20 {
			// A long line: skip it, it is rarely the one with the envelope.
			read += len(line)
			line, err = br.ReadSlice('\n')
			line = nil
		}
		read += len(line)
		if len(line) > 0 {
			var env struct {
				CWD       string `json:"cwd"`
				SessionID string `json:"sessionId"`
				Timestamp string `json:"timestamp"`
				UUID      string `json:"uuid"`
			}
			if transcript.Unmarshal(line, &env) == nil {
				if pk.cwd == "" {
					pk.cwd = env.CWD
				}
				if pk.sessionID == "" {
					pk.sessionID = env.SessionID
				}
				if pk.uuid == "" {
					pk.uuid = env.UUID
				}
				if pk.time.IsZero() && env.Timestamp != "" {
					if t, err := time.Parse(time.RFC3339Nano, env.Timestamp); err == nil {
						pk.time = t.UTC()
					}
				}
			}
		}
		if pk.cwd != "" && pk.sessionID != "" && !pk.time.IsZero() && pk.uuid != "" || err != nil {
			break
		}
	}
	return pk
}
