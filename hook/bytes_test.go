package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallKeepsBytes: installing the hook inserts its text at one
// place; every byte before and after it is the file's as it was (spacing,
// tabs, CRLF, escapes, numbers, no final newline), and the inserted text
// is laid out like its neighbours.
func TestInstallKeepsBytes(t *testing.T) {
	const c = "ccsite build --out=/srv/site"
	group := `{"hooks":[{"type":"command","command":"` + c + `"}]}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"four spaces, a list a group a line",
			"{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"SessionEnd\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"other\"}]}\n        ]\n    }\n}\n",
			"{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"SessionEnd\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"other\"}]},\n" +
				"            {\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"" + c + "\"\n                    }\n                ]\n            }\n        ]\n    }\n}\n"},
		{"tabs, no hooks, no final newline",
			"{\n\t\"n\": 2.50,\n\t\"s\": \"\\u00e9\"\n}",
			"{\n\t\"n\": 2.50,\n\t\"s\": \"\\u00e9\",\n\t\"hooks\": {\n\t\t\"SessionEnd\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"" + c + "\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}"},
		{"one line",
			`{"model":"opus","hooks":{"PreToolUse":[]}}`,
			`{"model":"opus","hooks":{"PreToolUse":[],"SessionEnd":[` + group + `]}}`},
		{"one line with spaces, a list on it",
			"{\n  \"hooks\": {\"SessionEnd\": [{\"hooks\": []}]}\n}\n",
			"{\n  \"hooks\": {\"SessionEnd\": [{\"hooks\": []}, {\"hooks\": [{\"type\": \"command\", \"command\": \"" + c + "\"}]}]}\n}\n"},
		{"CRLF, empty hooks",
			"{\r\n  \"a\": 1,\r\n  \"hooks\": {}\r\n}\r\n",
			"{\r\n  \"a\": 1,\r\n  \"hooks\": {\r\n    \"SessionEnd\": [\r\n      {\r\n        \"hooks\": [\r\n          {\r\n            \"type\": \"command\",\r\n            \"command\": \"" + c + "\"\r\n          }\r\n        ]\r\n      }\r\n    ]\r\n  }\r\n}\r\n"},
		{"empty object",
			"{}",
			"{\n  \"hooks\": {\n    \"SessionEnd\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"" + c + "\"\n          }\n        ]\n      }\n    ]\n  }\n}"},
		{"SessionEnd null",
			"{\n  \"hooks\": {\n    \"SessionEnd\": null,\n    \"Stop\": []\n  }\n}\n",
			"{\n  \"hooks\": {\n    \"SessionEnd\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"" + c + "\"\n          }\n        ]\n      }\n    ],\n    \"Stop\": []\n  }\n}\n"},
		{"duplicate hooks: the last is read",
			`{"hooks":{"Stop":[]},"hooks":{}}`,
			`{"hooks":{"Stop":[]},"hooks":{` + "\n  \"SessionEnd\": [\n    {\n      \"hooks\": [\n        {\n          \"type\": \"command\",\n          \"command\": \"" + c + "\"\n        }\n      ]\n    }\n  ]\n}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, changed, err := Install(path, c); err != nil || !changed {
				t.Fatalf("Install: changed %v, %v", changed, err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if hooks := sessionEnd(t, got); !slices.Contains(hooks, c) {
				t.Errorf("SessionEnd hooks %q lack ours", hooks)
			}
			// Nothing of the old file went, but a null replaced.
			in := []byte(tc.in)
			p := 0
			for p < len(in) && p < len(got) && in[p] == got[p] {
				p++
			}
			s := 0
			for s < len(in)-p && s < len(got)-p && in[len(in)-1-s] == got[len(got)-1-s] {
				s++
			}
			if gone := in[p : len(in)-s]; len(bytes.TrimSpace(gone)) > 0 && string(gone) != "null" {
				t.Errorf("bytes of the old file changed: %q", gone)
			}
		})
	}
}

// TestInstallUpdatesOlderHook: the same hook installed by a ccsite from
// before hook.log (no --from-hook) gets the flag in place: one hook, and
// only its command string changed.
func TestInstallUpdatesOlderHook(t *testing.T) {
	const older = "nohup /usr/bin/ccsite build --quiet --out=/srv/site >/dev/null 2>&1 </dev/null &"
	const newer = "nohup /usr/bin/ccsite build --quiet --from-hook --out=/srv/site >/dev/null 2>&1 </dev/null &"
	in := "{\n\t\"hooks\": {\"SessionEnd\": [\n\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]},\n\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"" + older + "\", \"timeout\": 9}]}\n\t]}\n}\n"
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(in), 0o600)
	if _, changed, err := Install(path, newer); err != nil || !changed {
		t.Fatalf("Install: changed %v, %v", changed, err)
	}
	got, _ := os.ReadFile(path)
	if want := strings.Replace(in, older, newer, 1); string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if _, changed, err := Install(path, newer); err != nil || changed {
		t.Errorf("again: changed %v, %v", changed, err)
	}
}
