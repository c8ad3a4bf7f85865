package transcript

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCorpus decodes every *.jsonl file under $CCSITE_CORPUS (a tree of real
// transcripts with a MANIFEST.tsv) and checks the decoder against it: no
// panic, one record or problem per non-empty line, and exactly the number of
// bad lines the manifest records for each file.
func TestCorpus(t *testing.T) {
	root := os.Getenv("CCSITE_CORPUS")
	if root == "" {
		t.Skip("CCSITE_CORPUS is not set")
	}
	t.Parallel()

	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	if len(paths) == 0 {
		t.Fatalf("no *.jsonl files under %s", root)
	}

	problems := make(map[string]int, len(paths)) // by path relative to root
	var (
		totalBytes   int64
		totalLines   int
		totalRecords int
		totalProbs   int
		unknownKinds = map[string]int{}
		elapsed      time.Duration
	)
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("read %s: %v", rel, err)
		}
		start := time.Now()
		f, err := decodeNoPanic(data, rel)
		elapsed += time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		nonEmpty := countNonEmptyLines(data)
		if f.Lines != nonEmpty {
			t.Errorf("%s: Lines = %d, want %d non-empty lines", rel, f.Lines, nonEmpty)
		}
		if got := len(f.Records) + len(f.Problems); got != nonEmpty {
			t.Errorf("%s: %d records + %d problems = %d, want %d non-empty lines",
				rel, len(f.Records), len(f.Problems), got, nonEmpty)
		}
		if f.Bytes != int64(len(data)) {
			t.Errorf("%s: Bytes = %d, want %d", rel, f.Bytes, len(data))
		}
		for _, pr := range f.Problems {
			if pr.File != rel || pr.Line <= 0 {
				t.Errorf("%s: problem without place: %+v", rel, pr)
			}
		}
		for _, r := range f.Records {
			if !r.Known() {
				unknownKinds[r.KindLabel()]++
			}
		}
		problems[rel] = len(f.Problems)
		totalBytes += int64(len(data))
		totalLines += f.Lines
		totalRecords += len(f.Records)
		totalProbs += len(f.Problems)
	}

	secs := elapsed.Seconds()
	if secs == 0 {
		secs = 1e-9
	}
	t.Logf("decoded %d files, %.1f MB, %d lines (%d records, %d problems) in %v: %.1f MB/s",
		len(paths), float64(totalBytes)/1e6, totalLines, totalRecords, totalProbs,
		elapsed.Round(time.Millisecond), float64(totalBytes)/1e6/secs)
	if len(unknownKinds) > 0 {
		keys := make([]string, 0, len(unknownKinds))
		for k := range unknownKinds {
			keys = append(keys, fmt.Sprintf("%s=%d", k, unknownKinds[k]))
		}
		slices.Sort(keys)
		t.Logf("records of unknown kind: %s", strings.Join(keys, ", "))
	}

	rows := readManifest(t, filepath.Join(root, "MANIFEST.tsv"))
	checked := 0
	for _, row := range rows {
		if !strings.HasSuffix(row.path, ".jsonl") {
			continue // sidecar .json files are not transcripts
		}
		got, ok := problems[row.path]
		if !ok {
			t.Errorf("MANIFEST.tsv:%d: %s was not found under %s", row.line, row.path, root)
			continue
		}
		checked++
		if got != row.badLines {
			t.Errorf("%s: %d problems, want %d (MANIFEST.tsv:%d bad_lines)", row.path, got, row.badLines, row.line)
		}
	}
	if checked == 0 {
		t.Errorf("MANIFEST.tsv lists no *.jsonl file")
	}
	t.Logf("bad_lines checked for %d of %d manifest rows", checked, len(rows))
}

// decodeNoPanic decodes data, turning a panic into an error that names the file.
func decodeNoPanic(data []byte, name string) (f *File, err error) {
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, fmt.Errorf("panic: %v", v)
		}
	}()
	return Decode(bytes.NewReader(data), name)
}

// countNonEmptyLines counts the "\n"-separated lines of data that hold more
// than white space, independently of Decode.
func countNonEmptyLines(data []byte) int {
	n := 0
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

type manifestRow struct {
	line     int // in MANIFEST.tsv, 1-based
	path     string
	badLines int
}

// readManifest reads the path and bad_lines columns of a MANIFEST.tsv,
// finding them by their header names.
func readManifest(t *testing.T, name string) []manifestRow {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("open manifest: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	if !sc.Scan() {
		t.Fatalf("%s: no header row (%v)", name, sc.Err())
	}
	header := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
	pathCol, badCol := slices.Index(header, "path"), slices.Index(header, "bad_lines")
	if pathCol < 0 || badCol < 0 {
		t.Fatalf("%s: header lacks path or bad_lines: %q", name, header)
	}
	var rows []manifestRow
	for line := 2; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) <= max(pathCol, badCol) {
			t.Fatalf("%s:%d: %d columns, want more than %d", name, line, len(cols), max(pathCol, badCol))
		}
		bad, err := strconv.Atoi(cols[badCol])
		if err != nil {
			t.Fatalf("%s:%d: bad_lines %q: %v", name, line, cols[badCol], err)
		}
		rows = append(rows, manifestRow{line: line, path: cols[pathCol], badLines: bad})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rows
}
