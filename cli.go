package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"ccsite/build"
	"ccsite/build/archive"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/demo"
	"ccsite/search"
	"ccsite/theme"
)

// Exit codes.
const (
	exitOK    = 0 // done, even when the input had problems
	exitFail  = 1 // nothing could be read or written
	exitUsage = 2 // the command line is wrong
	exitBusy  = 3 // another build kept the output folder past --wait
)

const usage = `ccsite turns Claude Code session transcripts into a static website.

Usage:
  ccsite build [-o DIR] [--state DIR] [--theme NAME] [--theme-dir DIR] [--base-url URL] [--json]
               [--workers N] [--no-search] [--force] [--quiet] [--no-cache] [--report FILE.json]
               [SAFETY...] [EXCLUSIONS...] [PATH...]
        Write the site: a page per session and sub-agent (and its Markdown),
        per project, and an index (default DIR: ./site). A build into a
        previous site redoes only what changed (--force: everything). The
        build's state (manifest, search index) is kept outside DIR, in
        --state DIR (default: $CCSITE_STATE_HOME or ~/.local/state/ccsite/sites/…).
        EXCLUSIONS: --exclude-project GLOB, --exclude-session ID, --since DATE,
        --until DATE (each repeatable but the dates).
  ccsite share [-o FILE.html] [--theme NAME] [--theme-dir DIR] [SAFETY...] SESSION.jsonl
        Write one session, its sub-agents included, as a single
        self-contained HTML file that opens offline.
  ccsite theme export DIR
        Write the default templates and assets to DIR for editing; use the
        folder with --theme-dir (any file there overrides the default of the
        same path; a template file may redefine single {{define}} blocks).
  ccsite theme list
  ccsite serve [--addr 127.0.0.1:8080] [--watch] [--interval 1s] [--state DIR] [SITE]
        Serve a built site (default ./site) and its search API; --watch rebuilds on change.
  ccsite search [--site DIR] [--state DIR] [--json] [--project P] [--tool T] [--role R] [-n N] QUERY
        Search a built site's index: all words must match, "quoted phrases",
        and filters (also inline: project:P tool:T role:R after:DATE before:DATE).
  ccsite inspect [--json] [--workers N] [PATH...]
        Read transcripts and print, per session, its title, stats, turns,
        branches, sub-agents and problems (--json: the whole model).
  ccsite usage [--by day|project|session|model] [--json|--csv] [--pricing FILE] [PATH...]
        Print tokens (input, output, cache writes and reads) and their cost
        per group and in total, sub-agents with their session, without
        building a site; a model with no price is counted as unknown ("?").
  ccsite forget [-o SITE] [--project GLOB] [--before DATE] [SESSION...]
        Remove kept sessions from the site's archive (every build keeps a
        copy of each transcript it reads, so sessions Claude Code deletes
        stay); the next build removes their pages.
  ccsite archive export [-o SITE] DIR
        Write the kept transcripts back out as a projects tree.
  ccsite version

SAFETY (build and share): secrets are redacted by default; --redact REGEX,
--redact-file FILE add your own, --no-redact turns it off (with a warning),
--anonymize-paths writes ~ and "user", --no-thinking and --no-tool-output
leave those out.

PATH is a folder (searched recursively) or a .jsonl file. Without PATH:
$CLAUDE_CONFIG_DIR/projects (comma-separated list allowed), else
~/.claude/projects and ~/.config/claude/projects; when those hold no
transcript, the built-in demo archive.

Exit status: 0 when the site was built or the input read (problems in it
are reported, not fatal), 1 when it could not be (nothing to read, an
output folder that is not a site, a write error, an interrupted build), 2
for a usage error.
`

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "build":
		return runBuild(ctx, args[1:], stdout, stderr, getenv)
	case "share":
		return runShare(ctx, args[1:], stdout, stderr)
	case "theme":
		return runTheme(args[1:], stdout, stderr)
	case "search":
		return runSearch(ctx, args[1:], stdout, stderr, getenv)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "inspect":
		return runInspect(ctx, args[1:], stdout, stderr, getenv)
	case "usage":
		return runUsage(ctx, args[1:], stdout, stderr, getenv)
	case "forget":
		return runForget(args[1:], stdout, stderr, getenv)
	case "archive":
		return runArchive(args[1:], stdout, stderr, getenv)
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
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	paths, cleanup, err := inputPaths(paths, getenv, stderr, "inspect", nil)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite inspect: %v\n", err)
		return exitFail
	}
	defer cleanup()
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

