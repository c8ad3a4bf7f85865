package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"ccsite/build"
	"ccsite/build/agents"
	"ccsite/build/archive"
	"ccsite/build/gitsrc"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/build/session"
	"ccsite/demo"
	"ccsite/search"
	"ccsite/theme"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes.
const (
	exitOK    = 0 // done, even when the input had problems
	exitFail  = 1 // nothing could be read or written
	exitUsage = 2 // the command line is wrong
	exitBusy  = 3 // another build kept the output folder past --wait
)

func newInspectCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "inspect [flags] [PATH...]",
		Short: "Print what the transcripts hold, session by session",
		Long: `Read transcripts and print, per project and session: its title (and where
it came from), file, times, turns, messages, tool calls, tokens, branches,
sub-agents and how they were linked, and every problem as file:line. With
--json, the whole model as one document (schema ccsite.inspect/1).`,
		Example: `  ccsite inspect                    # the default folders
  ccsite inspect ~/old-projects --json > model.json
  ccsite inspect session.jsonl`,
	}
	f := c.Flags()
	asJSON := f.BoolP("json", "j", false, "write the whole model as one JSON document (schema in docs/transcripts.md)")
	workers := f.Int("workers", 0, "parse with `N` workers (default: one per CPU)")
	c.RunE = func(c *cobra.Command, paths []string) error {
		return status(runInspect(e, paths, *asJSON, *workers))
	}
	return c
}

func runInspect(e *env, paths []string, asJSON bool, workers int) int {
	stderr := e.stderr
	paths, cleanup, err := inputPaths(paths, e.getenv, stderr, "inspect", nil)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite inspect: %v\n", err)
		return exitFail
	}
	defer cleanup()
	t, err := build.Inspect(e.ctx, e.stdout, build.InspectOptions{Paths: paths, JSON: asJSON, Workers: workers})
	if err != nil {
		msg := err.Error()
		if errors.Is(err, archive.ErrNothing) {
			msg += " (looked for *.jsonl files)"
		}
		fmt.Fprintf(stderr, "ccsite inspect: %s\n", strings.TrimSpace(msg))
		return exitFail
	}
	if asJSON && t.Problems > 0 {
		fmt.Fprintf(stderr, "ccsite inspect: %d sessions read, %d problems reported in the output\n", t.Sessions, t.Problems)
	}
	return exitOK
}

// inputPaths returns the paths to read: those named, else the default roots
// when they hold any transcript, else the embedded demo archive, extracted
// under the user's cache folder (saying so on stderr). cleanup releases what
// it set up.
func inputPaths(named []string, getenv func(string) string, stderr io.Writer, cmd string, kept func(roots []string) bool) (paths []string, cleanup func(), err error) {
	paths, _, cleanup, err = inputPathsDemo(named, getenv, stderr, cmd, kept, nil)
	return paths, cleanup, err
}

// inputPathsDemo is inputPaths, also telling whether the paths are the
// demo archive's (a site built from it says so on every page).
func inputPathsDemo(named []string, getenv func(string) string, stderr io.Writer, cmd string, kept func(roots []string) bool, only map[string]bool) (paths []string, demoArchive bool, cleanup func(), err error) {
	cleanup = func() {}
	if len(named) > 0 {
		return named, false, cleanup, nil
	}
	home, _ := os.UserHomeDir()
	if h := getenv("HOME"); h != "" {
		home = h
	}
	// Every agent's folders that exist: Claude Code's, Codex's…
	roots := archive.AllDefaultRoots(getenv, home, only)
	// A site whose archive keeps sessions of these roots is built from
	// them even when Claude Code has deleted every file: never the demo.
	if hasTranscripts(roots) || (kept != nil && kept(roots)) {
		return roots, false, cleanup, nil
	}
	// A fixed place, so building the demo twice gives the same site.
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	root, err := demo.Extract(filepath.Join(base, "ccsite", "demo"))
	if err != nil {
		return nil, false, cleanup, err
	}
	where := "~/.claude/projects"
	if v := getenv("CLAUDE_CONFIG_DIR"); v != "" {
		where = "$CLAUDE_CONFIG_DIR/projects (" + v + ")"
	}
	fmt.Fprintf(stderr, "ccsite %s: no transcripts in %s; showing the built-in demo archive instead (name folders or .jsonl files to read your own)\n", cmd, where)
	return []string{root}, true, cleanup, nil
}

