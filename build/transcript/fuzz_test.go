package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode and DecodeLine. Whatever the
// input: no panic, one record or problem per non-empty line, every problem
// placed in its file at a real line, line numbers strictly increasing.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "records", "*.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tc := range damageTests {
		f.Add([]byte(tc.in))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.jsonl"
		file, err := Decode(bytes.NewReader(data), name)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if file.Path != name {
			t.Errorf("Path = %q, want %q", file.Path, name)
		}
		if file.Bytes != int64(len(data)) {
			t.Errorf("Bytes = %d, want %d", file.Bytes, len(data))
		}
		lines := bytes.Split(data, []byte("\n"))
		nonEmpty := 0
		for _, l := range lines {
			if len(bytes.TrimSpace(l)) > 0 {
				nonEmpty++
			}
		}
		if file.Lines != nonEmpty {
			t.Errorf("Lines = %d, want %d non-empty lines", file.Lines, nonEmpty)
		}
		if len(file.Records)+len(file.Problems) != file.Lines {
			t.Errorf("%d records + %d problems != %d lines", len(file.Records), len(file.Problems), file.Lines)
		}

		// Merge records and problems by line: strictly increasing, each on a
		// non-empty line, records holding their line as Raw.
		ri, pi, last := 0, 0, 0
		for ri < len(file.Records) || pi < len(file.Problems) {
			var line int
			if pi >= len(file.Problems) || (ri < len(file.Records) && file.Records[ri].Line < file.Problems[pi].Line) {
				r := file.Records[ri]
				ri++
				line = r.Line
				want := []byte(nil)
				if line >= 1 && line <= len(lines) {
					want = bytes.TrimSpace(lines[line-1])
					if line == 1 {
						want = bytes.TrimPrefix(want, []byte("\ufeff")) // a byte-order mark is dropped
					}
				}
				if want != nil && !bytes.Equal(r.Raw, want) {
					t.Errorf("record at line %d: Raw is not the line", line)
				}
			} else {
				p := file.Problems[pi]
				pi++
				line = p.Line
				if p.File != name {
					t.Errorf("problem at line %d: File = %q, want %q", line, p.File, name)
				}
				if p.Reason == "" {
					t.Errorf("problem at line %d has no reason", line)
				}
				for _, r := range p.Recovered {
					if r.Line != line {
						t.Errorf("problem at line %d: recovered record has Line %d", line, r.Line)
					}
				}
			}
			if line <= last {
				t.Fatalf("line %d comes after line %d", line, last)
			}
			if line > len(lines) || len(bytes.TrimSpace(lines[line-1])) == 0 {
				t.Fatalf("result at line %d, which is not a non-empty line of %d", line, len(lines))
			}
			last = line
		}

		// DecodeLine on the whole input as one line: exactly one of a record
		// or a problem, at the line number asked for.
		if len(data) == 0 {
			return
		}
		rec, prob := DecodeLine(data, name, 42)
		if prob != nil {
			if prob.File != name || prob.Line != 42 || prob.Reason == "" {
				t.Errorf("DecodeLine problem = %+v, want file %q, line 42 and a reason", prob, name)
			}
			return
		}
		if rec.Line != 42 || !bytes.Equal(rec.Raw, data) {
			t.Errorf("DecodeLine record: Line = %d, Raw of %d bytes; want 42 and the %d bytes given", rec.Line, len(rec.Raw), len(data))
		}
	})
}