// inputPaths returns the paths to read: those named, else the default roots
// when they hold any transcript, else the embedded demo archive, extracted
// under the user's cache folder (saying so on stderr). cleanup releases what
// it set up.
func inputPaths(named []string, getenv func(string) string, stderr io.Writer, cmd string, kept func(roots []string) bool) (paths []string, cleanup func(), err error) {
	cleanup = func() {}
	if len(named) > 0 {
		return named, cleanup, nil
	}
	home, _ := os.UserHomeDir()
	if h := getenv("HOME"); h != "" {
		home = h
	}
	roots := archive.DefaultRoots(getenv, home)
	// A site whose archive keeps sessions of these roots is built from
	// them even when Claude Code has deleted every file: never the demo.
	if hasTranscripts(roots) || (kept != nil && kept(roots)) {
		return roots, cleanup, nil
	}
	// A fixed place, so building the demo twice gives the same site.
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	root, err := demo.Extract(filepath.Join(base, "ccsite", "demo"))
	if err != nil {
		return nil, cleanup, err
	}
	where := "~/.claude/projects"
	if v := getenv("CLAUDE_CONFIG_DIR"); v != "" {
		where = "$CLAUDE_CONFIG_DIR/projects (" + v + ")"
	}
	fmt.Fprintf(stderr, "ccsite %s: no transcripts in %s; showing the built-in demo archive instead (name folders or .jsonl files to read your own)\n", cmd, where)
	return []string{root}, cleanup, nil
}

// hasTranscripts reports whether any root holds a .jsonl file, following
// symbolic links (a root or a project folder a dotfile manager linked) a
// few levels deep.
func hasTranscripts(roots []string) bool {
	for _, r := range roots {
		if holdsTranscript(r, 0) {
			return true
		}
	}
	return false
}

