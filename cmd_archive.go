package main

import (
	"fmt"
	"time"

	"ccsite/build"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// stateFlags adds -o/--site and --state: which site's state (and archive)
// a command works on.
func stateFlags(fs *pflag.FlagSet) (site, state *string) {
	site = fs.StringP("site", "o", "site", "the site `DIR` (its state folder holds the archive)")
	state = fs.String("state", "", "the site's state `DIR` (default: the one ccsite build uses for the site)")
	return site, state
}

// stateOf is the state folder the command works on: --state, else the
// site's (an error when no home folder can hold it).
func stateOf(site, state string, getenv func(string) string) (string, error) {
	if state != "" {
		return state, nil
	}
	return stateDir(site, getenv)
}

// stateDir is build.StateDir; a variable for the tests (build's lookup of
// the home folder cannot be made to fail from here).
var stateDir = build.StateDir

// sizeText says n bytes in B, KB or MB.
func sizeText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

func newForgetCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "forget [flags] [SESSION...]",
		Short: "Remove kept sessions from a site's archive",
		Long: `Remove sessions from the archive of kept transcripts in the site's state
folder (every build keeps a copy of each transcript it reads, so sessions
Claude Code deletes stay); the next build removes their pages. Name sessions
by id, or select them with --project or --before.

Their bytes are erased from the state folder: their kept copies (unless
another kept file holds the same bytes), their restored files, and the
build's manifest and search index, which hold their titles and words (the
next build makes every page and the search index again). The highlight
cache ($CCSITE_CACHE_DIR, else the user cache folder), which holds their
code, is cleared too. A build of the site must not be running.`,
		Example: `  ccsite forget 0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5
  ccsite forget -o public --project '*scratch*'
  ccsite forget --before 2025-06-01`,
	}
	f := c.Flags()
	site, state := stateFlags(f)
	project := f.StringP("project", "p", "", "forget every session of the projects whose path (or last path element) matches `GLOB`")
	before := f.String("before", "", "forget the sessions started before `DATE` (YYYY-MM-DD)")
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, ids []string) error {
		sel := build.ForgetSelect{Sessions: ids, Project: *project}
		if *before != "" {
			t, err := time.Parse("2006-01-02", *before)
			if err != nil {
				return usagef("--before %q: want a date such as 2026-01-31", *before)
			}
			sel.Before = t
		}
		if len(ids) == 0 && *project == "" && *before == "" {
			return usagef("name sessions (their ids), --project GLOB or --before DATE")
		}
		dir, err := stateOf(*site, *state, e.getenv)
		if err != nil {
			fmt.Fprintf(e.stderr, "ccsite forget: %v\n", err)
			return exitStatus(exitFail)
		}
		// The build's highlight cache (build.DefaultCacheDir, as build
		// finds it) holds their code: it goes too.
		f, err := build.ForgetErasing(e.ctx, *site, dir, build.DefaultCacheDir(e.getenv), sel)
		if err != nil {
			fmt.Fprintf(e.stderr, "ccsite forget: %v\n", err)
			return exitStatus(exitFail)
		}
		if f.Files == 0 {
			fmt.Fprintf(e.stdout, "ccsite forget: no kept session of %s matches: nothing removed\n", *site)
			return nil
		}
		fmt.Fprintf(e.stdout, "ccsite forget: %d session(s) and %d kept file(s) removed from the archive of %s, %s erased; the next build removes their pages\n", f.Sessions, f.Files, *site, sizeText(f.Bytes))
		switch {
		case f.Rebuild && f.Cache:
			fmt.Fprintf(e.stdout, "ccsite forget: the build's manifest, search index and highlight cache went too (they held their titles, words and code): the next build makes every page again\n")
		case f.Rebuild:
			fmt.Fprintf(e.stdout, "ccsite forget: the build's manifest and search index went too (they held their titles and words): the next build makes every page again\n")
		}
		if f.StillThere > 0 {
			fmt.Fprintf(e.stderr, "ccsite forget: %d of them still have their file in place: the next build reads and keeps them again (delete them, or build with --exclude-session)\n", f.StillThere)
		}
		return nil
	}
	return c
}

func newArchiveCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "archive COMMAND",
		Short: "Work on a site's archive of kept transcripts",
		Long: `Every build keeps a copy of each transcript it reads in the site's state
folder (zstd, deduplicated, private), so sessions Claude Code deletes stay.`,
		Example: "  ccsite archive export backup",
		RunE:    groupRun,
	}
	x := &cobra.Command{
		Use:   "export [flags] DIR",
		Short: "Write the kept transcripts back out as a projects tree",
		Long: `Write the kept transcripts back out as a projects tree, byte for byte (for
another tool, or for Claude Code's --resume).

DIR may be the live projects folder: a file already there is never
overwritten. One with the kept bytes is left as it is; one with other bytes
(a newer copy) too, and the kept copy is written beside it as
<name>.archived (a name Claude Code does not read as a session), each such
file named.`,
		Example: "  ccsite archive export backup\n  ccsite archive export -o public ~/restored/projects",
		Args:    cobra.ExactArgs(1),
	}
	site, state := stateFlags(x.Flags())
	x.RunE = func(c *cobra.Command, args []string) error {
		dir, err := stateOf(*site, *state, e.getenv)
		if err != nil {
			fmt.Fprintf(e.stderr, "ccsite archive export: %v\n", err)
			return exitStatus(exitFail)
		}
		res, err := build.ExportKept(dir, args[0])
		for _, b := range res.Beside {
			fmt.Fprintf(e.stderr, "ccsite archive export: %s differs from the kept copy: left as it is, the kept copy is %s\n", b.Path, b.Copy)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "ccsite archive export: %v\n", err)
			return exitStatus(exitFail)
		}
		fmt.Fprintf(e.stdout, "ccsite archive export: wrote %d file(s) to %s", res.Written, args[0])
		if res.Same > 0 {
			fmt.Fprintf(e.stdout, "; %d already there, the same", res.Same)
		}
		if len(res.Beside) > 0 {
			fmt.Fprintf(e.stdout, "; %d there with other bytes, left as they are (kept copies beside them)", len(res.Beside))
		}
		fmt.Fprintln(e.stdout)
		return nil
	}
	c.AddCommand(x)
	return c
}
