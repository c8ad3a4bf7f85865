package markup

import (
	"fmt"
	"html"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// numbered returns n lines "line 1\n" … "line n\n".
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d", i+1)
	}
	return out
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// apply applies hunks to old, checking that every context and removed
// line is where the hunk says; it returns the new text's lines.
func apply(t *testing.T, old []string, hunks []Hunk, start int) []string {
	t.Helper()
	var out []string
	next := 0 // index in old of the next line not yet copied
	for _, h := range hunks {
		at := h.OldStart - start
		if at < next || at > len(old) {
			t.Fatalf("hunk @@ -%d,%d +%d,%d @@ starts out of order or past the end", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		}
		out = append(out, old[next:at]...)
		if got := len(out) + start; got != h.NewStart {
			t.Errorf("hunk @@ -%d,%d +%d,%d @@: new text is at line %d there", h.OldStart, h.OldLines, h.NewStart, h.NewLines, got)
		}
		i := at
		var oldN, newN int
		for _, l := range h.Lines {
			op, body := l[0], l[1:]
			switch op {
			case ' ', '-':
				if i >= len(old) || old[i] != body {
					t.Fatalf("hunk @@ -%d +%d @@: line %d is %q in the old text, the hunk says %q", h.OldStart, h.NewStart, i+start, at1(old, i), body)
				}
				i++
				oldN++
				if op == ' ' {
					out = append(out, body)
					newN++
				}
			case '+':
				out = append(out, body)
				newN++
			default:
				t.Fatalf("line %q has no ' ', '-' or '+' prefix", l)
			}
		}
		if oldN != h.OldLines || newN != h.NewLines {
			t.Errorf("hunk @@ -%d,%d +%d,%d @@ holds %d old and %d new lines", h.OldStart, h.OldLines, h.NewStart, h.NewLines, oldN, newN)
		}
		next = i
	}
	return append(out, old[next:]...)
}

func at1(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(past the end)"
}

func TestDiffStringsOneChange(t *testing.T) {
	t.Parallel()
	old := numbered(20)
	nu := append([]string(nil), old...)
	nu[9] = "line ten" // line 10
	hunks := DiffStrings(joinLines(old), joinLines(nu), 100)
	want := []Hunk{{OldStart: 106, OldLines: 7, NewStart: 106, NewLines: 7, Lines: []string{
		" line 7", " line 8", " line 9", "-line 10", "+line ten", " line 11", " line 12", " line 13"}}}
	if !reflect.DeepEqual(hunks, want) {
		if len(hunks) == 1 && hunks[0].OldLines == 6 {
			t.Errorf("DiffStrings keeps 2 lines of context after a change, not 3:\n%+v\nwant\n%+v", hunks, want)
		}
		t.Errorf("DiffStrings =\n%+v\nwant (3 lines of context, numbered from 100)\n%+v", hunks, want)
	}
}

// trailingBug says whether hunks differ from want only by the known bug:
// one line of trailing context missing in each hunk that has some.
func trailingBug(hunks []Hunk, want [][4]int) bool {
	if len(hunks) != len(want) {
		return false
	}
	for i, h := range hunks {
		w := want[i]
		if h.OldStart != w[0] || h.NewStart != w[2] || (h.OldLines != w[1] && h.OldLines != w[1]-1) || w[1]-h.OldLines != w[3]-h.NewLines {
			return false
		}
	}
	return true
}

func TestDiffStringsHunks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		changes []int // 0-based lines of 40 to change
		want    [][4]int
	}{
		{"first line", []int{0}, [][4]int{{1, 4, 1, 4}}},
		{"last line", []int{39}, [][4]int{{37, 4, 37, 4}}},
		// Six equal lines between two changes: the contexts touch, one hunk.
		{"six apart", []int{10, 17}, [][4]int{{8, 14, 8, 14}}},
		// Seven: the contexts would leave a line out, two hunks.
		{"seven apart", []int{10, 18}, [][4]int{{8, 7, 8, 7}, {16, 7, 16, 7}}},
		{"far apart", []int{5, 30}, [][4]int{{3, 7, 3, 7}, {28, 7, 28, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old := numbered(40)
			nu := append([]string(nil), old...)
			for _, c := range tc.changes {
				nu[c] = "changed " + nu[c]
			}
			hunks := DiffStrings(joinLines(old), joinLines(nu), 1)
			var got [][4]int
			for _, h := range hunks {
				got = append(got, [4]int{h.OldStart, h.OldLines, h.NewStart, h.NewLines})
			}
			if after := apply(t, old, hunks, 1); !reflect.DeepEqual(after, nu) {
				t.Errorf("applying the hunks gives\n%q\nwant\n%q", after, nu)
			}
			if !reflect.DeepEqual(got, tc.want) {
				if trailingBug(hunks, tc.want) {
					t.Errorf("DiffStrings keeps 2 lines of context after a change, not 3: hunks %v, want %v", got, tc.want)
				}
				t.Errorf("hunks (oldStart, oldLines, newStart, newLines) = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDiffStringsInsertDelete(t *testing.T) {
	t.Parallel()
	old := numbered(10)
	nu := append(append(append([]string(nil), old[:4]...), "new a", "new b"), old[4:]...) // after line 4
	hunks := DiffStrings(joinLines(old), joinLines(nu), 1)
	want := []Hunk{{OldStart: 2, OldLines: 6, NewStart: 2, NewLines: 8, Lines: []string{
		" line 2", " line 3", " line 4", "+new a", "+new b", " line 5", " line 6", " line 7"}}}
	if st := Stats(hunks); st != (DiffStats{Added: 2}) {
		t.Errorf("Stats = %+v, want 2 added", st)
	}
	back := DiffStrings(joinLines(nu), joinLines(old), 1) // a deletion of the same lines
	if st := Stats(back); st != (DiffStats{Removed: 2}) {
		t.Errorf("deletion: Stats = %+v, want 2 removed", st)
	}
	if !reflect.DeepEqual(hunks, want) || len(back) != 1 || back[0].OldLines != 8 || back[0].NewLines != 6 {
		if trailingBug(hunks, [][4]int{{2, 6, 2, 8}}) {
			t.Errorf("DiffStrings keeps 2 lines of context after a change, not 3: %+v\nwant %+v", hunks, want)
		}
		t.Errorf("insertion: %+v\nwant %+v\ndeletion: %+v", hunks, want, back)
	}
}

// TestDiffStringsNoFinalNewline: Edit's strings rarely end in a newline;
// appending a line must not show the last old line as changed.
func TestDiffStringsNoFinalNewline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		old, new string
		want     []string
	}{
		{"a\nb", "a\nb\nc", []string{" a", " b", "+c"}},
		{"a\nb\nc", "a\nb", []string{" a", " b", "-c"}},
		{"x := 1", "x := 2", []string{"-x := 1", "+x := 2"}},
	} {
		hunks := DiffStrings(tc.old, tc.new, 1)
		var got []string
		for _, h := range hunks {
			got = append(got, h.Lines...)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DiffStrings(%q, %q) = %q, want %q: a last line without \"\\n\" differs from the same line with one", tc.old, tc.new, got, tc.want)
		}
	}
}

// TestDiffStringsRandom checks on random edits that the hunks are exact:
// they apply to the old text and give the new one.
func TestDiffStringsRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	shortTrail := ""
	for i := 0; i < 300; i++ {
		old := numbered(r.IntN(40))
		var nu []string
		for _, l := range old {
			switch r.IntN(8) {
			case 0: // delete
			case 1:
				nu = append(nu, l+" changed")
			case 2:
				nu = append(nu, l, fmt.Sprintf("inserted %d", r.IntN(5)))
			default:
				nu = append(nu, l)
			}
		}
		if r.IntN(3) == 0 {
			nu = append(nu, "tail")
		}
		start := 1 + r.IntN(50)
		hunks := DiffStrings(joinLines(old), joinLines(nu), start)
		if got := apply(t, old, hunks, start); !reflect.DeepEqual(got, nu) && !(len(got) == 0 && len(nu) == 0) {
			t.Fatalf("case %d: applying %+v to %q gives %q, want %q", i, hunks, old, got, nu)
		}
		for k, h := range hunks {
			// 3 context lines open and close a hunk, fewer only at the
			// start or end of the text.
			lead, trail := 0, 0
			for _, l := range h.Lines {
				if l[0] != ' ' {
					break
				}
				lead++
			}
			for j := len(h.Lines) - 1; j >= 0 && h.Lines[j][0] == ' '; j-- {
				trail++
			}
			if lead > 3 || trail > 3 || lead < 3 && h.OldStart != start {
				t.Fatalf("case %d hunk %d: %d leading and %d trailing context lines: %q", i, k, lead, trail, h.Lines)
			}
			if trail < 3 && h.OldStart+h.OldLines-start != len(old) && shortTrail == "" {
				shortTrail = fmt.Sprintf("case %d: %q → %q: hunk %+v ends with %d context lines before the end of the text", i, old, nu, h, trail)
			}
			if k > 0 {
				prev := hunks[k-1]
				if gap := h.OldStart - (prev.OldStart + prev.OldLines); gap <= 0 {
					t.Fatalf("case %d: hunks %d and %d overlap or touch (gap %d): they should be one", i, k-1, k, gap)
				}
			}
		}
	}
	if shortTrail != "" {
		t.Error("DiffStrings keeps 2 lines of context after a change, not 3: " + shortTrail)
	}
}

// diffRows parses Diff's table into (class, old number, new number, text, marked
// html) rows.
type diffRow struct {
	class, oldN, newN, text string
	html                    string // the line's cell, as written
}

var reRow = regexp.MustCompile(`<tr class="([a-z]+)"><td class="ln">([0-9]*)</td><td class="ln">([0-9]*)</td><td class="dl">(.*?)</td></tr>`)

func diffRows(s string) []diffRow {
	var out []diffRow
	for _, m := range reRow.FindAllStringSubmatch(s, -1) {
		if m[1] == "hunk" {
			continue
		}
		cell := m[4]
		cell = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(cell, `<span class="sign">-</span>`), `<span class="sign">+</span>`), `<span class="sign"> </span>`), `<span class="sign"></span>`)
		text := html.UnescapeString(reTag.ReplaceAllString(cell, ""))
		out = append(out, diffRow{m[1], m[2], m[3], text, cell})
	}
	return out
}