func holdsTranscript(root string, depth int) bool {
	real, err := filepath.EvalSymlinks(root)
	if err != nil || depth > 4 {
		return false
	}
	found := false
	filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return fs.SkipAll
		}
		if strings.HasSuffix(p, ".jsonl") && !d.IsDir() {
			found = true
			return fs.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 && holdsTranscript(p, depth+1) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// buildFlagSet holds the flags of ccsite build.
type buildFlagSet struct {
	out, state, themeName, themeDir, baseURL, report *string
	pricing                                          *string
	workers                                          *int
	asJSON, noSearch, force, quiet, noCache          *bool
	wait                                             *time.Duration
	rf                                               *redactFlags
	ef                                               *excludeFlags
}

// declareBuildFlags declares the flags of ccsite build on fs: the one
// declaration, which serve --watch also reads recorded builds with.
func declareBuildFlags(fs *flag.FlagSet) *buildFlagSet {
	bf := &buildFlagSet{}
	bf.out = fs.String("o", "site", "write the site to `DIR`")
	bf.state = fs.String("state", "", "keep the build's state (manifest, journal, search index) in `DIR`, outside the site (default: $CCSITE_STATE_HOME, else ~/.local/state/ccsite, in sites/<name>-<hash>)")
	bf.workers = fs.Int("workers", 0, "parse and render with N workers (default: one per CPU)")
	bf.themeName, bf.themeDir = themeFlags(fs)
	bf.baseURL = fs.String("base-url", "", "the site's public `URL`: adds canonical links and sitemap.xml")
	bf.asJSON = fs.Bool("json", false, "also write each session's model as <session>.json")
	bf.noSearch = fs.Bool("no-search", false, "build no search index, search page or search box")
	bf.rf = addRedactFlags(fs)
	bf.ef = addExcludeFlags(fs)
	bf.report = fs.String("report", "", "write every problem, exclusion and redaction count to `FILE.json`")
	bf.force = fs.Bool("force", false, "rebuild every page, even those whose input has not changed")
	bf.quiet = fs.Bool("quiet", false, "print only warnings and errors: no progress, no summary")
	bf.noCache = fs.Bool("no-cache", false, "do not keep highlighted code between builds ($CCSITE_CACHE_DIR, else the user cache folder)")
	bf.wait = fs.Duration("wait", 5*time.Minute, "wait up to `DURATION` for another build writing the same folder (0: do not wait)")
	bf.pricing = fs.String("pricing", "", "price tokens with the pricing `FILE` laid over the embedded table (see build/pricing)")
	return bf
}

func runBuild(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bf := declareBuildFlags(fs)
	out, state, workers, themeName, themeDir, baseURL := bf.out, bf.state, bf.workers, bf.themeName, bf.themeDir, bf.baseURL
	asJSON, noSearch, rf, ef, report, force := bf.asJSON, bf.noSearch, bf.rf, bf.ef, bf.report, bf.force
	quiet, noCache, wait := bf.quiet, bf.noCache, bf.wait
	paths, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	excl, err := ef.exclude()
	if err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitUsage
	}
	base, err := normalizeBaseURL(*baseURL)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitUsage
	}
	if _, err := theme.Open(*themeName, *themeDir); err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitUsage
	}
	red, err := rf.redactor("build", stderr, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitUsage
	}
	if *state == "" {
		*state = build.DefaultStateDir(*out, getenv)
	}
	paths, cleanup, err := inputPaths(paths, getenv, stderr, "build", func(roots []string) bool { return build.KeepsFrom(*state, roots) })
	if err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitFail
	}
	defer cleanup()
	cfg := build.Config{Paths: paths, Out: *out, State: *state, Workers: *workers,
		Theme: *themeName, ThemeDir: *themeDir, BaseURL: base, JSON: *asJSON, NoSearch: *noSearch, Redact: red,
		Exclude: excl, Omit: rf.omit(), Force: *force, LockWait: *wait, Pricing: *bf.pricing,
		OnWait: func() {
			fmt.Fprintf(stderr, "ccsite build: another build is writing %s; waiting for it (up to %s, --wait sets how long)\n", *out, *wait)
		}}
	if !*noCache {
		cfg.CacheDir = build.DefaultCacheDir(getenv)
	}
	var stopBar, barDone chan struct{}
	if !*quiet && isTerminal(stderr) {
		cfg.Progress = &build.Progress{}
		stopBar, barDone = make(chan struct{}), make(chan struct{})
		go showProgress(stderr, cfg.Progress, stopBar, barDone)
	}
	sum, err := build.Run(ctx, cfg)
	if stopBar != nil {
		close(stopBar)
		<-barDone
	}
	for _, g := range sum.Excluded.Unmatched {
		fmt.Fprintf(stderr, "ccsite build: warning: the exclusion %q matched nothing\n", g)
	}
	if err != nil {
		// A problem with the input or the output folder is said as it is;
		// a failure later on names the phase it happened in.
		var pe *build.PhaseError
		if errors.As(err, &pe) && pe.UserFacing() {
			err = pe.Err
		}
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		if errors.Is(err, build.ErrLocked) {
			return exitBusy
		}
		return exitFail
	}
	for _, u := range sum.Unreadable {
		fmt.Fprintf(stderr, "ccsite build: could not read %s\n", u)
	}
	for i, sk := range sum.Skipped {
		if i == 10 {
			fmt.Fprintf(stderr, "ccsite build: skipped %d more path(s) (--report lists them)\n", len(sum.Skipped)-i)
			break
		}
		fmt.Fprintf(stderr, "ccsite build: skipped %s: %s\n", sk.Path, sk.Reason)
	}
	info := stderr
	if *quiet {
		info = io.Discard
	}
	if sum.CacheErr != nil {
		fmt.Fprintf(stderr, "ccsite build: warning: highlight cache: %v\n", sum.CacheErr)
	}
	if sum.Recovered {
		fmt.Fprintf(stderr, "ccsite build: the last build was interrupted; this one rebuilt everything\n")
	}
	fmt.Fprintf(info, "ccsite build: %d projects, %d sessions, %d sub-agent pages, %d orphan sub-agents, %d problems; %d pages from %.1f MB in %s → %s\n",
		sum.Projects, sum.Sessions, sum.Agents, sum.Orphans, sum.Problems, sum.Pages,
		float64(sum.Bytes)/(1<<20), sum.Elapsed.Round(time.Millisecond), filepath.Join(*out, "index.html"))
	var phases []string
	for _, p := range sum.Phases {
		phases = append(phases, fmt.Sprintf("%s %s", p.Name, p.Took.Round(time.Millisecond)))
	}
	fmt.Fprintf(info, "ccsite build: %d pages written (%.1f MB), %d sessions kept from the last build; %s\n",
		sum.Rendered, float64(sum.Written)/(1<<20), sum.Kept, strings.Join(phases, ", "))
	if x := sum.Excluded; x.Projects+x.Sessions+x.Agents > 0 {
		undated := ""
		if x.Undated > 0 {
			undated = fmt.Sprintf(" (%d with no date)", x.Undated)
		}
		fmt.Fprintf(info, "ccsite build: left out %d project(s), %d session(s)%s, %d sub-agent file(s)\n", x.Projects, x.Sessions, undated, x.Agents)
	}
	if a := sum.Archive; a.Files > 0 {
		fmt.Fprintf(info, "ccsite build: archive: %d session(s) kept only in the archive (their files are gone); %d files, %.1f MB of transcripts kept in %.1f MB\n",
			sum.Archived, a.Files, float64(a.SourceBytes)/(1<<20), float64(a.StoredBytes)/(1<<20))
	}
	reportSiteRedactions(info, sum)
	reportSessions(info, sum.Redactions)
	if st := sum.Search; st.TextBytes > 0 {
		fmt.Fprintf(info, "ccsite build: search: %d documents, %.1f MB of text; static index %d files, %.1f MB (%.2fx the text)\n",
			sum.Docs, float64(st.TextBytes)/(1<<20), st.Files, float64(st.Bytes)/(1<<20), float64(st.Bytes)/float64(st.TextBytes))
	}
	if err := recordBuild(*out, args, getenv); err != nil {
		// Only serve --watch needs it.
		fmt.Fprintf(stderr, "ccsite build: warning: build record: %v\n", err)
	}
	if *report != "" {
		if err := writeReport(*report, paths, sum); err != nil {
			fmt.Fprintf(stderr, "ccsite build: report: %v\n", err)
			return exitFail
		}
	}
	return exitOK
}

