package main

import (
	"errors"
	"fmt"
	"os"

	"ccsite/build"
	"ccsite/build/archive"

	"github.com/spf13/cobra"
)

const reviewLong = `List every redaction a build would make, before anything is published:
each finding's rule, file and line, its id, and a few characters of the
redacted text around it (the secret itself never). The list is written as
review.html (and review.json) to the site's state folder, never into the
site; a summary by rule goes to stdout.

A finding that is not a secret: put its id (sha256:…) on a line of a file
and give build or share --allow-file FILE. Something missed:
--redact REGEX or --redact-file FILE, then review again with the same flags.

PATH and the exclusion flags are build's; without PATH, build's default
folders. Sessions the site's archive keeps whose files are gone are
reviewed too, as a build would restore them.

Exit status: 0 reviewed, 1 not (nothing to read, the state folder inside
the site, a write error), 2 a usage error.`

func newReviewCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "review [flags] [PATH...]",
		Short: "List every redaction in context, on a page in the state folder",
		Long:  reviewLong,
		Example: `  ccsite review                          # the default folders, site ./site
  ccsite review -o public --redact 'ACME-[0-9]+'
  ccsite review --state /tmp/review ~/old-projects
  ccsite build --allow-file not-secrets.txt`,
	}
	f := c.Flags()
	site, state := stateFlags(f)
	rf := addRedactFlags(f)
	ef := addExcludeFlags(f)
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, paths []string) error {
		return status(runReview(e, *site, *state, rf, ef, paths))
	}
	return c
}

func runReview(e *env, site, stateDir string, rf *redactFlags, ef *excludeFlags, paths []string) int {
	stderr := e.stderr
	excl, err := ef.exclude()
	if err != nil {
		fmt.Fprintf(stderr, "ccsite review: %v\n", err)
		return exitUsage
	}
	if rf.off {
		fmt.Fprintf(stderr, "ccsite review: --no-redact: there is nothing to review without redaction\n")
		return exitUsage
	}
	opts, err := rf.options(e.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite review: %v\n", err)
		return exitUsage
	}
	dir, err := stateOf(site, stateDir, e.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite review: %v\n", err)
		return exitFail
	}
	// Before anything is read: the page goes to the state folder, never
	// into the site.
	if err := build.CheckStatePlace(site, dir); err != nil {
		fmt.Fprintf(stderr, "ccsite review: %v\n", err)
		return exitFail
	}
	paths, cleanup, err := inputPaths(paths, e.getenv, stderr, "review", func(roots []string) bool { return build.KeepsFrom(dir, roots) })
	if err != nil {
		fmt.Fprintf(stderr, "ccsite review: %v\n", err)
		return exitFail
	}
	defer cleanup()
	home, _ := os.UserHomeDir()
	if h := e.getenv("HOME"); h != "" {
		home = h
	}
	rep, err := build.Review(e.ctx, build.ReviewConfig{Paths: paths, Out: site, State: dir, Redact: opts,
		Exclude: excl, Omit: rf.omit(), Home: home})
	if err != nil {
		msg := err.Error()
		if errors.Is(err, archive.ErrNothing) {
			msg += " (looked for *.jsonl files)"
		}
		fmt.Fprintf(stderr, "ccsite review: %s\n", msg)
		return exitFail
	}
	for _, g := range rep.Excluded.Unmatched {
		fmt.Fprintf(stderr, "ccsite review: warning: the exclusion %q matched nothing\n", g)
	}
	printReview(e, rep)
	return exitOK
}

// printReview prints the counts by rule, the total and where the page is:
// never a value.
func printReview(e *env, rep *build.ReviewReport) {
	w := e.stdout
	read := fmt.Sprintf("%d file(s), %d line(s)", rep.Files, rep.Lines)
	if rep.Kept > 0 {
		read += fmt.Sprintf(", %d kept in the archive", rep.Kept)
	}
	if rep.Total == 0 {
		fmt.Fprintf(w, "ccsite review: read %s: redaction hides nothing\n", read)
	} else {
		fmt.Fprintf(w, "ccsite review: read %s: %d finding(s)\n", read, rep.Total)
		width := len("total")
		for _, r := range rep.Rules {
			width = max(width, len(r.Rule))
		}
		for _, r := range rep.Rules {
			if r.Distinct > 0 {
				fmt.Fprintf(w, "  %-*s %6d  (%d value(s))\n", width, r.Rule, r.Count, r.Distinct)
			} else {
				fmt.Fprintf(w, "  %-*s %6d\n", width, r.Rule, r.Count)
			}
		}
		fmt.Fprintf(w, "  %-*s %6d\n", width, "total", rep.Total)
	}
	fmt.Fprintf(w, "ccsite review: wrote %s (and %s)\n", rep.Page, rep.JSON)
	if rep.Total > 0 {
		fmt.Fprintf(w, "ccsite review: not a secret? put its id on a line of a file and build with --allow-file FILE\n")
	}
}
