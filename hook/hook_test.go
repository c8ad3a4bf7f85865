package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"build":                             "build",
		"--out=/srv/site":                   "--out=/srv/site",
		"a b":                               "'a b'",
		"":                                  "''",
		"it's":                              `'it'\''s'`,
		"$HOME":                             "'$HOME'",
		"~/site":                            "'~/site'",
		"x;rm -rf /":                        "'x;rm -rf /'",
		"--base-url=https://example.org/s/": "--base-url=https://example.org/s/",
		"*.jsonl":                           "'*.jsonl'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCommand(t *testing.T) {
	got := Command("/usr/local/bin/ccsite", []string{"build", "--quiet", "--out=/home/kim/my site"})
	want := "nohup /usr/local/bin/ccsite build --quiet '--out=/home/kim/my site' >/dev/null 2>&1 </dev/null &"
	if got != want {
		t.Errorf("Command = %s\nwant      %s", got, want)
	}
	if got := Command("/opt/a=b/ccsite", nil); !strings.HasPrefix(got, "nohup /opt/a=b/ccsite ") {
		t.Errorf("an = in a path: %s", got)
	}
	if got := Command("a=b", nil); !strings.HasPrefix(got, "nohup 'a=b' ") {
		t.Errorf("an = in a bare name: %s", got)
	}
	if got := Command("a=it's", nil); !strings.HasPrefix(got, `nohup 'a=it'\''s' `) {
		t.Errorf("an = and a ' in a bare name: %s", got)
	}
}

// TestCommandRuns runs the command line with sh, as Claude Code does: the
// program gets its arguments as given, and the hook returns at once
// though the program takes its time.
func TestCommandRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no sh")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := exec.LookPath("nohup"); err != nil {
		t.Skip("no nohup")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "my ccsite")
	got := filepath.Join(dir, "args")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + Quote(got) + ".tmp\nmv " + Quote(got) + ".tmp " + Quote(got) + "\necho noise; echo noise >&2\nsleep 3\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"build", "--quiet", "--out=" + filepath.Join(dir, "it's a site"), "", "$HOME", "a\"b", "x;y", "*"}
	cmd := exec.Command(sh, "-c", Command(exe, args))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"SessionEnd","reason":"other"}`)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sh -c: %v\n%s", err, out)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the hook took %s: it waited for the build", took)
	}
	if len(out) > 0 {
		t.Errorf("the hook said %q, want nothing", out)
	}
	var data []byte
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if data, err = os.ReadFile(got); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the program did not run: %v", err)
	}
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); !slices.Equal(lines, args) {
		t.Errorf("the program got %q, want %q", lines, args)
	}
}

// sessionEnd decodes a settings file's SessionEnd hook commands.
func sessionEnd(t *testing.T, data []byte) []string {
	t.Helper()
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	var groups []struct {
		Matcher *string `json:"matcher"`
		Hooks   []handler
	}
	if err := json.Unmarshal(s.Hooks["SessionEnd"], &groups); err != nil {
		t.Fatalf("SessionEnd: %v\n%s", err, data)
	}
	var cmds []string
	for _, g := range groups {
		for _, h := range g.Hooks {
			if h.Type != "command" {
				t.Errorf("a hook of type %q", h.Type)
			}
			cmds = append(cmds, h.Command)
		}
	}
	return cmds
}

const cmd = "nohup /usr/bin/ccsite build --quiet --out=/srv/site >/dev/null 2>&1 </dev/null &"

func TestSnippet(t *testing.T) {
	b, err := Snippet(cmd)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "nohup /usr/bin/ccsite build --quiet --out=/srv/site >/dev/null 2>&1 </dev/null &"
          }
        ]
      }
    ]
  }
}
`
	if string(b) != want {
		t.Errorf("Snippet:\n%s\nwant:\n%s", b, want)
	}
	if got := sessionEnd(t, b); !slices.Equal(got, []string{cmd}) {
		t.Errorf("SessionEnd hooks %q", got)
	}
}

func TestInstallNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".claude", "settings.json")
	backup, changed, err := Install(path, cmd)
	if err != nil || !changed || backup != "" {
		t.Fatalf("Install into no file: backup %q, changed %v, %v", backup, changed, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	snippet, _ := Snippet(cmd)
	if !bytes.Equal(data, snippet) {
		t.Errorf("a new settings file:\n%s\nwant the snippet:\n%s", data, snippet)
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("a new settings file has mode %v, want 0600", st.Mode().Perm())
		}
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(files) != 1 {
		t.Errorf("the folder holds %v, want the settings alone", files)
	}

	// Again: nothing to do.
	st1, _ := os.Stat(path)
	backup, changed, err = Install(path, cmd)
	if err != nil || changed || backup != "" {
		t.Fatalf("Install again: backup %q, changed %v, %v", backup, changed, err)
	}
	again, _ := os.ReadFile(path)
	st2, _ := os.Stat(path)
	if !bytes.Equal(again, data) || !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("Install again wrote the file")
	}
}

