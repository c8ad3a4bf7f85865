// Package corpustest gives tests the real transcripts of the corpus
// ($CCSITE_CORPUS); a test that asks for them skips without it.
package corpustest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EachLine calls fn with every line of every transcript (*.jsonl) under
// $CCSITE_CORPUS, skipping the test when it is not set, and returns how
// many files it read. line is only valid during the call.
func EachLine(tb testing.TB, fn func(file string, line []byte)) (files int) {
	tb.Helper()
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		tb.Skip("CCSITE_CORPUS not set")
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		files++
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			fn(p, sc.Bytes())
		}
		return sc.Err()
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// EachObject calls fn with every JSON object (at any depth) of every line
// of the corpus that parses, skipping the test as EachLine does.
func EachObject(tb testing.TB, fn func(obj map[string]any)) {
	tb.Helper()
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			fn(v)
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	EachLine(tb, func(_ string, line []byte) {
		var v any
		if json.Unmarshal(line, &v) == nil {
			walk(v)
		}
	})
}
