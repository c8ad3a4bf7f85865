package render_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
)

// TestCorpusNotices renders every transcript of the real corpus
// ($CCSITE_CORPUS) that holds a background task's notification or another
// agent's message: each notification is one task line, none is a prompt
// (typed or queued), and no notification's tags are printed.
func TestCorpusNotices(t *testing.T) {
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, tag := range []string{"<task-notification>", "<teammate-message", "<agent-message"} {
			if bytes.Contains(data, []byte(tag)) {
				files = append(files, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lines, people := 0, 0
	for _, f := range files {
		s := loadSession(t, f)
		notices := 0
		for _, m := range s.Messages {
			notices += len(m.Notices)
			people += len(m.Teammates)
			if (m.Prompt || m.Kind == session.KindQueued) && strings.Contains(m.Text(), "<task-notification>") {
				t.Errorf("%s:%d: a task notification is a prompt", f, m.Line)
			}
		}
		conv := conversation(t, renderSession(t, s, "corpus"))
		if n := strings.Count(conv, `class="msg notification task-note`); n != notices {
			t.Errorf("%s: %d task lines, want %d", f, n, notices)
		}
		// What the notifications show (a tool's output may quote tags).
		var shown strings.Builder
		for _, part := range strings.Split(conv, `class="msg notification`)[1:] {
			end := strings.Index(part, `<div class="item-meta">`)
			if end < 0 {
				end = len(part)
			}
			shown.WriteString(part[:end])
		}
		for _, raw := range []string{`<span class="chip">task notification</span>`, "&lt;note&gt;", "&lt;usage&gt;", "&lt;summary&gt;", "&lt;task-notification&gt;", "idle_notification"} {
			if strings.Contains(shown.String(), raw) {
				t.Errorf("%s: a notification prints %q", f, raw)
			}
		}
		lines += notices
	}
	t.Logf("%d transcripts: %d task lines, %d messages of teammates and agents", len(files), lines, people)
}
