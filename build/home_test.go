package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/archive"
)

// homeTree writes, under a home folder of its own, ~/.claude/projects with
// a session run in ~/app (with a sub-agent, a stored output that is
// missing, a broken line: problems naming files), one run in ~ itself and
// one run elsewhere, and returns home and the projects folder.
func homeTree(t *testing.T) (home, root string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "kimhome")
	root = filepath.Join(home, ".claude", "projects")
	write := func(cwd, sid, body string) {
		f := &nsFile{sid: sid, prefix: sid[:8]}
		f.prompt("hello")
		f.answer("hi")
		lines := strings.Join(f.lines, "\n") + "\n" + body
		lines = strings.ReplaceAll(lines, `"cwd":"/home/u/app"`, fmt.Sprintf(`"cwd":%q`, cwd))
		writeFile(t, filepath.Join(root, archive.Slug(cwd), sid+".jsonl"), lines)
	}
	app := filepath.Join(home, "app")
	write(app, nsS1, "{broken line\n")
	f := &nsFile{sid: nsS1, prefix: "a1a1a1a1", minute: 1}
	f.prompt("survey")
	f.answer("done")
	sub := filepath.Join(root, archive.Slug(app), nsS1, "subagents", "agent-ag1.jsonl")
	writeFile(t, sub, strings.ReplaceAll(strings.Join(f.lines, "\n")+"\n", `"cwd":"/home/u/app"`, fmt.Sprintf(`"cwd":%q`, app)))
	write(home, nsS2, "")
	write("/srv/elsewhere", nsOld, "")
	return home, root
}

// TestHomeNotPublished: built with Config.Home, no page, export or index
// of the site holds the builder's home folder (nor its name as Claude Code
// encodes it in folder names): the Source line, project paths and the
// resume line's folder show it as ~.
func TestHomeNotPublished(t *testing.T) {
	home, root := homeTree(t)
	site := filepath.Join(t.TempDir(), "site")
	cfg := Config{Paths: []string{root}, Out: site, State: filepath.Join(t.TempDir(), "state"), Home: home}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{home, filepath.ToSlash(home), archive.Slug(home), "kimhome"} {
		if got := siteHolding(t, site, leak); len(got) > 0 {
			t.Errorf("%q published in %v", leak, got)
		}
	}
	page := ""
	filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(p) == nsS1+".html" {
			data, _ := os.ReadFile(p)
			page = string(data)
		}
		return nil
	})
	for _, want := range []string{
		"Source: <code>~/.claude/projects/~-app/" + nsS1 + ".jsonl</code>",
		`<code class="resume">cd ~/app &amp;&amp; claude --resume ` + nsS1 + `</code>`,
		`>~/app</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the session's page lacks %s", want)
		}
	}
	// A path not under home is shown whole.
	if got := siteHolding(t, site, "/srv/elsewhere"); len(got) == 0 {
		t.Errorf("a project out of home is not shown")
	}

	// One session shared: the same.
	out := filepath.Join(t.TempDir(), "shared.html")
	if _, err := Share(context.Background(), ShareConfig{File: filepath.Join(root, archive.Slug(filepath.Join(home, "app")), nsS1+".jsonl"), Out: out, Home: home}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{home, archive.Slug(home), "kimhome"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("%q in the shared page", leak)
		}
	}
}

func TestHomeLabelled(t *testing.T) {
	home := "/home/kim"
	for path, want := range map[string]string{
		"/home/kim":     "~",
		"/home/kim/":    "~",
		"/home/kim/app": "~/app",
		"/home/kim/.claude/projects/-home-kim-app/x.jsonl": "~/.claude/projects/~-app/x.jsonl",
		"/home/kim/.claude/projects/-home-kim/x.jsonl":     "~/.claude/projects/~/x.jsonl",
		"/home/kim/.claude/projects/-home-kimberly/x":      "~/.claude/projects/-home-kimberly/x",
		"/home/kimberly/app":                               "/home/kimberly/app",
		"/srv/app":                                         "/srv/app",
		"git:entire/x.jsonl":                               "git:entire/x.jsonl",
		"":                                                 "",
	} {
		if got := homeLabelled(path, home); got != want {
			t.Errorf("homeLabelled(%q) = %q, want %q", path, got, want)
		}
	}
	if got := homeLabelled("/home/kim/app", ""); got != "/home/kim/app" {
		t.Errorf("no home: %q", got)
	}
}