var reTag = regexp.MustCompile(`<[^>]*>`)

func TestDiffRender(t *testing.T) {
	t.Parallel()
	hunks := []Hunk{
		{OldStart: 18, OldLines: 4, NewStart: 20, NewLines: 4, Lines: []string{
			" func total() {",
			"-\treturn sum * 1.2 // <b>&amp;",
			"+\treturn sum * TAX_RATE // <b>&amp;",
			" }",
			`\ No newline at end of file`,
			" ",
		}},
		{OldStart: 40, OldLines: 2, NewStart: 42, NewLines: 1, Lines: []string{
			"-x := computeSomething()",
			"-y := 2",
			"+completely different text here, nothing alike at all",
		}},
	}
	out := string(Diff(hunks))
	if n := strings.Count(out, `<tr class="hunk">`); n != 2 {
		t.Errorf("%d hunk headers, want 2", n)
	}
	for _, h := range []string{"@@ -18,4 +20,4 @@", "@@ -40,2 +42,1 @@"} {
		if !strings.Contains(out, h) {
			t.Errorf("no hunk header %q", h)
		}
	}
	want := []diffRow{
		{class: "ctx", oldN: "18", newN: "20", text: "func total() {"},
		{class: "del", oldN: "19", text: "\treturn sum * 1.2 // <b>&amp;"},
		{class: "add", newN: "21", text: "\treturn sum * TAX_RATE // <b>&amp;"},
		{class: "ctx", oldN: "20", newN: "22", text: "}"},
		{class: "meta", text: `\ No newline at end of file`},
		{class: "ctx", oldN: "21", newN: "23", text: ""},
		{class: "del", oldN: "40", text: "x := computeSomething()"},
		{class: "del", oldN: "41", text: "y := 2"},
		{class: "add", newN: "42", text: "completely different text here, nothing alike at all"},
	}
	got := diffRows(out)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		g := got[i]
		g.html = ""
		if g != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, g, want[i])
		}
	}
	// Similar lines: only the changed words are marked.
	if !strings.Contains(got[1].html, "<del>1.2</del>") || !strings.Contains(got[2].html, "<ins>TAX_RATE</ins>") {
		t.Errorf("changed words not marked:\n%s\n%s", got[1].html, got[2].html)
	}
	if strings.Contains(got[1].html, "<del>\treturn") || strings.Contains(got[2].html, "<ins>\treturn") {
		t.Errorf("unchanged words marked:\n%s\n%s", got[1].html, got[2].html)
	}
	// Lines rewritten from scratch: no marks at all.
	for _, r := range got[6:] {
		if strings.Contains(r.html, "<del>") || strings.Contains(r.html, "<ins>") {
			t.Errorf("dissimilar line marked: %s", r.html)
		}
	}
	// Escaped, once.
	if !strings.Contains(out, "// &lt;b&gt;&amp;amp;") || strings.Contains(out, "<b>") {
		t.Errorf("diff text not escaped exactly once:\n%s", out)
	}
}

// TestDiffWordMarks: marks cover whole words, as the reader thinks of the
// change ("sum" became "subtotal"), not the letters that happen to differ.
func TestDiffWordMarks(t *testing.T) {
	t.Parallel()
	out := string(Diff([]Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []string{
		"-  const sum = items.reduce(add, 0);",
		"+  const subtotal = items.reduce(add, 0);",
	}}}))
	rows := diffRows(out)
	if len(rows) != 2 {
		t.Fatalf("%d rows:\n%s", len(rows), out)
	}
	if !strings.Contains(rows[0].html, "<del>sum</del>") || !strings.Contains(rows[1].html, "<ins>subtotal</ins>") {
		t.Errorf("word marks split words: %q / %q, want <del>sum</del> / <ins>subtotal</ins>", rows[0].html, rows[1].html)
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	st := Stats([]Hunk{{Lines: []string{" a", "-b", "+c", "+d"}}, {Lines: []string{"-e", `\ No newline at end of file`}}})
	if st != (DiffStats{Added: 2, Removed: 2}) {
		t.Errorf("Stats = %+v, want 2 added, 2 removed", st)
	}
}
