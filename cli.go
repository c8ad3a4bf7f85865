package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"ccsite/build"
	"ccsite/build/archive"
)

// Exit codes.
const (
	exitOK    = 0 // done, even when the input had problems
	exitFail  = 1 // nothing could be read or written
	exitUsage = 2 // the command line is wrong
)

const usage = `ccsite turns Claude Code session transcripts into a static website.

Usage:
  ccsite inspect [--json] [--workers N] [PATH...]
        Read transcripts and print, per session, its title, stats, turns,
        branches, sub-agents and problems (--json: the whole model).
  ccsite version

PATH is a folder (searched recursively) or a .jsonl file. Without PATH:
$CLAUDE_CONFIG_DIR/projects (comma-separated list allowed), else
~/.claude/projects and ~/.config/claude/projects.

Exit status: 0 when input was read (problems in it are reported, not fatal),
1 when nothing could be read, 2 for a usage error.
`

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "inspect":
		return runInspect(ctx, args[1:], stdout, stderr, getenv)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "ccsite", version())
		return exitOK
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "ccsite: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// parseInterleaved parses flags that may come before or after positional
// arguments ("ccsite inspect DIR --json").
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "write the whole model as one JSON document (schema in README)")
	workers := fs.Int("workers", 0, "parse with N workers (default: one per CPU)")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(paths) == 0 {
		home, _ := os.UserHomeDir()
		paths = archive.DefaultRoots(getenv, home)
		if len(paths) == 0 {
			fmt.Fprintln(stderr, "ccsite inspect: no ~/.claude/projects folder here ($CLAUDE_CONFIG_DIR unset); name folders or .jsonl files to read")
			return exitFail
		}
	}
	t, err := build.Inspect(ctx, stdout, build.InspectOptions{Paths: paths, JSON: *asJSON, Workers: *workers})
	if err != nil {
		msg := err.Error()
		if errors.Is(err, archive.ErrNothing) {
			msg += " (looked for *.jsonl files)"
		}
		fmt.Fprintf(stderr, "ccsite inspect: %s\n", strings.TrimSpace(msg))
		return exitFail
	}
	if *asJSON && t.Problems > 0 {
		fmt.Fprintf(stderr, "ccsite inspect: %d sessions read, %d problems reported in the output\n", t.Sessions, t.Problems)
	}
	return exitOK
}
