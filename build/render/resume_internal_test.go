package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/session"
)

const resumeID = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"

// A session id that is not a UUID gets no resume line: pasted, it would
// run as the shell reads it.
func TestResumeHostileID(t *testing.T) {
	for _, id := range []string{
		"$(touch pwned)", "`touch pwned`", "x; touch pwned", "x\ntouch pwned", "x' ; touch pwned ; '",
		`x"; touch pwned; "`, "x && touch pwned", "x|touch pwned", "../x", "~", "-x", "",
		resumeID + ";touch pwned", resumeID[:35] + "g", "x",
	} {
		for _, cwd := range []string{"", "/home/u/app"} {
			if got := resume(&session.Session{ID: id, CWD: cwd}, ""); got != "" {
				t.Errorf("id %q, cwd %q: resume line %q, want none", id, cwd, got)
			}
		}
	}
	if got, want := resume(&session.Session{ID: resumeID}, ""), "claude --resume "+resumeID; got != want {
		t.Errorf("resume = %q, want %q", got, want)
	}
	if got := resume(&session.Session{ID: resumeID, Agent: &session.AgentInfo{}}, ""); got != "" {
		t.Errorf("sub-agent: resume line %q", got)
	}
}

// Whatever the session's folder, the resume line hands cd that folder as
// one literal word and claude the id: run by the shells there are, with
// cd and claude replaced by functions that print their arguments, nothing
// else runs.
func TestResumeQuotesFolder(t *testing.T) {
	home := "/home/builder"
	cwds := []string{
		"/home/u/app",
		"/home/u/my app",
		"/tmp/$(touch pwned)",
		"/tmp/`touch pwned`",
		"/tmp/a;touch pwned",
		"/tmp/a && touch pwned",
		"/tmp/a|touch pwned",
		"/tmp/it's",
		`/tmp/"quoted"`,
		`/tmp/back\slash`,
		"/tmp/$HOME",
		"/tmp/${HOME}",
		"/tmp/*",
		"/tmp/a b  c",
		"~",
		"~/x",
		"~root",
		"=ls",
		"-P",
		"-",
		"#comment",
		"/tmp/!!",
		"/tmp/{a,b}",
		"C:\\Users\\u\\app",
		"/tmp/é ü",
		home,
		home + "/app",
		home + "/my app",
		home + "/$(touch pwned)",
		home + "/it's",
		home + "x",
	}
	shells := []string{}
	for _, sh := range []string{"sh", "dash", "bash", "zsh"} {
		if p, err := exec.LookPath(sh); err == nil {
			shells = append(shells, p)
		}
	}
	if len(shells) == 0 {
		t.Skip("no shell")
	}
	for _, cwd := range cwds {
		line := resume(&session.Session{ID: resumeID, CWD: cwd}, home)
		if line == "" {
			t.Errorf("cwd %q: no resume line", cwd)
			continue
		}
		if strings.Contains(line, home+"/") || strings.HasSuffix(line, home) {
			t.Errorf("cwd %q: the home folder is shown: %s", cwd, line)
		}
		want := cwd
		if cwd == home || strings.HasPrefix(cwd, home+"/") {
			want = "\x00" + cwd[len(home):]
		}
		for _, sh := range shells {
			dir := t.TempDir()
			fakeHome := filepath.Join(dir, "home")
			script := `cd() { printf 'cd'; for a in "$@"; do printf '[%s]' "$a"; done; printf '\n'; }
claude() { printf 'claude'; for a in "$@"; do printf '[%s]' "$a"; done; printf '\n'; }
` + line
			cmd := exec.Command(sh, "-c", script)
			cmd.Dir = dir
			cmd.Env = []string{"HOME=" + fakeHome, "PATH=" + os.Getenv("PATH")}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s, cwd %q: %s: %v\n%s", filepath.Base(sh), cwd, line, err, out)
				continue
			}
			w := strings.Replace(want, "\x00", fakeHome, 1)
			wantCD := "cd[" + w + "]"
			if strings.HasPrefix(cwd, "-") {
				wantCD = "cd[--][" + w + "]"
			}
			if got, want := string(out), wantCD+"\nclaude[--resume]["+resumeID+"]\n"; got != want {
				t.Errorf("%s, cwd %q: %s ran\n%s\nwant\n%s", filepath.Base(sh), cwd, line, got, want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%s, cwd %q: %s made %v", filepath.Base(sh), cwd, line, ents)
			}
		}
	}
	// A folder with a control character (a line end, a tab) is given no
	// line: a terminal takes it as the end of the command, a completion.
	for _, cwd := range []string{"/tmp/a\ntouch pwned", "/tmp/a\tb", "/tmp/a\rb", "/tmp/\x1b[2J", "/tmp/\x00", "/tmp/\xff"} {
		if got := resume(&session.Session{ID: resumeID, CWD: cwd}, home); got != "" {
			t.Errorf("cwd %q: resume line %q, want none", cwd, got)
		}
	}
}
