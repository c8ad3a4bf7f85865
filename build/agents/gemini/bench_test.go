package gemini_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"ccsite/build/agents/gemini"
)

// BenchmarkRead reads a .jsonl made by repeating the messages of the real
// sessions in $CCSITE_AGENTS/gemini (about 8 MB), ids made unique; its
// MB/s compare with transcript's reading of Claude Code's JSONL.
func BenchmarkRead(b *testing.B) {
	root := os.Getenv("CCSITE_AGENTS")
	if root == "" {
		b.Skip("CCSITE_AGENTS is not set")
	}
	files, _ := filepath.Glob(filepath.Join(root, "gemini", "tmp", "*", "chats", "*.json"))
	var msgs []map[string]any
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var conv struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(data, &conv); err != nil {
			b.Fatal(err)
		}
		msgs = append(msgs, conv.Messages...)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"sessionId":"bench","projectHash":"bench","startTime":"2026-01-01T00:00:00Z"}` + "\n")
	for r := 0; buf.Len() < 8<<20 && len(msgs) > 0; r++ {
		for _, src := range msgs {
			m := maps.Clone(src)
			id, _ := m["id"].(string)
			m["id"] = fmt.Sprintf("%s-%d", id, r)
			line, _ := json.Marshal(m)
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	path := filepath.Join(b.TempDir(), "session-2026-01-01T00-00-bench.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		if _, err := gemini.Read(path, nil); err != nil {
			b.Fatal(err)
		}
	}
}
