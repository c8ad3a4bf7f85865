package markup

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"unicode"
	"unsafe"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Hunk is one hunk of a structuredPatch: exact line numbers and lines
// prefixed with ' ', '-' or '+'.
type Hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

// DiffStats counts added and removed lines.
type DiffStats struct{ Added, Removed int }

// Stats counts the hunks' added and removed lines.
func Stats(hunks []Hunk) DiffStats {
	var s DiffStats
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch {
			case strings.HasPrefix(l, "+"):
				s.Added++
			case strings.HasPrefix(l, "-"):
				s.Removed++
			}
		}
	}
	return s
}

// DiffStrings computes hunks (3 lines of context) turning old into new; the
// first line of old is line start (1 when unknown). A missing final newline
// is not shown as a change: edit strings rarely end with one.
func DiffStrings(old, new string, start int) []Hunk {
	if start < 1 {
		start = 1
	}
	if old != "" && !strings.HasSuffix(old, "\n") {
		old += "\n"
	}
	if new != "" && !strings.HasSuffix(new, "\n") {
		new += "\n"
	}
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	type row struct {
		op   byte
		text string
	}
	var rows []row
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for l := range strings.Lines(d.Text) {
			rows = append(rows, row{op, strings.TrimSuffix(l, "\n")})
		}
	}
	const ctx = 3
	var changes []int
	for i, r := range rows {
		if r.op != ' ' {
			changes = append(changes, i)
		}
	}
	var hunks []Hunk
	for k := 0; k < len(changes); {
		// A group of changes no more than 2*ctx equal lines apart.
		first, last := changes[k], changes[k]
		for k+1 < len(changes) && changes[k+1]-last-1 <= 2*ctx {
			k++
			last = changes[k]
		}
		k++
		lo, hi := max(first-ctx, 0), min(last+ctx+1, len(rows))
		h := Hunk{OldStart: start, NewStart: start}
		for _, r := range rows[:lo] {
			if r.op != '+' {
				h.OldStart++
			}
			if r.op != '-' {
				h.NewStart++
			}
		}
		for _, r := range rows[lo:hi] {
			h.Lines = append(h.Lines, string(r.op)+r.text)
			if r.op != '+' {
				h.OldLines++
			}
			if r.op != '-' {
				h.NewLines++
			}
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// Diff renders hunks as a unified diff table with old and new line numbers,
// changed words marked inside changed lines.
func Diff(hunks []Hunk) template.HTML {
	var b strings.Builder
	b.WriteString(`<div class="diff"><table>`)
	for _, h := range hunks {
		fmt.Fprintf(&b, `<tbody><tr class="hunk"><td class="ln"></td><td class="ln"></td><td class="dl">@@ -%d,%d +%d,%d @@</td></tr>`,
			h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		oldN, newN := h.OldStart, h.NewStart
		lines := h.Lines
		for i := 0; i < len(lines); {
			if !strings.HasPrefix(lines[i], "-") && !strings.HasPrefix(lines[i], "+") {
				l := lines[i]
				if strings.HasPrefix(l, `\`) {
					row(&b, "meta", "", "", textEscaper.Replace(l))
				} else {
					row(&b, "ctx", strconv.Itoa(oldN), strconv.Itoa(newN), textEscaper.Replace(strings.TrimPrefix(l, " ")))
					oldN++
					newN++
				}
				i++
				continue
			}
			// A change block: removed lines, then added lines.
			var dels, adds []string
			for i < len(lines) && strings.HasPrefix(lines[i], "-") {
				dels = append(dels, lines[i][1:])
				i++
			}
			for i < len(lines) && strings.HasPrefix(lines[i], "+") {
				adds = append(adds, lines[i][1:])
				i++
			}
			delHTML, addHTML := wordMarks(dels, adds)
			for k := range dels {
				row(&b, "del", strconv.Itoa(oldN), "", delHTML[k])
				oldN++
			}
			for k := range adds {
				row(&b, "add", "", strconv.Itoa(newN), addHTML[k])
				newN++
			}
		}
		b.WriteString(`</tbody>`)
	}
	b.WriteString(`</table></div>`)
	return template.HTML(b.String())
}

// Diff is the package's Diff of hunks, kept like a highlighted block (in
// memory and in the Store, by the hunks' hash): the word marks of every
// edit's changed lines were 7% of a warm --force build of the corpus tree.
func (h *Highlighter) Diff(hunks []Hunk) template.HTML {
	if h == nil {
		return Diff(hunks)
	}
	key := diffKey(hunks)
	if out, ok := h.lookup(key); ok {
		return template.HTML(out)
	}
	out := Diff(hunks)
	h.keep(key, string(out))
	return out
}

// diffKey hashes hunks, each number and line length first, under a kind of
// its own (no block's key: cacheKey hashes a start line before its kind).
func diffKey(hunks []Hunk) [32]byte {
	d := sha256.New()
	d.Write([]byte("\x00diff\x00"))
	var n [8]byte
	num := func(v int) {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		d.Write(n[:])
	}
	num(len(hunks))
	for _, hk := range hunks {
		num(hk.OldStart)
		num(hk.OldLines)
		num(hk.NewStart)
		num(hk.NewLines)
		num(len(hk.Lines))
		for _, l := range hk.Lines {
			num(len(l))
			d.Write(unsafe.Slice(unsafe.StringData(l), len(l))) // not kept by the hash
		}
	}
	var k [32]byte
	d.Sum(k[:0])
	return k
}

func row(b *strings.Builder, cls, oldN, newN, html string) {
	sign := map[string]string{"del": "-", "add": "+", "ctx": " ", "meta": ""}[cls]
	fmt.Fprintf(b, `<tr class="%s"><td class="ln">%s</td><td class="ln">%s</td><td class="dl"><span class="sign">%s</span>%s</td></tr>`,
		cls, oldN, newN, sign, html)
}

// wordMarks escapes paired removed/added lines, wrapping the changed words
// in <del>/<ins> when the pair is similar enough for that to help.
func wordMarks(dels, adds []string) (delHTML, addHTML []string) {
	delHTML = make([]string, len(dels))
	addHTML = make([]string, len(adds))
	for k := range dels {
		delHTML[k] = textEscaper.Replace(dels[k])
	}
	for k := range adds {
		addHTML[k] = textEscaper.Replace(adds[k])
	}
	n := min(len(dels), len(adds))
	dmp := diffmatchpatch.New()
	for k := 0; k < n; k++ {
		a, b := dels[k], adds[k]
		if len(a)+len(b) > 4000 {
			continue
		}
		diffs := wordDiff(dmp, a, b)
		same := 0
		for _, d := range diffs {
			if d.Type == diffmatchpatch.DiffEqual {
				same += len(d.Text)
			}
		}
		if same*2 < max(len(a), len(b)) {
			continue // mostly rewritten: marking every word helps nobody
		}
		var da, db strings.Builder
		for _, d := range diffs {
			t := textEscaper.Replace(d.Text)
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				da.WriteString(t)
				db.WriteString(t)
			case diffmatchpatch.DiffDelete:
				da.WriteString("<del>" + t + "</del>")
			case diffmatchpatch.DiffInsert:
				db.WriteString("<ins>" + t + "</ins>")
			}
		}
		delHTML[k], addHTML[k] = da.String(), db.String()
	}
	return delHTML, addHTML
}

// wordDiff diffs two lines word by word: each word (a run of letters,
// digits and underscores) or other character is one symbol, so marks never
// split a word.
func wordDiff(dmp *diffmatchpatch.DiffMatchPatch, a, b string) []diffmatchpatch.Diff {
	index := map[string]rune{}
	var words []string
	encode := func(s string) string {
		var out []rune
		for _, w := range splitWords(s) {
			r, ok := index[w]
			if !ok {
				r = rune(0xE000 + len(words)) // private use area
				if len(words) >= 0x1800 {
					return ""
				}
				index[w] = r
				words = append(words, w)
			}
			out = append(out, r)
		}
		return string(out)
	}
	ea, eb := encode(a), encode(b)
	if (ea == "" && a != "") || (eb == "" && b != "") {
		return dmp.DiffMain(a, b, false)
	}
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(ea, eb, false))
	for i := range diffs {
		var t strings.Builder
		for _, r := range diffs[i].Text {
			t.WriteString(words[r-0xE000])
		}
		diffs[i].Text = t.String()
	}
	return diffs
}

func splitWords(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		word := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		out = append(out, string(r))
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
