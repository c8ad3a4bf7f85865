package build

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"ccsite/build/redact"
)

// TestAgentsCodexNoLeak: a secret in a Codex prompt, a command's output
// and a patch reaches no byte of the site, its state or the cache.
func TestAgentsCodexNoLeak(t *testing.T) {
	secret := "ghp_" + "Q8v3LmZt2XwR9kJ4nB7cY1pD6sF0hG5aE2uT"
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "02")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	add := func(typ string, p map[string]any) {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-03-02T10:00:00.000Z", "type": typ, "payload": p})
		lines = append(lines, b)
	}
	args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", "gh auth status"}})
	out, _ := json.Marshal(map[string]any{"output": "token: " + secret + "\n", "metadata": map[string]any{"exit_code": 0}})
	add("session_meta", map[string]any{"id": "0199bbbb-1111-7222-8333-444455556666", "cwd": "/home/ana/vault", "cli_version": "0.60.0"})
	add("turn_context", map[string]any{"cwd": "/home/ana/vault", "model": "gpt-5-codex"})
	add("event_msg", map[string]any{"type": "user_message", "message": "use my token " + secret + " to log in"})
	add("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "use my token " + secret + " to log in"}}})
	add("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": "c1"})
	add("response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": string(out)})
	add("response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2", "input": "*** Begin Patch\n*** Add File: .env\n+GH_TOKEN=" + secret + "\n*** End Patch"})
	add("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Logged in with " + secret}}})
	if err := os.WriteFile(filepath.Join(day, "rollout-2026-03-02T10-00-00-0199bbbb-1111-7222-8333-444455556666.jsonl"), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	red, err := redact.New(redact.Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	site, state, cache := t.TempDir(), t.TempDir(), t.TempDir()
	sum, err := Run(context.Background(), Config{Paths: []string{home}, Out: site, State: state, CacheDir: cache, JSON: true, Redact: red})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions != 1 {
		t.Fatalf("%d sessions", sum.Sessions)
	}
	leakSync(t, state)
	for _, root := range []string{site, state, cache} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(secret[4:])) {
				t.Errorf("%s holds the secret", p)
			}
			return nil
		})
	}
}