// The settings of a user with other hooks and settings, some unknown to
// this package, in an order of their own.
const existing = `{
	"model": "opus",
	"env": {"FOO": "a<b>&c", "Z": "1", "A": "2"},
	"permissions": {"allow": ["Bash(go test:*)"], "deny": []},
	"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre >&2", "timeout": 5}]}],
		"SessionEnd": [{"matcher": "clear", "hooks": [{"type": "command", "command": "other-tool --flush"}]}],
		"FutureEvent": {"whatever": [1, 2.50, true, null]}
	},
	"statusLine": {"type": "command", "command": "~/bin/status"},
	"unknownSetting": [{"x": "\u00e9\u003e"}]
}`

func TestInstallKeeps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(existing), 0o644); err != nil {
		t.Fatal(err)
	}
	backup, changed, err := Install(path, cmd)
	if err != nil || !changed || backup != path+".bak" {
		t.Fatalf("Install: backup %q, changed %v, %v", backup, changed, err)
	}
	if b, _ := os.ReadFile(backup); string(b) != existing {
		t.Errorf("the backup is not the old file:\n%s", b)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the new file:\n%s", data)
	if got := sessionEnd(t, data); !slices.Equal(got, []string{"other-tool --flush", cmd}) {
		t.Errorf("SessionEnd hooks %q, want the other tool's, then ours", got)
	}
	// Every other setting is what it was.
	var before, after map[string]any
	if err := json.Unmarshal([]byte(existing), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &after); err != nil {
		t.Fatal(err)
	}
	afterHooks := after["hooks"].(map[string]any)
	afterEnd := afterHooks["SessionEnd"].([]any)
	beforeHooks := before["hooks"].(map[string]any)
	if !jsonEqual(afterEnd[0], beforeHooks["SessionEnd"].([]any)[0]) {
		t.Errorf("the other SessionEnd group changed: %v", afterEnd[0])
	}
	delete(afterHooks, "SessionEnd")
	delete(beforeHooks, "SessionEnd")
	if !jsonEqual(after, before) {
		t.Errorf("other settings changed:\n%v\nwant\n%v", after, before)
	}
	// In their order, values as they were written.
	order := []string{`"model"`, `"env"`, `"FOO"`, `"Z"`, `"A"`, `"permissions"`, `"hooks"`, `"PreToolUse"`, `"SessionEnd"`, `"FutureEvent"`, `"statusLine"`, `"unknownSetting"`}
	last := -1
	for _, k := range order {
		i := bytes.Index(data, []byte(k))
		if i < last {
			t.Errorf("%s moved", k)
		}
		last = i
	}
	for _, s := range []string{`2.50`, `\u00e9\u003e`, `"a<b>&c"`, `>/dev/null 2>&1 </dev/null &"`} {
		if !bytes.Contains(data, []byte(s)) {
			t.Errorf("the new file lacks %s as it was written", s)
		}
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
			t.Errorf("the file's mode is now %v, want 0644 as it was", st.Mode().Perm())
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(tmp) > 0 {
		t.Errorf("left behind: %v", tmp)
	}

	// Installed: nothing written, no backup.
	if backup, changed, err := Install(path, cmd); err != nil || changed || backup != "" {
		t.Errorf("Install again: backup %q, changed %v, %v", backup, changed, err)
	}
	// Another command (other flags): added too, the backup beside the first.
	other := strings.Replace(cmd, "/srv/site", "/srv/other", 1)
	backup, changed, err = Install(path, other)
	if err != nil || !changed || backup != path+".bak.1" {
		t.Fatalf("Install another: backup %q, changed %v, %v", backup, changed, err)
	}
	if b, _ := os.ReadFile(backup); !bytes.Equal(b, data) {
		t.Error("the second backup is not the file before it")
	}
	if b, _ := os.ReadFile(path + ".bak"); string(b) != existing {
		t.Error("the first backup was overwritten")
	}
	data, _ = os.ReadFile(path)
	if got := sessionEnd(t, data); !slices.Equal(got, []string{"other-tool --flush", cmd, other}) {
		t.Errorf("SessionEnd hooks %q", got)
	}
	backup, changed, err = Install(path, "third")
	if err != nil || !changed || backup != path+".bak.2" {
		t.Errorf("a third: backup %q, changed %v, %v", backup, changed, err)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestInstallMalformed(t *testing.T) {
	for name, content := range map[string]string{
		"syntax":               "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}",
		"truncated":            `{"model": "opus", "hooks": {`,
		"trailing comma":       `{"model": "opus",}`,
		"not an object":        `["hooks"]`,
		"a string":             `"settings"`,
		"two objects":          `{} {}`,
		"hooks a list":         `{"hooks": []}`,
		"hooks a string":       `{"hooks": "SessionEnd"}`,
		"SessionEnd an object": `{"hooks": {"SessionEnd": {"hooks": []}}}`,
		"comments":             "{\n  // mine\n  \"model\": \"opus\"\n}",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			backup, changed, err := Install(path, cmd)
			if err == nil || changed || backup != "" {
				t.Fatalf("Install: backup %q, changed %v, %v; want an error", backup, changed, err)
			}
			t.Logf("%v", err)
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "left as it is") {
				t.Errorf("the error does not say which file, or that it is untouched: %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != content {
				t.Error("the file changed")
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 1 {
				t.Errorf("the folder holds %v", files)
			}
		})
	}
	// Where a syntax error is.
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}"), 0o644)
	if _, _, err := Install(path, cmd); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("no line for a syntax error: %v", err)
	}
}

