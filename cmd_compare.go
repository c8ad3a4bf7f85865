package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"ccsite/build"
	"ccsite/build/archive"
	"ccsite/theme"
)

func newCompareCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "compare [flags] A B",
		Short: "Write two sessions side by side as a single self-contained HTML file",
		Long: `Write two sessions' comparison as one self-contained HTML file, the same
view as a site's compare.html: their figures side by side (cost, tokens,
time, tool calls, errors, files touched, commits), the cheaper and faster
marked, and their turns lined up where their prompts match, with the turn
where they diverge. A and B are .jsonl files, or session ids found under
~/.claude/projects. Secrets are redacted as for build.`,
		Example: `  ccsite compare -o fork.html 0c1d2e3f-….jsonl 9a8b7c6d-….jsonl
  ccsite compare 0c1d2e3f-aaaa-… 9a8b7c6d-bbbb-…`,
	}
	f := c.Flags()
	out := f.StringP("out", "o", "", "write to `FILE` (default: compare-<A>-<B>.html in the current folder)")
	themeName, themeDir := themeFlags(f)
	rf := addRedactFlags(f)
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) != 2 {
			return usagef("name exactly two sessions (.jsonl files or session ids)")
		}
		return status(runCompare(e, args[0], args[1], *out, *themeName, *themeDir, rf))
	}
	return c
}

func runCompare(e *env, a, b, target, themeName, themeDir string, rf *redactFlags) int {
	stderr := e.stderr
	if _, err := theme.Open(themeName, themeDir); err != nil {
		fmt.Fprintf(stderr, "ccsite compare: %v\n", err)
		return exitUsage
	}
	home, _ := os.UserHomeDir()
	if h := e.getenv("HOME"); h != "" {
		home = h
	}
	var files [2]string
	for i, arg := range []string{a, b} {
		file, err := sessionFile(arg, archive.DefaultRoots(e.getenv, home))
		if err != nil {
			fmt.Fprintf(stderr, "ccsite compare: %v\n", err)
			return exitUsage
		}
		files[i] = file
	}
	red, err := rf.redactor("compare", stderr, e.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite compare: %v\n", err)
		return exitUsage
	}
	if target == "" {
		name := func(f string) string { return strings.TrimSuffix(filepath.Base(f), ".jsonl") }
		target = "compare-" + name(files[0]) + "-" + name(files[1]) + ".html"
	}
	err = build.Compare(e.ctx, build.CompareConfig{A: files[0], B: files[1], Out: target, Theme: themeName, ThemeDir: themeDir,
		Redact: red, Omit: rf.omit(), Home: home})
	if err != nil {
		fmt.Fprintf(stderr, "ccsite compare: %v\n", err)
		return exitFail
	}
	reportRedactions("compare", red, stderr)
	fmt.Fprintf(stderr, "ccsite compare: wrote %s (one file, opens offline)\n", target)
	return exitOK
}

// sessionFile is arg when it names a file, else the <arg>.jsonl of a
// project under roots (a session id).
func sessionFile(arg string, roots []string) (string, error) {
	if _, err := os.Stat(arg); err == nil || strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") {
		return arg, nil
	}
	var found []string
	for _, r := range roots {
		m, _ := filepath.Glob(filepath.Join(r, "*", arg+".jsonl"))
		found = append(found, m...)
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s: no such file, and no session of that id under %s", arg, strings.Join(roots, ", "))
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s: %d sessions have that id (%s): name the file", arg, len(found), strings.Join(found, ", "))
}
