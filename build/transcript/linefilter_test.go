package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seenLines is a FileFilter that records what it is given.
type seenLines struct {
	data  [][]byte // each file's data, as given to Lines
	lines []string // "n:line" of every line filtered
	done  int
}

func (s *seenLines) Lines(_ string, data []byte) LineFilter {
	s.data = append(s.data, data)
	return s
}

func (s *seenLines) Line(n int, line []byte) []byte {
	s.lines = append(s.lines, fmt.Sprintf("%d:%s", n, line))
	return line
}

func (s *seenLines) Done() { s.done++ }

// TestLineFilterNumbers: a LineFilter is given each line with the number
// of the "\n" that ends it (blank lines and lines too long counted, never
// filtered), the file's bytes when it was read whole and nil when streamed,
// and Done once at the end, the same way on every path a file is read by.
func TestLineFilterNumbers(t *testing.T) {
	long := `{"type":"user","x":"` + strings.Repeat("a", 300) + `"}`
	in := "{\"type\":\"a\"}\n\n  \n{\"type\":\"b\"}\r\n" + long + "\n{\"type\":\"c\"}\n{\"type\":\"d\"}"
	want := []string{`1:{"type":"a"}`, `4:{"type":"b"}`, `6:{"type":"c"}`, `7:{"type":"d"}`}
	const maxLine = 200
	check := func(how string, s *seenLines, whole bool) {
		t.Helper()
		if fmt.Sprint(s.lines) != fmt.Sprint(want) {
			t.Errorf("%s: lines %q, want %q", how, s.lines, want)
		}
		if s.done != 1 || len(s.data) != 1 {
			t.Fatalf("%s: Done %d times, Lines %d times", how, s.done, len(s.data))
		}
		if whole != (s.data[0] != nil) || whole && string(s.data[0]) != in {
			t.Errorf("%s: given data %q (read whole: %v)", how, s.data[0], whole)
		}
	}
	for _, copyLines := range []bool{false, true} {
		s := &seenLines{}
		decodeData([]byte(in), "f.jsonl", s, maxLine, copyLines)
		check(fmt.Sprintf("read whole (copyLines %v)", copyLines), s, true)
	}
	s := &seenLines{}
	if _, err := decode(strings.NewReader(in), "f.jsonl", s, nil, maxLine); err != nil {
		t.Fatal(err)
	}
	check("streamed", s, false)

	path := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	s = &seenLines{}
	if _, err := readFile(path, s, maxLine); err != nil {
		t.Fatal(err)
	}
	check("a file", s, true)
	// Lines(nil) filters nothing; Lines(f) gives f each line with the
	// file's name.
	if Lines(nil) != nil {
		t.Error("Lines(nil) is not nil")
	}
	var got []string
	f, err := readFile(path, Lines(func(file string, line []byte) []byte {
		got = append(got, file)
		return bytes.ReplaceAll(line, []byte(`"d"`), []byte(`"e"`))
	}), maxLine)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0] != path || f.Records[len(f.Records)-1].Type != "e" {
		t.Errorf("Lines(filter): files %q, last type %q", got, f.Records[len(f.Records)-1].Type)
	}
}