// agentKeys are the keys --agent takes.
func agentKeys() []string {
	keys := make([]string, len(agents.All))
	for i, a := range agents.All {
		keys[i] = a.Key
	}
	return keys
}

// agentFlag reads --agent: the set of agents to read, nil for all.
func agentFlag(keys []string) (map[string]bool, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	only := map[string]bool{}
	for _, k := range keys {
		k = strings.ToLower(strings.TrimSpace(k))
		if agents.ByKey(k) == nil {
			return nil, fmt.Errorf("--agent %s: not an agent ccsite reads (%s)", k, strings.Join(agentKeys(), ", "))
		}
		only[k] = true
	}
	return only, nil
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
		if (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".jsonl.zst")) && !d.IsDir() { // .zst: Codex's compressed rollouts
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
	pricing, git, repoURL                            *string
	workers                                          *int
	asJSON, noSearch, force, quiet, noCache          *bool
	fromHook                                         *bool
	agents                                           *[]string
	wait                                             *time.Duration
	rf                                               *redactFlags
	ef                                               *excludeFlags
}

// declareBuildFlags declares the flags of ccsite build on fs: the one
// declaration, which serve --watch also reads recorded builds with.
func declareBuildFlags(fs *pflag.FlagSet) *buildFlagSet {
	bf := &buildFlagSet{}
	bf.out = fs.StringP("out", "o", "site", "write the site to `DIR`")
	bf.state = fs.String("state", "", "keep the build's state (manifest, journal, search index) in `DIR`, outside the site (default: $CCSITE_STATE_HOME, else ~/.local/state/ccsite, in sites/<name>-<hash>)")
	bf.workers = fs.Int("workers", 0, "parse and render with `N` workers (default: one per CPU)")
	bf.themeName, bf.themeDir = themeFlags(fs)
	bf.baseURL = fs.String("base-url", "", "the site's public `URL`: adds canonical links and sitemap.xml")
	bf.asJSON = fs.BoolP("json", "j", false, "also write each session's model as <session>.json")
	bf.noSearch = fs.Bool("no-search", false, "build no search index, search page or search box")
	bf.rf = addRedactFlags(fs)
	bf.ef = addExcludeFlags(fs)
	bf.report = fs.String("report", "", "write every problem, exclusion and redaction count to `FILE.json`")
	bf.force = fs.BoolP("force", "f", false, "rebuild every page, even those whose input has not changed")
	bf.quiet = fs.BoolP("quiet", "q", false, "print only warnings and errors: no progress, no summary")
	bf.noCache = fs.Bool("no-cache", false, "do not keep highlighted code between builds ($CCSITE_CACHE_DIR, else the user cache folder)")
	bf.wait = fs.Duration("wait", 5*time.Minute, "wait up to `DURATION` for another build writing the same folder (0: do not wait)")
	bf.pricing = fs.String("pricing", "", "price tokens with the pricing `FILE` laid over the embedded table (see build/pricing)")
	bf.agents = fs.StringSlice("agent", nil, "read only the sessions of these `AGENTS` (comma-separated: "+strings.Join(agentKeys(), ", ")+"; default: every agent)")
	bf.git = fs.String("git", "", "read the transcripts committed to git repository `REPO[@REF]` instead of PATH, with its commits (REPO: a folder or a URL; REF may end in :FOLDER; default: every checkpoint Entire keeps, "+gitsrc.CheckpointRefs+"* and "+gitsrc.DefaultRef+", else HEAD)")
	bf.repoURL = fs.String("repo-url", "", "with --git: link commits to the repository's web page at `URL` (default: read from its origin remote)")
	bf.fromHook = fs.Bool(fromHookFlag, false, "the build is the SessionEnd hook's: its outcome goes to "+hookLogName+" in the state folder")
	fs.MarkHidden(fromHookFlag)
	fs.SortFlags = false
	return bf
}

const buildLong = `Write the site: a page per session and sub-agent (with its Markdown beside
it), a page per project, an index, a search page, and assets/ (default
folder: ./site). A build into a previous site redoes only what changed
(--force: everything). The build's state (manifest, journal, search index)
is kept outside the site, in --state DIR (default: $CCSITE_STATE_HOME, else
~/.local/state/ccsite/sites/<name>-<hash>).

Secrets are redacted by default (gitleaks' rules and ccsite's own):
--redact and --redact-file add your own, --no-redact turns it off.

PATH is a folder (searched recursively) or a .jsonl file; flags may come
before or after paths. Without PATH: $CLAUDE_CONFIG_DIR/projects, else
~/.claude/projects and ~/.config/claude/projects, else the demo archive.

Exit status: 0 built (problems in the input are reported), 1 not built, 2 a
usage error, 3 another build kept the folder past --wait.`

func newBuildCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "build [flags] [PATH...]",
		Short: "Write the site from the transcripts",
		Long:  buildLong,
		Example: `  ccsite build                                  # ~/.claude/projects → ./site
  ccsite build -o public --base-url https://example.org/sessions/
  ccsite build --exclude-project '*secret*' --since 2026-01-01 ~/old-projects
  ccsite build -q --redact 'ACME-[0-9]+' --no-thinking`,
	}
	bf := declareBuildFlags(c.Flags())
	c.RunE = func(c *cobra.Command, paths []string) error {
		return status(runBuildLogged(e, bf, paths))
	}
	return c
}

// runBuild builds the site; e.args (after "build") is what the build
// record keeps for serve --watch.
func runBuild(e *env, bf *buildFlagSet, paths []string) int {
	ctx, stderr, getenv := e.ctx, e.stderr, e.getenv
	out, state, workers, themeName, themeDir, baseURL := bf.out, bf.state, bf.workers, bf.themeName, bf.themeDir, bf.baseURL
	asJSON, noSearch, rf, ef, force := bf.asJSON, bf.noSearch, bf.rf, bf.ef, bf.force
	quiet, noCache, wait := bf.quiet, bf.noCache, bf.wait
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
	// The state folder, also where --git extracts to: never "" (the
	// current folder) when no home folder can hold it.
	if *state, err = stateOf(*out, *state, getenv); err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitFail
	}
	var labels map[string]string // pages name the extracted tree by its ref, not its folder
	var git gitsrc.Result
	if *bf.git != "" {
		if len(paths) > 0 {
			fmt.Fprintf(stderr, "ccsite build: --git reads the repository instead of PATH: drop %s or --git\n", strings.Join(paths, " "))
			return exitUsage
		}
		if git, err = gitInput(ctx, *bf.git, *bf.repoURL, *state, *quiet, stderr); err != nil {
			fmt.Fprintf(stderr, "ccsite build: %v\n", err)
			if errors.Is(err, errRepoURL) {
				return exitUsage
			}
			return exitFail
		}
		paths = []string{git.Root}
		labels = map[string]string{git.Root: "git:" + git.Ref}
	} else if *bf.repoURL != "" {
		fmt.Fprintf(stderr, "ccsite build: --repo-url goes with --git\n")
		return exitUsage
	}
	only, err := agentFlag(*bf.agents)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitUsage
	}
	paths, demo, cleanup, err := inputPathsDemo(paths, getenv, stderr, "build", func(roots []string) bool { return build.KeepsFrom(*state, roots) }, only)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite build: %v\n", err)
		return exitFail
	}
	defer cleanup()
	home, _ := os.UserHomeDir() // pages show paths under it as ~/…
	cfg := build.Config{Paths: paths, Out: *out, State: *state, Workers: *workers,
		Theme: *themeName, ThemeDir: *themeDir, BaseURL: base, JSON: *asJSON, NoSearch: *noSearch, Redact: red,
		Exclude: excl, Omit: rf.omit(), Force: *force, LockWait: *wait, Pricing: *bf.pricing, Agents: *bf.agents, SourceLabels: labels, Home: home, Demo: demo,
		History: git.History,
		OnWait: func() {
			fmt.Fprintf(stderr, "ccsite build: another build is writing %s; waiting for it (up to %s, --wait sets how long)\n", *out, *wait)
		}}
	if !*noCache {
		cfg.CacheDir = build.DefaultCacheDir(getenv)
	}
	var stopBar, barDone chan struct{}
	if !*quiet && isTerminal(stderr) {
		if !re2Scan && red.Active() {
			fmt.Fprint(stderr, slowScanNote)
		}
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
	addGitProblems(stderr, &sum, git.Problems)
	printSummary(stderr, *quiet, *out, sum)
	if err := recordBuild(*out, e.args[1:], getenv); err != nil {
		// Only serve --watch needs it.
		fmt.Fprintf(stderr, "ccsite build: warning: build record: %v\n", err)
	}
	if *bf.report != "" {
		if err := writeReport(*bf.report, paths, sum); err != nil {
			fmt.Fprintf(stderr, "ccsite build: report: %v\n", err)
			return exitFail
		}
	}
	return exitOK
}