// normalizeBaseURL checks an absolute http(s) URL and gives it a final "/".
func normalizeBaseURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--base-url %q: want an absolute http(s) URL such as https://example.org/sessions/", s)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

func runShare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("share", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write to `FILE` (default: <session>.html in the current folder)")
	themeName, themeDir := themeFlags(fs)
	rf := addRedactFlags(fs)
	paths, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(paths) != 1 {
		fmt.Fprintln(stderr, "ccsite share: name exactly one session .jsonl file")
		return exitUsage
	}
	if _, err := theme.Open(*themeName, *themeDir); err != nil {
		fmt.Fprintf(stderr, "ccsite share: %v\n", err)
		return exitUsage
	}
	red, err := rf.redactor("share", stderr, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite share: %v\n", err)
		return exitUsage
	}
	target := *out
	if target == "" {
		target = strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl") + ".html"
	}
	n, err := build.Share(ctx, build.ShareConfig{File: paths[0], Out: target, Theme: *themeName, ThemeDir: *themeDir, Redact: red, Omit: rf.omit()})
	if err != nil {
		fmt.Fprintf(stderr, "ccsite share: %v\n", err)
		return exitFail
	}
	agents := ""
	if n > 0 {
		agents = fmt.Sprintf(" with %d sub-agent(s)", n)
	}
	reportRedactions("share", red, stderr)
	fmt.Fprintf(stderr, "ccsite share: wrote %s%s (one file, opens offline)\n", target, agents)
	return exitOK
}

