package codex

import (
	"strconv"
	"strings"
)

// fileChange is one file of an apply_patch.
type fileChange struct {
	op     string // add, update, delete
	path   string
	moveTo string
	added  []string // add: the file's lines
	hunks  []edit   // update
}

type edit struct{ old, new []string }

// parsePatch reads Codex's patch format (*** Begin Patch, *** Add File:,
// *** Update File:, *** Move to:, @@, *** Delete File:, *** End Patch).
// Lines it does not know are left out; a patch of no file gives none.
func parsePatch(patch string) []fileChange {
	var out []fileChange
	var cur *fileChange
	var h *edit
	flush := func() {
		if cur != nil && h != nil && (len(h.old) > 0 || len(h.new) > 0) {
			cur.hunks = append(cur.hunks, *h)
		}
		h = nil
	}
	start := func(op, path string) {
		flush()
		out = append(out, fileChange{op: op, path: strings.TrimSpace(path)})
		cur = &out[len(out)-1]
	}
	for _, ln := range strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n") {
		switch {
		case strings.HasPrefix(ln, "*** Add File: "):
			start("add", ln[len("*** Add File: "):])
		case strings.HasPrefix(ln, "*** Update File: "):
			start("update", ln[len("*** Update File: "):])
		case strings.HasPrefix(ln, "*** Delete File: "):
			start("delete", ln[len("*** Delete File: "):])
		case strings.HasPrefix(ln, "*** Move to: ") && cur != nil:
			cur.moveTo = strings.TrimSpace(ln[len("*** Move to: "):])
		case strings.HasPrefix(ln, "*** "):
			// Begin/End Patch, End of File.
		case cur == nil:
		case cur.op == "add":
			if s, ok := strings.CutPrefix(ln, "+"); ok {
				cur.added = append(cur.added, s)
			}
		case cur.op == "update":
			if strings.HasPrefix(ln, "@@") {
				flush()
				continue
			}
			if h == nil {
				h = &edit{}
			}
			switch {
			case strings.HasPrefix(ln, "+"):
				h.new = append(h.new, ln[1:])
			case strings.HasPrefix(ln, "-"):
				h.old = append(h.old, ln[1:])
			case strings.HasPrefix(ln, " "):
				h.old = append(h.old, ln[1:])
				h.new = append(h.new, ln[1:])
			case ln == "":
				h.old = append(h.old, "")
				h.new = append(h.new, "")
			}
		}
	}
	flush()
	return out
}

// patchCall shows an apply_patch as one file card per file: an added file
// as a Write, an updated one as a MultiEdit of its hunks, a deleted one as
// a Delete.
func (c *converter) patchCall(l *line, id, patch string) {
	files := parsePatch(patch)
	if len(files) == 0 {
		c.calls[id] = callKind{ids: []string{id}}
		c.toolUse(l, id, "apply_patch", map[string]string{"patch": patch})
		return
	}
	k := callKind{}
	for i, f := range files {
		fid := id
		if len(files) > 1 {
			fid = id + "#" + strconv.Itoa(i+1)
		}
		k.ids = append(k.ids, fid)
		switch f.op {
		case "add":
			c.toolUse(l, fid, "Write", map[string]string{"file_path": f.path, "content": strings.Join(f.added, "\n") + "\n"})
		case "delete":
			c.toolUse(l, fid, "Delete", map[string]string{"file_path": f.path})
		default:
			edits := make([]map[string]string, 0, len(f.hunks))
			for _, h := range f.hunks {
				edits = append(edits, map[string]string{"old_string": trimBlank(h.old), "new_string": trimBlank(h.new)})
			}
			in := map[string]any{"file_path": f.path, "edits": edits}
			if f.moveTo != "" {
				in["new_path"] = f.moveTo
			}
			c.toolUse(l, fid, "MultiEdit", in)
		}
	}
	c.calls[id] = k
}

// trimBlank joins a hunk's lines without the blank lines a patch ends
// with.
func trimBlank(lines []string) string {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
