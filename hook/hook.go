// Package hook makes the Claude Code hook that builds the site again after
// every session, and adds it to Claude Code's settings.
//
// The hook is a SessionEnd hook of type "command", in a settings file's
// "hooks" object:
//
//	{
//	  "hooks": {
//	    "SessionEnd": [
//	      {"hooks": [{"type": "command", "command": "nohup /usr/local/bin/ccsite build --quiet … >/dev/null 2>&1 </dev/null &"}]}
//	    ]
//	  }
//	}
//
// Decisions:
//
//   - No "matcher". SessionEnd's matcher filters by the reason the session
//     ended (clear, logout, prompt_input_exit, other, …); without one the
//     hook runs for every reason, and every ended session is worth a build.
//   - The build runs in the background (nohup … &), with its input and
//     output on /dev/null. Claude Code gives SessionEnd hooks a short budget
//     on exit (1.5 s shared by all of them unless a hook's "timeout" raises
//     it; CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS), then cancels them, and a
//     build of a large archive takes longer. In the background the hook
//     returns at once, Claude Code exits without waiting, and the build is
//     not cancelled: nohup keeps it from the hang-up sent when the terminal
//     closes. A hook's output goes to Claude Code, which has no use for it;
//     the build is run with --quiet and --from-hook: it writes how it
//     ended and the end of its output to hook.log in the site's state
//     folder, and the next ccsite build says when the last one failed.
//   - Two sessions ending together start two builds: the build locks its
//     output folder, and the second waits for the first (ccsite build
//     --wait, 5 minutes by default), then finds little left to do.
//   - Install adds the hook as a group of its own at the end of the
//     SessionEnd list, and adds it once: the same command already there is
//     left alone. A different ccsite command (other flags) is another hook,
//     and is kept.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Event is the Claude Code hook event the hook is for.
const Event = "SessionEnd"

// Command is the shell command line the hook runs: exe and args, each
// quoted for sh when needed, run in the background without input or output
// (see the package's doc).
func Command(exe string, args []string) string {
	var b strings.Builder
	b.WriteString("nohup ")
	b.WriteString(quoteFirst(exe))
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(Quote(a))
	}
	b.WriteString(" >/dev/null 2>&1 </dev/null &")
	return b.String()
}

// Quote quotes s for sh when it holds anything but letters, digits and
// @%+=:,./_- ; it uses single quotes, a ' in s becoming '\”.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteFirst quotes the command's name, where a word like a=b would be
// an assignment.
func quoteFirst(s string) string {
	if name, _, ok := strings.Cut(s, "="); ok && name != "" && strings.IndexFunc(name, notName) < 0 && (name[0] < '0' || name[0] > '9') {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return Quote(s)
}

// notName reports whether r cannot be in a shell variable's name.
func notName(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
}

func unsafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("@%+=:,./_-", r)
}

// handler is one hook of a matcher group.
type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// group is a matcher group: no matcher (every reason a session ends), its
// hooks.
type group struct {
	Hooks []handler `json:"hooks"`
}

// marshal is json.Marshal, indented or not, without HTML escapes: a
// command's > and & stay as they are.
func marshal(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func newGroup(command string) group {
	return group{Hooks: []handler{{Type: "command", Command: command}}}
}

// Snippet is the settings.json fragment adding the hook, indented JSON
// ending in a newline.
func Snippet(command string) ([]byte, error) {
	return marshal(map[string]any{"hooks": map[string]any{Event: []group{newGroup(command)}}}, true)
}

// Install adds the hook to the settings file at path (created, with its
// folder, when missing), keeping every other setting and hook as it is:
// the hook's text is inserted at the end of the SessionEnd list (the list
// and the "hooks" object made when missing), laid out like the lines
// around it, and every other byte of the file stays as it was. It writes a backup of the previous file first (path + ".bak", or
// ".bak.1", ".bak.2", … when that exists), then the new file atomically (a
// temporary file renamed over it; through a link, the file linked to, so
// the link stays). The new file keeps the old one's permissions; a new
// one is private (0600, in a 0700 folder).
//
// A link whose file does not exist yet is kept too: the file it points
// to is made.
//
// Installs into one file at once (two sessions ending together, a script)
// each add their hook: the file is read, changed and written under an
// exclusive lock (a lock file beside it, where the system has file
// locks), so none writes over another's change.
//
// It is idempotent: when the same command is already a SessionEnd hook,
// nothing is written (changed=false). backup is "" when no file existed or
// nothing changed. A file that is not a JSON object, or whose "hooks" or
// "hooks"."SessionEnd" is not what Claude Code reads, is an error, and is
// left untouched.
func Install(path, command string) (backup string, changed bool, err error) {
	target, err := linkTarget(path)
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", false, err
	}
	unlock, err := lock(target)
	if err != nil {
		return "", false, fmt.Errorf("lock %s: %w", path, err)
	}
	defer unlock()
	old, err := os.ReadFile(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	out, changed, err := add(old, command)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w; the file is left as it is", path, err)
	}
	if !changed {
		return "", false, nil
	}
	mode := fs.FileMode(0o600)
	if exists {
		if st, err := os.Stat(target); err == nil {
			mode = st.Mode().Perm()
		}
		if backup, err = writeBackup(path, old, mode); err != nil {
			return "", false, err
		}
	}
	if err := writeAtomic(target, out, mode); err != nil {
		return backup, false, err
	}
	return backup, true, nil
}