// gitInput extracts the transcripts of a git repository (--git) as a
// projects tree in the site's state folder, the same folder for the same
// spec each time (so a build redoes only what changed), and returns what
// it read: the tree (Root), the ref pages name its files by, the
// repository's History (its web address --repo-url's when given) and the
// problems of its checkpoints.
func gitInput(ctx context.Context, spec, repoURL, state string, quiet bool, stderr io.Writer) (gitsrc.Result, error) {
	web, err := normalizeRepoURL(repoURL)
	if err != nil {
		return gitsrc.Result{}, err
	}
	sum := sha256.Sum256([]byte(spec))
	dir := filepath.Join(state, "git", hex.EncodeToString(sum[:8]))
	res, err := gitsrc.Materialize(ctx, spec, dir)
	if err != nil {
		return res, err
	}
	if web != "" && res.History != nil {
		res.History.WebURL = web
	}
	if !quiet {
		at := res.Ref
		if res.CheckpointRefs > 0 {
			at = fmt.Sprintf("%d checkpoint ref(s)", res.CheckpointRefs)
			if res.Commit != "" {
				at += " and " + gitsrc.DefaultRef
			}
		}
		if res.Commit != "" {
			at += " (" + res.Commit[:min(len(res.Commit), 12)] + ")"
		}
		commits := 0
		if res.History != nil {
			commits = len(res.History.Commits)
		}
		fmt.Fprintf(stderr, "ccsite build: git: %d session(s) from %s at %s; %d commit(s)\n", res.Sessions, spec, at, commits)
	}
	return res, nil
}

// errRepoURL is a --repo-url that is no web address.
var errRepoURL = errors.New("--repo-url")

// normalizeRepoURL checks --repo-url: an http(s) address, kept without a
// trailing slash or .git.
func normalizeRepoURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: %q is not the web address of a repository (https://host/owner/repo)", errRepoURL, s)
	}
	return strings.TrimSuffix(strings.TrimRight(s, "/"), ".git"), nil
}

// addGitProblems adds the checkpoints' problems (--git) to the build's,
// and says each (there are few: the rest of the repository was built).
func addGitProblems(stderr io.Writer, sum *build.Summary, probs []session.Problem) {
	for i, p := range probs {
		if i == 10 {
			fmt.Fprintf(stderr, "ccsite build: warning: %d more problem(s) in the repository (--report lists them)\n", len(probs)-i)
			break
		}
		fmt.Fprintf(stderr, "ccsite build: warning: %s: %s\n", p.File, p.Reason)
	}
	sum.ProblemList = append(sum.ProblemList, probs...)
	sum.Problems += len(probs)
}

// printSummary says what a build did: problems always, the summary unless
// quiet.
func printSummary(stderr io.Writer, quiet bool, out string, sum build.Summary) {
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
	if quiet {
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
		float64(sum.Bytes)/(1<<20), sum.Elapsed.Round(time.Millisecond), filepath.Join(out, "index.html"))
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

func newShareCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "share [flags] SESSION.jsonl",
		Short: "Write one session as a single self-contained HTML file",
		Long: `Write one session, its sub-agents included, as a single self-contained HTML
file (styles, script and images inlined) that opens offline and can be
attached or pasted anywhere. Secrets are redacted as for build.`,
		Example: `  ccsite share ~/.claude/projects/-home-me-app/0c1d2e3f-….jsonl
  ccsite share -o bug-hunt.html --theme paper --no-thinking SESSION.jsonl
  ccsite share --turns 3-7 -o turns.html SESSION.jsonl`,
	}
	f := c.Flags()
	out := f.StringP("out", "o", "", "write to `FILE` (default: <session>.html in the current folder)")
	turns := f.String("turns", "", "keep only the turns `FROM-TO` (numbers as on the session page, e.g. 3-7)")
	themeName, themeDir := themeFlags(f)
	rf := addRedactFlags(f)
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, paths []string) error {
		if len(paths) != 1 {
			return usagef("name exactly one session .jsonl file")
		}
		var r *build.TurnRange
		if *turns != "" {
			tr, err := build.ParseTurnRange(*turns)
			if err != nil {
				return usagef("--turns: %v", err)
			}
			r = &tr
		}
		return status(runShare(e, paths[0], *out, *themeName, *themeDir, rf, r))
	}
	return c
}

