package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"ccsite/hook"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const hookLong = `Print the Claude Code hook that rebuilds the site after every session (a
SessionEnd hook running ccsite build with the flags given here), or, with
--install, add it to Claude Code's settings: --settings FILE, else
$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json. The hook is
inserted at the end of the SessionEnd list, laid out like the lines around
it, and every other byte of the file stays as it was; the old file is kept
beside it as a backup, and installing the same hook twice adds it once. A settings file that is a link
stays one: the file it points to is written (made, when missing). Installs
into one file at once each add their hook (the file is locked meanwhile).
Two sessions ending together just build one after the other (the build
waits for the folder's lock). The hook's build writes how it ended and the
end of its output to hook.log in the site's state folder (redacted, private
to you); when it failed, the next ccsite build of the site says so.`

func newHookCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook [flags] [BUILD FLAGS...] [PATH...]",
		Short: "Print or install the Claude Code hook that rebuilds the site after each session",
		Long:  hookLong,
		Example: `  ccsite hook -o ~/sessions-site             # print the settings fragment
  ccsite hook --install -o ~/sessions-site --no-thinking
  ccsite hook --install --settings .claude/settings.json`,
	}
	f := c.Flags()
	install := f.Bool("install", false, "add the hook to Claude Code's settings (with a backup of the file)")
	settings := f.String("settings", "", "the settings `FILE` to add it to (default: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json)")
	declareBuildFlags(f)
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, paths []string) error {
		return status(runHook(e, *install, *settings))
	}
	return c
}

// runHook prints or installs the hook: "ccsite build" (this program, by
// its absolute path) with the build flags and paths given to hook.
func runHook(e *env, install bool, settings string) int {
	exe, err := selfPath()
	if err != nil {
		fmt.Fprintf(e.stderr, "ccsite hook: find the ccsite program: %v\n", err)
		return exitFail
	}
	args, err := hookBuildArgs(e.args[1:])
	if err != nil {
		fmt.Fprintf(e.stderr, "ccsite hook: %v\n", err)
		return exitFail
	}
	command := hook.Command(exe, args)
	if !install {
		snippet, err := hook.Snippet(command)
		if err != nil {
			fmt.Fprintf(e.stderr, "ccsite hook: %v\n", err)
			return exitFail
		}
		e.stdout.Write(snippet)
		if len(snippet) > 0 && snippet[len(snippet)-1] != '\n' {
			fmt.Fprintln(e.stdout)
		}
		return exitOK
	}
	if settings == "" {
		settings = defaultSettings(e.getenv)
	}
	backup, changed, err := hook.Install(settings, command)
	if err != nil {
		fmt.Fprintf(e.stderr, "ccsite hook: %v\n", err)
		return exitFail
	}
	switch {
	case !changed:
		fmt.Fprintf(e.stdout, "ccsite hook: %s already has this hook; nothing changed\n", settings)
	case backup != "":
		fmt.Fprintf(e.stdout, "ccsite hook: added the SessionEnd hook to %s (the old file is %s)\n", settings, backup)
	default:
		fmt.Fprintf(e.stdout, "ccsite hook: added the SessionEnd hook to %s (a new file)\n", settings)
	}
	return exitOK
}

// pathFlags are the build flags that name files or folders: the hook runs
// in whatever folder Claude Code was in, so they are made absolute.
var pathFlags = map[string]bool{"out": true, "state": true, "theme-dir": true, "report": true,
	"redact-file": true, "pricing": true}

// hookBuildArgs turns hook's arguments into the build's: every build flag
// as given (--install, --settings and --quiet aside, --quiet and
// --from-hook added: the build writes hook.log in its state folder), paths
// absolute, and --out always (a hook must not write ./site wherever a
// session ended).
func hookBuildArgs(given []string) ([]string, error) {
	fs := buildFlags()
	fs.Bool("install", false, "")
	fs.String("settings", "", "")
	args := []string{"build", "--quiet", "--" + fromHookFlag}
	out := false
	err := fs.ParseAll(given, func(f *pflag.Flag, v string) error {
		if err := fs.Set(f.Name, v); err != nil {
			return err
		}
		switch {
		case f.Name == "install" || f.Name == "settings" || f.Name == "quiet" || f.Name == fromHookFlag:
			return nil
		case f.NoOptDefVal != "" && v == "true":
			args = append(args, "--"+f.Name)
			return nil
		case pathFlags[f.Name]:
			v = absPath(v)
		case f.Name == "git":
			v = absGitSpec(v)
		}
		out = out || f.Name == "out"
		args = append(args, "--"+f.Name+"="+v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !out {
		args = append(args, "--out="+absPath("site"))
	}
	for _, p := range fs.Args() {
		args = append(args, absPath(p))
	}
	return args, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// absGitSpec makes the repository of a --git REPO[@REF] absolute.
func absGitSpec(spec string) string {
	if st, err := os.Stat(spec); err == nil && st.IsDir() {
		return absPath(spec)
	}
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		if st, err := os.Stat(spec[:i]); err == nil && st.IsDir() {
			return absPath(spec[:i]) + spec[i:]
		}
	}
	return spec
}

// defaultSettings is Claude Code's user settings file.
func defaultSettings(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		d, _, _ = strings.Cut(d, ",")
		return filepath.Join(d, "settings.json")
	}
	home, _ := os.UserHomeDir()
	if h := getenv("HOME"); h != "" {
		home = h
	}
	return filepath.Join(home, ".claude", "settings.json")
}
