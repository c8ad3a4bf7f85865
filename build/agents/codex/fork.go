package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"ccsite/build/transcript"
)

// A fork's or sub-agent's rollout begins by re-writing its parent's
// history (token counts included), each line with a new timestamp. When
// the parent's rollout is in the same Codex home, those lines are left
// out, so the session shows (and counts) only its own part, with a note
// where the rest is.

// ownPart drops from lines those whose payload the parent's rollout
// holds, and says how many with a system note in their place.
func ownPart(f *transcript.File, lines []line, filter transcript.Filter) (own []line, dropped int, parent string) {
	if len(lines) == 0 || lines[0].env.Type != "session_meta" {
		return lines, 0, ""
	}
	var m metaLine
	if transcript.Unmarshal(lines[0].raw, &m) != nil {
		return lines, 0, ""
	}
	parent, _ = parentOf(m.Payload.ForkedFromID, m.Payload.ParentThreadID, m.Payload.Source)
	pp := parentPath(f.Path, parent)
	if pp == "" {
		return lines, 0, ""
	}
	pf := &transcript.File{Path: pp}
	data, err := readPlain(pp)
	if err != nil {
		return lines, 0, ""
	}
	theirs := map[string]bool{}
	for _, l := range decodeLines(pf, data, filter) {
		theirs[l.key()] = true
	}
	out := lines[:1:1]
	for _, l := range lines[1:] {
		if theirs[l.key()] {
			dropped++
			continue
		}
		out = append(out, l)
	}
	return out, dropped, parent
}

// parentPath finds the rollout of session id in the Codex home that holds
// path: rollouts are named rollout-<time>-<id>.jsonl(.zst).
func parentPath(path, id string) string {
	if id == "" {
		return ""
	}
	home := ""
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if b := filepath.Base(d); b == "sessions" || b == "archived_sessions" {
			home = filepath.Dir(d)
			break
		}
	}
	if home == "" {
		return ""
	}
	for _, pat := range []string{
		filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"),
		filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl.zst"),
		filepath.Join(home, "archived_sessions", "rollout-*-"+id+".jsonl"),
		filepath.Join(home, "archived_sessions", "rollout-*-"+id+".jsonl.zst"),
	} {
		if m, _ := filepath.Glob(pat); len(m) > 0 && m[0] != path {
			return m[0]
		}
	}
	return ""
}

// readPlain reads a rollout's bytes, decompressed: err is a read error,
// or the damage of a .zst, whose bytes before it are still given.
func readPlain(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decompress(path, data)
}

// decompress gives a .zst file's bytes decompressed, others as they are.
func decompress(path string, data []byte) ([]byte, error) {
	if !strings.HasSuffix(path, ".zst") {
		return data, nil
	}
	d, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	defer d.Close()
	plain, err := d.DecodeAll(data, nil)
	if err != nil {
		return plain, fmt.Errorf("zstd: %w", err)
	}
	return plain, nil
}