func runTheme(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "list" {
		for _, n := range theme.Names() {
			fmt.Fprintln(stdout, n)
		}
		return exitOK
	}
	if len(args) != 2 || args[0] != "export" {
		fmt.Fprintln(stderr, "usage: ccsite theme export DIR | ccsite theme list")
		return exitUsage
	}
	written, err := theme.Export(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "ccsite theme export: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stderr, "ccsite theme export: wrote %d files to %s; edit them and build with --theme-dir %s\n", len(written), args[1], args[1])
	return exitOK
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	site := fs.String("site", "site", "the built site `DIR` whose index to search")
	state := fs.String("state", "", "the site's build state `DIR` (where its index is); default: the one ccsite build uses for --site")
	asJSON := fs.Bool("json", false, "write the results as JSON")
	project := fs.String("project", "", "only this project (its path or last path element)")
	tool := fs.String("tool", "", "only calls of this tool")
	role := fs.String("role", "", "only this role: prompt, answer, thinking, tool, agent")
	size := fs.Int("n", 10, "at most `N` results")
	words, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if *state == "" {
		*state = build.DefaultStateDir(*site, getenv)
	}
	idx, err := search.Open(build.IndexPath(*state))
	if err != nil {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitFail
	}
	defer idx.Close()
	res, err := idx.Search(ctx, search.Query{Text: strings.Join(words, " "), Project: *project, Tool: *tool, Role: *role, Size: *size})
	if errors.Is(err, search.ErrEmpty) {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitFail
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return exitFail
		}
		return exitOK
	}
	for i, h := range res.Hits {
		what := h.Role
		if h.Tool != "" {
			what += " " + h.Tool
		}
		fmt.Fprintf(stdout, "%d. %s  [%s · %s · %s]\n   %s\n   %s\n", i+1, h.Title, archive.ShortName(h.Project), what,
			h.Time.UTC().Format("2006-01-02 15:04"), plainSnippet(h.Snippet), filepath.Join(*site, filepath.FromSlash(h.Page))+"#"+h.Anchor)
	}
	fmt.Fprintf(stdout, "%d of %d results in %s\n", len(res.Hits), res.Total, res.Took.Round(time.Microsecond))
	return exitOK
}

// plainSnippet turns a snippet's HTML into terminal text, matches in [ ].
func plainSnippet(s string) string {
	s = strings.NewReplacer("<mark>", "[", "</mark>", "]").Replace(s)
	return html.UnescapeString(s)
}

// themeFlags adds --theme and --theme-dir to a command's flags.
func themeFlags(fs *flag.FlagSet) (name, dir *string) {
	name = fs.String("theme", "", "built-in theme `NAME` ("+strings.Join(theme.Names(), ", ")+")")
	dir = fs.String("theme-dir", "", "`DIR` of templates/ and assets/ overriding the theme's")
	return name, dir
}

// redactFlags are the publishing-safety flags build and share share.
type redactFlags struct {
	patterns     []string
	files        []string
	off          bool
	anonymize    bool
	noThinking   bool
	noToolOutput bool
}

// omit is what the flags leave out of the pages.
func (rf *redactFlags) omit() omit.Options {
	return omit.Options{Thinking: rf.noThinking, ToolOutput: rf.noToolOutput}
}

// excludeFlags are build's flags that leave projects and sessions out.
type excludeFlags struct {
	projects, sessions []string
	since, until       string
}

func addExcludeFlags(fs *flag.FlagSet) *excludeFlags {
	ef := &excludeFlags{}
	fs.Func("exclude-project", "leave out the projects whose path, name or folder matches `GLOB` (repeatable)", func(s string) error {
		ef.projects = append(ef.projects, s)
		return nil
	})
	fs.Func("exclude-session", "leave out the session with this `ID` (or glob; repeatable), its sub-agents too", func(s string) error {
		ef.sessions = append(ef.sessions, s)
		return nil
	})
	fs.StringVar(&ef.since, "since", "", "only sessions started on or after `DATE` (2006-01-02 or RFC 3339, UTC)")
	fs.StringVar(&ef.until, "until", "", "only sessions started on or before `DATE` (a whole day when no time is given)")
	return ef
}

func (ef *excludeFlags) exclude() (build.Exclude, error) {
	e := build.Exclude{Projects: ef.projects, Sessions: ef.sessions}
	var err error
	if ef.since != "" {
		if e.Since, err = build.ParseDate(ef.since, false); err != nil {
			return e, fmt.Errorf("--since: %v", err)
		}
	}
	if ef.until != "" {
		if e.Until, err = build.ParseDate(ef.until, true); err != nil {
			return e, fmt.Errorf("--until: %v", err)
		}
	}
	return e, e.Validate()
}