func runShare(e *env, file, target, themeName, themeDir string, rf *redactFlags, turns *build.TurnRange) int {
	stderr := e.stderr
	if _, err := theme.Open(themeName, themeDir); err != nil {
		fmt.Fprintf(stderr, "ccsite share: %v\n", err)
		return exitUsage
	}
	red, err := rf.redactor("share", stderr, e.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite share: %v\n", err)
		return exitUsage
	}
	if target == "" {
		target = strings.TrimSuffix(filepath.Base(file), ".jsonl") + ".html"
	}
	home, _ := os.UserHomeDir() // the page shows paths under it as ~/…
	n, err := build.Share(e.ctx, build.ShareConfig{File: file, Out: target, Theme: themeName, ThemeDir: themeDir, Redact: red, Omit: rf.omit(), Home: home, Turns: turns})
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

func newThemeCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "theme COMMAND",
		Short: "List the built-in themes, or export the default one for editing",
		Long: `Themes: light and dark follow the system. --theme NAME (build, share) picks
a built-in theme; --theme-dir DIR overrides any template or asset of it by
the same relative path, or a single {{define}} block of a template.`,
		Example: "  ccsite theme list\n  ccsite theme export mytheme && ccsite build --theme-dir mytheme",
		RunE:    groupRun,
	}
	c.AddCommand(&cobra.Command{
		Use:     "list",
		Short:   "List the built-in themes",
		Example: "  ccsite theme list",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, n := range theme.Names() {
				fmt.Fprintln(e.stdout, n)
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "export DIR",
		Short: "Write the default templates and assets to DIR for editing",
		Long: `Write the default templates/ and assets/ to DIR for editing; build with
--theme-dir DIR then (any file there overrides the default of the same
path; a template file may redefine single {{define}} blocks;
assets/theme.css is the place for colours and fonts).`,
		Example: "  ccsite theme export mytheme\n  ccsite build --theme-dir mytheme",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			written, err := theme.Export(args[0])
			if err != nil {
				fmt.Fprintf(e.stderr, "ccsite theme export: %v\n", err)
				return exitStatus(exitFail)
			}
			fmt.Fprintf(e.stderr, "ccsite theme export: wrote %d files to %s; edit them and build with --theme-dir %s\n", len(written), args[0], args[0])
			return nil
		},
	})
	return c
}

// searchFlags are ccsite search's flags.
type searchFlags struct {
	site, state, project, tool, role *string
	asJSON                           *bool
	size                             *int
}

func newSearchCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "search [flags] QUERY...",
		Short: "Search a built site's index",
		Long: `Search a built site's index (kept in its state folder): all words must
match, the last one also as a prefix; "quoted phrases"; and filters, as flags
or inline: project:P session:ID tool:T role:R model:M agent:A after:YYYY-MM-DD
before:YYYY-MM-DD. Roles: ` + strings.Join(search.Roles, ", ") + `. Agents: ` + strings.Join(agentKeys(), ", ") + `.`,
		Example: `  ccsite search retry budget
  ccsite search '"connection refused" tool:Bash after:2026-01-01'
  ccsite search --site public --role prompt -n 5 --json deploy`,
	}
	f := c.Flags()
	sf := searchFlags{
		site:    f.String("site", "site", "the built site `DIR` whose index to search"),
		state:   f.String("state", "", "the site's build state `DIR` (where its index is); default: the one ccsite build uses for --site"),
		asJSON:  f.BoolP("json", "j", false, "write the results as JSON"),
		project: f.StringP("project", "p", "", "only this project (its path or last path element)"),
		tool:    f.StringP("tool", "t", "", "only calls of this tool"),
		role:    f.StringP("role", "r", "", "only this role: "+strings.Join(search.Roles, ", ")),
		size:    f.IntP("limit", "n", 10, "at most `N` results"),
	}
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, words []string) error {
		return status(runSearch(e, sf, words))
	}
	return c
}