// maxLinks is how many links in a row linkTarget follows.
const maxLinks = 40

// linkTarget is the file path names: path, or when it is a link, the
// file at the end of its links, whether that exists or not (a relative
// link read from the folder the link is in).
func linkTarget(path string) (string, error) {
	p := path
	for range maxLinks {
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			// The link's folder as the system finds it, so a ".." in
			// dest leaves the folder a linked folder points to.
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return "", err
			}
			dest = filepath.Join(dir, dest)
		}
		p = dest
	}
	return "", fmt.Errorf("%s: more than %d links in a row (a loop?)", path, maxLinks)
}

// lock takes the exclusive lock of the file at path: the lock of a lock
// file beside it (flock, where the system has it), made for the purpose
// and removed by unlock. Whoever waited on a lock file that was removed
// meanwhile takes the next one.
func lock(path string) (unlock func(), err error) {
	name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			return nil, err
		}
		held, herr := f.Stat()
		now, nerr := os.Stat(name)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return func() {
				rerr := os.Remove(name) // before the lock goes: see above
				f.Close()               // which unlocks it
				if rerr != nil {
					os.Remove(name) // where an open file cannot be removed
				}
			}, nil
		}
		f.Close()
		if herr != nil {
			return nil, herr
		}
		if nerr != nil && !errors.Is(nerr, fs.ErrNotExist) {
			return nil, nerr
		}
	}
}

// writeBackup writes data to the first of path.bak, path.bak.1, … that
// does not exist.
func writeBackup(path string, data []byte, mode fs.FileMode) (string, error) {
	for n := 0; ; n++ {
		name := path + ".bak"
		if n > 0 {
			name += "." + strconv.Itoa(n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if serr := f.Sync(); err == nil {
			err = serr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// add returns the settings with the hook added, and whether that changed
// them.
func add(settings []byte, command string) ([]byte, bool, error) {
	var top object
	if len(bytes.TrimSpace(settings)) > 0 {
		if err := top.parse(settings); err != nil {
			return nil, false, syntax(settings, err, "settings")
		}
	}
	hooks := object{}
	if raw, ok := top.get("hooks"); ok && string(bytes.TrimSpace(raw)) != "null" {
		if err := hooks.parse(raw); err != nil {
			return nil, false, fmt.Errorf(`"hooks" is not an object of hook events (%v)`, err)
		}
	}
	var groups []json.RawMessage
	if raw, ok := hooks.get(Event); ok {
		if err := json.Unmarshal(raw, &groups); err != nil {
			tok, _ := json.NewDecoder(bytes.NewReader(raw)).Token()
			return nil, false, fmt.Errorf(`"hooks"."%s" is not a list of matcher groups: it is %s`, Event, kind(tok))
		}
	}
	for _, raw := range groups {
		var g group
		if json.Unmarshal(raw, &g) != nil {
			continue // not ours to judge
		}
		for _, h := range g.Hooks {
			if h.Type == "command" && h.Command == command {
				return settings, false, nil
			}
		}
	}
	// The same hook as installed before the build wrote hook.log (no
	// --from-hook): its command is brought up to date, not doubled.
	if older := strings.Replace(command, " --from-hook", "", 1); older != command {
		if out, ok := replaceCommand(settings, older, command); ok {
			return out, true, nil
		}
	}
	g, err := marshal(newGroup(command), false)
	if err != nil {
		return nil, false, err
	}
	out, err := insertHook(settings, bytes.TrimSpace(g))
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// syntax says where a JSON error is, by line and column.
func syntax(data []byte, err error, what string) error {
	var se *json.SyntaxError
	var off int64 = -1
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	if off < 0 {
		return fmt.Errorf("the %s are not a JSON object: %v", what, err)
	}
	off = min(off, int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Errorf("the %s are not valid JSON: %v (line %d, column %d)", what, err, line, col)
}

// object is a JSON object as its members in order, each value as it was
// written.
type object struct {
	keys []string
	vals []json.RawMessage
}

// parse reads a JSON object and nothing after it.
func (o *object) parse(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("a JSON object was expected, not %s", kind(tok))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("a key was expected, not %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.keys = append(o.keys, key)
		o.vals = append(o.vals, v)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return errors.New("more after the object")
		}
		return err
	}
	return nil
}

// kind names a JSON token's type for an error message.
func kind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// get is the value of the last member named key (as encoding/json reads
// it).
func (o *object) get(key string) (json.RawMessage, bool) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == key {
			return o.vals[i], true
		}
	}
	return nil, false
}

// set replaces the value of the last member named key, or adds one at the
// end.
func (o *object) set(key string, v json.RawMessage) {
	for i := len(o.keys) - 1; i >= 0; i-- {
		if o.keys[i] == key {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

// bytes writes the object compactly, values as they were.
func (o *object) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := marshal(k, false)
		b.Write(bytes.TrimSpace(key))
		b.WriteByte(':')
		b.Write(o.vals[i])
	}
	b.WriteByte('}')
	return b.Bytes()
}