func addRedactFlags(fs *flag.FlagSet) *redactFlags {
	rf := &redactFlags{}
	fs.Func("redact", "also redact what `REGEX` matches (repeatable; a group redacts just the group)", func(s string) error {
		rf.patterns = append(rf.patterns, s)
		return nil
	})
	fs.Func("redact-file", "also redact each line of `FILE` as a literal string (repeatable)", func(s string) error {
		rf.files = append(rf.files, s)
		return nil
	})
	fs.BoolVar(&rf.off, "no-redact", false, "publish secrets as they are (private builds only)")
	fs.BoolVar(&rf.anonymize, "anonymize-paths", false, "write the home folder as ~ and the user name as user, project names included")
	fs.BoolVar(&rf.noThinking, "no-thinking", false, "leave the model's thinking out")
	fs.BoolVar(&rf.noToolOutput, "no-tool-output", false, "leave out what tools returned (the calls stay)")
	return rf
}

// redactor makes the Redactor the flags ask for; errors are usage errors.
func (rf *redactFlags) redactor(cmd string, stderr io.Writer, getenv func(string) string) (*redact.Redactor, error) {
	opts := redact.Options{Secrets: !rf.off, Anonymize: rf.anonymize}
	for _, p := range rf.patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("--redact %q: %v", p, err)
		}
		opts.Patterns = append(opts.Patterns, re)
	}
	for _, f := range rf.files {
		lits, err := redact.ReadLiterals(f)
		if err != nil {
			return nil, fmt.Errorf("--redact-file: %v", err)
		}
		opts.Literals = append(opts.Literals, lits...)
	}
	if rf.anonymize {
		opts.Home, _ = os.UserHomeDir()
		if u, err := user.Current(); err == nil {
			opts.User = u.Username
		}
		if v := getenv("CCSITE_ANON_HOME"); v != "" { // for tests
			opts.Home = v
		}
		if v := getenv("CCSITE_ANON_USER"); v != "" {
			opts.User = v
		}
	}
	if rf.off {
		fmt.Fprintf(stderr, "ccsite %s: warning: --no-redact: secrets in the transcripts are written as they are; do not publish this output\n", cmd)
	}
	return redact.New(opts)
}

// reportRedactions prints the redaction counts by rule and by file (never
// the values).
func reportRedactions(cmd string, red *redact.Redactor, stderr io.Writer) {
	if !red.Active() {
		return
	}
	byRule, byFile := red.Counts()
	total := 0
	for _, n := range byRule {
		total += n
	}
	if total == 0 {
		fmt.Fprintf(stderr, "ccsite %s: redacted nothing\n", cmd)
		return
	}
	fmt.Fprintf(stderr, "ccsite %s: redacted %d secret(s) in %d file(s): %s\n", cmd, total, len(byFile), ruleList(byRule))
}

// reportSiteRedactions prints a build's redaction counts by rule: those of
// the pages it wrote and of those it kept.
func reportSiteRedactions(w io.Writer, sum build.Summary) {
	if !sum.Redacting {
		return
	}
	byRule, total, files := map[string]int{}, 0, 0
	for _, r := range sum.Redactions {
		files += len(r.Files)
		for k, n := range r.ByRule {
			byRule[k] += n
			total += n
		}
	}
	if total == 0 {
		fmt.Fprintf(w, "ccsite build: redacted nothing\n")
		return
	}
	fmt.Fprintf(w, "ccsite build: redacted %d secret(s) in %d file(s): %s\n", total, files, ruleList(byRule))
}

// reportSessions prints the sessions with the most redactions.
func reportSessions(stderr io.Writer, rs []build.SessionRedactions) {
	const most = 10
	for i, r := range rs {
		if i == most {
			fmt.Fprintf(stderr, "ccsite build:   … and %d more session(s) (--report FILE.json lists them all)\n", len(rs)-most)
			break
		}
		where := r.Page
		if where == "" {
			where = r.Session
		}
		fmt.Fprintf(stderr, "ccsite build:   %d in %s (%s): %s\n", r.Total, where, oneLine(r.Title, 60), ruleList(r.ByRule))
	}
}

func ruleList(byRule map[string]int) string {
	var rules []string
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if byRule[rules[i]] != byRule[rules[j]] {
			return byRule[rules[i]] > byRule[rules[j]]
		}
		return rules[i] < rules[j]
	})
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %d", r, byRule[r])
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