func TestInstallEmptyAndNull(t *testing.T) {
	for name, content := range map[string]string{
		"empty":           "",
		"blank":           " \n",
		"empty object":    "{}",
		"hooks null":      `{"hooks": null}`,
		"SessionEnd null": `{"hooks": {"SessionEnd": null}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			backup, changed, err := Install(path, cmd)
			if err != nil || !changed || backup != path+".bak" {
				t.Fatalf("Install: backup %q, changed %v, %v", backup, changed, err)
			}
			data, _ := os.ReadFile(path)
			if got := sessionEnd(t, data); !slices.Equal(got, []string{cmd}) {
				t.Errorf("SessionEnd hooks %q", got)
			}
		})
	}
}

// TestInstallLink: a settings file that is a link (kept in a dotfiles
// repository) stays a link; the file it links to gets the hook.
func TestInstallLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	if err := os.WriteFile(real, []byte(`{"model": "opus"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	backup, changed, err := Install(path, cmd)
	if err != nil || !changed || backup != path+".bak" {
		t.Fatalf("Install: backup %q, changed %v, %v", backup, changed, err)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	data, _ := os.ReadFile(real)
	if got := sessionEnd(t, data); !slices.Equal(got, []string{cmd}) {
		t.Errorf("the linked file's SessionEnd hooks: %q", got)
	}
}

// TestInstallConcurrent: installs of different hooks at once (sessions
// ending together, scripts) each add theirs; none is lost to another's
// write of the file it read before.
func TestInstallConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(path, []byte(`{"model": "opus"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var want []string
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		c := strings.Replace(cmd, "/srv/site", "/srv/site"+strconv.Itoa(i), 1)
		want = append(want, c)
		go func() {
			<-start
			_, _, err := Install(path, c)
			errs <- err
		}()
	}
	close(start)
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := sessionEnd(t, data)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%d of %d hooks installed at once are in the file:\n%s", len(got), n, strings.Join(got, "\n"))
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || m["model"] != "opus" {
		t.Errorf("the other settings are lost:\n%s", data)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestInstallDanglingLink: a settings file that is a link to a file not
// made yet (a dotfiles repository's, not written yet) stays a link; the
// file it points to is made, through a chain of links, relative ones
// read from the link's folder.
func TestInstallDanglingLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links")
	}
	dir := t.TempDir()
	claude := filepath.Join(dir, ".claude")
	os.MkdirAll(claude, 0o755)
	os.MkdirAll(filepath.Join(dir, "dotfiles"), 0o755)
	path := filepath.Join(claude, "settings.json")
	// settings.json -> ../dotfiles/link.json -> claude.json (missing)
	if err := os.Symlink(filepath.Join("..", "dotfiles", "link.json"), path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("claude.json", filepath.Join(dir, "dotfiles", "link.json")); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "dotfiles", "claude.json")
	backup, changed, err := Install(path, cmd)
	if err != nil || !changed || backup != "" {
		t.Fatalf("Install: backup %q, changed %v, %v", backup, changed, err)
	}
	for _, l := range []string{path, filepath.Join(dir, "dotfiles", "link.json")} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link %s was replaced: %v", l, err)
		}
	}
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatalf("the file linked to was not made: %v", err)
	}
	if got := sessionEnd(t, data); !slices.Equal(got, []string{cmd}) {
		t.Errorf("the linked file's SessionEnd hooks: %q", got)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("the new file has mode %v, want 0600", st.Mode().Perm())
	}
	// Again, through the link, now to a file: nothing to do.
	if backup, changed, err := Install(path, cmd); err != nil || changed || backup != "" {
		t.Errorf("Install again: backup %q, changed %v, %v", backup, changed, err)
	}

	// A link to a link to itself is an error, and nothing is written.
	loop := filepath.Join(dir, "loop.json")
	os.Symlink("loop2.json", loop)
	os.Symlink("loop.json", filepath.Join(dir, "loop2.json"))
	if _, _, err := Install(loop, cmd); err == nil {
		t.Error("Install through a loop of links: no error")
	}
	if st, err := os.Lstat(loop); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the looping link was replaced: %v", err)
	}
}