func runSearch(e *env, sf searchFlags, words []string) int {
	stdout, stderr := e.stdout, e.stderr
	q := search.Query{Text: strings.Join(words, " "), Project: *sf.project, Tool: *sf.tool, Role: *sf.role, Size: *sf.size}
	if err := q.Check(); err != nil {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitUsage
	}
	state, err := stateOf(*sf.site, *sf.state, e.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitFail
	}
	// The first search after a build makes the bleve index of the build's
	// documents, or adds those that changed: a second or more, said.
	idx, err := search.OpenNoting(build.IndexPath(state), func(fresh bool, docs int) {
		if fresh {
			fmt.Fprintf(stderr, "ccsite search: making the search index of %d documents (once, after a build)\n", docs)
		} else if docs >= 1000 {
			fmt.Fprintf(stderr, "ccsite search: adding %d documents to the search index\n", docs)
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitFail
	}
	defer idx.Close()
	res, err := idx.Search(e.ctx, q)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite search: %v\n", err)
		return exitFail
	}
	if *sf.asJSON {
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
		if h.Agent != "" && h.Agent != agents.All[0].Key {
			what = h.Agent + " " + what
		}
		fmt.Fprintf(stdout, "%d. %s  [%s · %s · %s]\n   %s\n   %s\n", i+1, h.Title, archive.ShortName(h.Project), what,
			h.Time.UTC().Format("2006-01-02 15:04"), plainSnippet(h.Snippet), filepath.Join(*sf.site, filepath.FromSlash(h.Page))+"#"+h.Anchor)
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
func themeFlags(fs *pflag.FlagSet) (name, dir *string) {
	name = fs.String("theme", "", "built-in theme `NAME` ("+strings.Join(theme.Names(), ", ")+")")
	dir = fs.String("theme-dir", "", "`DIR` of templates/ and assets/ overriding the theme's")
	return name, dir
}

// redactFlags are the publishing-safety flags build and share share.
type redactFlags struct {
	patterns     []string
	files        []string
	allowFiles   []string
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

func addExcludeFlags(fs *pflag.FlagSet) *excludeFlags {
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

func addRedactFlags(fs *pflag.FlagSet) *redactFlags {
	rf := &redactFlags{}
	fs.Func("redact", "also redact what `REGEX` matches (repeatable; a group redacts just the group)", func(s string) error {
		rf.patterns = append(rf.patterns, s)
		return nil
	})
	fs.Func("redact-file", "also redact each line of `FILE` as a literal string (repeatable)", func(s string) error {
		rf.files = append(rf.files, s)
		return nil
	})
	fs.Func("allow-file", "leave alone the findings `FILE` lists, one a line: an id ccsite review shows (sha256:…) or the text itself (repeatable)", func(s string) error {
		rf.allowFiles = append(rf.allowFiles, s)
		return nil
	})
	fs.BoolVar(&rf.off, "no-redact", false, "publish secrets as they are (private builds only)")
	fs.BoolVar(&rf.anonymize, "anonymize-paths", false, "write the home folder as ~ and the user name as user, project names included")
	fs.BoolVar(&rf.noThinking, "no-thinking", false, "leave the model's thinking out")
	fs.BoolVar(&rf.noToolOutput, "no-tool-output", false, "leave out what tools returned (the calls stay)")
	return rf
}

// options is the redact.Options the flags ask for (review sets its own
// OnFind on them). Errors are usage errors.
func (rf *redactFlags) options(getenv func(string) string) (redact.Options, error) {
	opts := redact.Options{Secrets: !rf.off, Anonymize: rf.anonymize}
	for _, p := range rf.patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return opts, fmt.Errorf("--redact %q: %v", p, err)
		}
		opts.Patterns = append(opts.Patterns, re)
	}
	for _, f := range rf.files {
		lits, err := redact.ReadLiterals(f)
		if err != nil {
			return opts, fmt.Errorf("--redact-file: %v", err)
		}
		opts.Literals = append(opts.Literals, lits...)
	}
	for _, f := range rf.allowFiles {
		ids, err := redact.ReadAllowList(f)
		if err != nil {
			return opts, fmt.Errorf("--allow-file: %v", err)
		}
		opts.Allow = append(opts.Allow, ids...)
	}
	if rf.anonymize {
		opts.Home, _ = os.UserHomeDir()
		if u, err := user.Current(); err == nil {
			opts.User = u.Username
		}
		if v := getenv("CCSITE_ANON_HOME"); v != "" {
			opts.Home = v
		}
		if v := getenv("CCSITE_ANON_USER"); v != "" {
			opts.User = v
		}
	}
	return opts, nil
}

// redactor makes the Redactor the flags ask for; errors are usage errors.
func (rf *redactFlags) redactor(cmd string, stderr io.Writer, getenv func(string) string) (*redact.Redactor, error) {
	opts, err := rf.options(getenv)
	if err != nil {
		return nil, err
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
