package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestLineOverLimit reads a line far over the limit (lowered to 1 MB here)
// between normal ones (line 3; line 2 is blank), and another at the end: it is one problem with its line number, the lines
// after it are still records, and it is streamed past, never held whole.
func TestLineOverLimit(t *testing.T) {
	const maxLine = 1 << 20
	const size = 16 << 20
	var in bytes.Buffer
	in.WriteString(lineU1 + "\n\n")
	in.WriteString(`{"type":"user","uuid":"huge","message":{"role":"user","content":"`)
	in.WriteString(strings.Repeat("x", size))
	in.WriteString(`"}}` + "\n")
	in.WriteString(lineS1 + "\n")
	in.WriteString(lineU1 + "\n")
	in.WriteString(`{"type":"user","uuid":"tail","content":"` + strings.Repeat("y", 2<<20) + `"}`) // long, no final newline
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(name string, read func() (*File, error)) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f, err := read()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("%s: %d MB allocated for a %d MB line", name, alloc>>20, size>>20)
		}
		checkFileInvariants(t, f, in.Bytes())
		var lines []int
		for _, r := range f.Records {
			lines = append(lines, r.Line)
		}
		eq(t, name+" record lines", fmt.Sprint(lines), "[1 4 5]")
		if len(f.Problems) != 2 || f.Problems[0].Line != 3 || f.Problems[1].Line != 6 ||
			!strings.Contains(f.Problems[0].Reason, "longer than the 1 MB limit") {
			t.Errorf("%s: problems %v, want lines 3 and 6 over the limit", name, f.Problems)
		} else if !strings.HasPrefix(f.Problems[0].Excerpt, `{"type":"user","uuid":"huge"`) || len(f.Problems[0].Excerpt) != excerptBytes {
			t.Errorf("%s: excerpt %q, want the line's first %d bytes", name, f.Problems[0].Excerpt, excerptBytes)
		}
		eq(t, name+" Lines", f.Lines, 5)
		eq(t, name+" Bytes", f.Bytes, int64(in.Len()))
	}
	check("ReadFile", func() (*File, error) { return readFile(path, nil, maxLine) })
	check("Decode", func() (*File, error) {
		return decode(io.MultiReader(bytes.NewReader(in.Bytes())), "long.jsonl", nil, nil, maxLine)
	})
}

// TestWholeMatchesStream: a file read whole (decodeData, the path of every
// file no longer than the longest line) decodes as the streaming reader
// decodes it: the damaged inputs, the fixtures, lines over a lowered
// limit, and with $CCSITE_CORPUS every transcript of the corpus.
func TestWholeMatchesStream(t *testing.T) {
	inputs := map[string][]byte{}
	for _, tc := range damageTests {
		inputs["damage/"+tc.name] = []byte(tc.in)
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "records", "*.jsonl"))
	if root := os.Getenv("CCSITE_CORPUS"); root != "" {
		corpus, _ := filepath.Glob(filepath.Join(root, "*", "*", "*.jsonl"))
		more, _ := filepath.Glob(filepath.Join(root, "*", "*", "*", "*", "*.jsonl"))
		fixtures = append(append(fixtures, corpus...), more...)
	}
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = data
	}
	long := lineU1 + "\n" + `{"type":"user","uuid":"big","x":"` + strings.Repeat("z", 3000) + `"}` + "\r\n\n" + lineS1
	inputs["long lines"] = []byte(long)
	inputs["long last line"] = []byte(lineU1 + "\n" + strings.Repeat("q", 5000))
	// Lines of 2,048 and 2,049 bytes with their "\n", at the lowered limit.
	edge := func(n int) string {
		return `{"type":"user","x":"` + strings.Repeat("e", n-len(`{"type":"user","x":""}`)-1) + `"}` + "\n"
	}
	inputs["at the limit"] = []byte(edge(2048) + edge(2049) + lineS1 + "\n" + edge(2048)[:2047])
	for name, data := range inputs {
		for _, maxLine := range []int{MaxLineBytes, 2048} {
			want, err := decode(bytes.NewReader(data), name, nil, nil, maxLine)
			if err != nil {
				t.Fatal(err)
			}
			for _, copyLines := range []bool{false, true} {
				buf := bytes.Clone(data)
				got := decodeData(buf, name, nil, maxLine, copyLines)
				if copyLines {
					clear(buf) // the kept buffer, reused for the next file
				}
				if len(got.Records) == 0 && want.Records == nil {
					got.Records = nil // the streamed file was given no line count
				}
				if !reflect.DeepEqual(want, got) {
					t.Errorf("%s (limit %d, copies %v): read whole: %d records, %d problems, %d lines, %d bytes; streamed: %d, %d, %d, %d",
						name, maxLine, copyLines, len(got.Records), len(got.Problems), got.Lines, got.Bytes, len(want.Records), len(want.Problems), want.Lines, want.Bytes)
				}
			}
		}
	}
	t.Logf("%d inputs", len(inputs))
}
