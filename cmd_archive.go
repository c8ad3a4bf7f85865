package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"ccsite/build"
)

// stateFlags adds -o and --state: which site's state (and archive) a
// command works on.
func stateFlags(fs *flag.FlagSet) (site, state *string) {
	site = fs.String("o", "site", "the site `DIR` (its state folder holds the archive)")
	state = fs.String("state", "", "the site's state `DIR` (default: the one ccsite build uses for -o)")
	return site, state
}

func stateOf(site, state string, getenv func(string) string) string {
	if state != "" {
		return state
	}
	return build.DefaultStateDir(site, getenv)
}

// runForget removes kept sessions from a site's archive.
func runForget(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("forget", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site, state := stateFlags(fs)
	project := fs.String("project", "", "forget every session of the projects whose path (or last path element) matches `GLOB`")
	before := fs.String("before", "", "forget the sessions started before `DATE` (YYYY-MM-DD)")
	ids, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	sel := build.ForgetSelect{Sessions: ids, Project: *project}
	if *before != "" {
		t, err := time.Parse("2006-01-02", *before)
		if err != nil {
			fmt.Fprintf(stderr, "ccsite forget: --before %q: want a date such as 2026-01-31\n", *before)
			return exitUsage
		}
		sel.Before = t
	}
	if len(ids) == 0 && *project == "" && *before == "" {
		fmt.Fprintln(stderr, "ccsite forget: name sessions (their ids), --project GLOB or --before DATE")
		return exitUsage
	}
	f, err := build.Forget(stateOf(*site, *state, getenv), sel)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite forget: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "ccsite forget: %d session(s) and %d kept file(s) removed from the archive of %s; the next build removes their pages\n", f.Sessions, f.Files, *site)
	if f.StillThere > 0 {
		fmt.Fprintf(stderr, "ccsite forget: %d of them still have their file in place: the next build reads and keeps them again (delete them, or build with --exclude-session)\n", f.StillThere)
	}
	return exitOK
}

// runArchive runs "archive export".
func runArchive(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] != "export" {
		fmt.Fprintln(stderr, "usage: ccsite archive export [-o SITE] [--state DIR] DIR")
		return exitUsage
	}
	fs := flag.NewFlagSet("archive export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site, state := stateFlags(fs)
	rest, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil || len(rest) != 1 {
		if err == nil {
			fmt.Fprintln(stderr, "usage: ccsite archive export [-o SITE] [--state DIR] DIR")
		}
		return exitUsage
	}
	n, err := build.ExportArchive(stateOf(*site, *state, getenv), rest[0])
	if err != nil {
		fmt.Fprintf(stderr, "ccsite archive export: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "ccsite archive export: wrote %d file(s) to %s\n", n, rest[0])
	return exitOK
}
