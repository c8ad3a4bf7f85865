package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// env is what every command runs with: run's arguments.
type env struct {
	ctx            context.Context
	args           []string // the whole command line, flags spelled --long
	stdout, stderr io.Writer
	getenv         func(string) string
}

// exitStatus is a command's non-zero status; what went wrong has been
// said already.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// status turns a command's exit code into RunE's error.
func status(code int) error {
	if code == exitOK {
		return nil
	}
	return exitStatus(code)
}

// usageError is a mistake on the command line found by a command itself
// (cobra's own, a bad flag or an unknown command, are usage errors too).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

const rootLong = `ccsite turns Claude Code session transcripts (~/.claude/projects/**/*.jsonl)
into a static website you can publish, share or browse offline.

PATH (build, inspect, usage) is a folder, searched recursively, or a .jsonl
file. Without PATH: $CLAUDE_CONFIG_DIR/projects (a comma-separated list is
allowed), else ~/.claude/projects and ~/.config/claude/projects; when those
hold no transcript, the built-in demo archive.

Exit status: 0 done (problems in the input are reported, not fatal); 1 not
done (nothing to read, a folder that is not a site, a write error, an
interrupted build); 2 a usage error; 3 (build) another build kept the output
folder past --wait.`

// newRoot makes the ccsite command and its subcommands.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:     "ccsite",
		Short:   "Turn Claude Code transcripts into a static website",
		Long:    rootLong,
		Version: versionString(),
		Example: `  ccsite build                      # ~/.claude/projects → ./site
  ccsite serve --watch              # serve ./site, rebuilt as you work
  ccsite search 'retry budget tool:Bash'
  ccsite help build`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// No command: the help, as a usage error.
		RunE: func(c *cobra.Command, args []string) error {
			c.SetOut(e.stderr)
			c.Help()
			return exitStatus(exitUsage)
		},
	}
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("ccsite {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddCommand(newBuildCmd(e), newShareCmd(e), newCompareCmd(e), newThemeCmd(e), newSearchCmd(e), newServeCmd(e),
		newInspectCmd(e), newUsageCmd(e), newForgetCmd(e), newArchiveCmd(e), newHookCmd(e), newVersionCmd(e), newReviewCmd(e))
	// "completion" with no shell or an unknown one is a usage error too.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Short = "Print the completion script for bash, zsh, fish or powershell"
			c.Example = "  source <(ccsite completion bash)\n  ccsite completion zsh > \"${fpath[1]}/_ccsite\"\n  ccsite completion fish > ~/.config/fish/completions/ccsite.fish"
			c.RunE = groupRun
		}
	}
	normalizeAll(root)
	return root
}

// normalizeAll lets every command take its one-letter flags spelled long.
func normalizeAll(c *cobra.Command) {
	for _, s := range c.Commands() {
		s.Flags().SetNormalizeFunc(aliases)
		normalizeAll(s)
	}
}

// aliases maps a one-letter long name to the flag of that shorthand:
// "--o DIR" (Go's flag package took it) is "--out DIR".
func aliases(f *pflag.FlagSet, name string) pflag.NormalizedName {
	if len(name) == 1 {
		if fl := f.ShorthandLookup(name); fl != nil {
			return pflag.NormalizedName(fl.Name)
		}
	}
	return pflag.NormalizedName(name)
}

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, getenv: getenv}
	root := newRoot(e)
	e.args = longFlags(root, args)
	root.SetArgs(e.args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	var st exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		if int(st) == exitUsage && cmd != root {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return int(st)
	}
	// A usage error: the command's or cobra's (unknown command or flag,
	// bad argument).
	name := "ccsite"
	if cmd != nil && cmd != root {
		name = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimRight(err.Error(), "\n"))
	help := "ccsite --help"
	if cmd != nil {
		help = cmd.CommandPath() + " --help"
	}
	fmt.Fprintf(stderr, "Run '%s' for usage.\n", help)
	return exitUsage
}

// longFlags rewrites the single-dash long flags Go's flag package took
// ("-force", "-o=x" stays) as pflag's "--force", for the command the
// arguments name: scripts and recorded builds keep working.
func longFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return args
	}
	flags := cmd.Flags()
	out := make([]string, 0, len(args))
	value := false // the argument is the value of the flag before it
	for i, a := range args {
		switch {
		case value:
			value = false
		case a == "--":
			return append(out, args[i:]...)
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 2:
			name, _, hasValue := strings.Cut(a[1:], "=")
			if f := flags.Lookup(name); f != nil || name == "help" || name == "version" {
				a = "-" + a
				value = f != nil && f.NoOptDefVal == "" && !hasValue
			}
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := flags.Lookup(name); f != nil {
				value = f.NoOptDefVal == "" && !hasValue
			}
		case strings.HasPrefix(a, "-") && len(a) == 2:
			if f := flags.ShorthandLookup(a[1:]); f != nil {
				value = f.NoOptDefVal == ""
			}
		}
		out = append(out, a)
	}
	return out
}

// versionString is "v1.2.3 (abc1234, 2026-11-25T10:00:00Z, go1.26)": the
// module's version ("dev" when built from a checkout), the commit, its
// time and "dirty" when the tree had changes, and the Go version.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		rev = rev[:min(len(rev), 7)]
		if dirty {
			rev += "-dirty"
		}
		parts = append(parts, rev)
	}
	if at != "" {
		parts = append(parts, at)
	}
	parts = append(parts, bi.GoVersion)
	if !re2Scan {
		parts = append(parts, "without gore2regex: secret scanning on Go's regexp, about 1.4 times the CPU")
	}
	return version() + " (" + strings.Join(parts, ", ") + ")"
}

// version is the module's version, "dev" when there is none.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ccsite's version, commit and Go version",
		Long: `Print ccsite's version: the module version ("dev" when built from a
checkout), the commit (with -dirty when the tree had changes), its time, and
the Go version it was built with. Same as ccsite --version.`,
		Example: "  ccsite version\n  ccsite --version",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			fmt.Fprintln(e.stdout, "ccsite", versionString())
			return nil
		},
	}
}

// groupRun is the RunE of a command that only holds others (theme,
// archive): no subcommand or an unknown one is a usage error.
func groupRun(c *cobra.Command, args []string) error {
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	if len(args) == 0 {
		return usagef("name a subcommand: %s", strings.Join(names, ", "))
	}
	c.SuggestionsMinimumDistance = 2
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usageError{msg}
}
