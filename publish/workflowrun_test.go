package publish

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The runner test: the build job of github-pages.yml, run as GitHub's
// runner would run it, against a local bare repository standing for the
// user's, twice (the second run with the first's cache restored), then
// once more after a new checkpoint is pushed.
//
// Its run: steps are the workflow's own, read from the YAML and run with
// bash in order, with the workflow's and the step's env, ${{ … }}
// expressions replaced, and the files and variables the runner gives a
// step (GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_PATH, GITHUB_ENV,
// GITHUB_OUTPUT, …). Its uses: steps are replaced by what they do here:
//
//   - actions/checkout of the user's repository: git init, then the fetch
//     actions/checkout makes (every branch and tag with fetch-depth: 0,
//     else the branch alone at that depth), then checkout -B main;
//   - actions/checkout of ccsite's source (the one with a repository):
//     a copy of this working tree (tracked and untracked files, not the
//     ignored ones) at the step's path, so the install step's make build
//     builds the code under test, as the runner builds CCSITE_REF's;
//   - actions/setup-go: the go on PATH (the test skips without one);
//   - actions/configure-pages: its outputs, for a project site;
//   - actions/cache: the folders saved at the end of the last run of the
//     same test, restored; saved again at the end of the job;
//   - actions/upload-pages-artifact: a check that the folder holds a site.
//
// Any other action, or a step key the runner does not handle, fails the
// test: the workflow cannot drift from what is tested.

// pagesURL is the base_url configure-pages gives a project site.
const pagesURL = "https://kim.github.io/shop"

// runner runs the build job of a workflow.
type runner struct {
	t      *testing.T
	w      workflow
	root   string // the machine: workspace, temp, home
	origin string // the user's repository (bare)
	store  string // where actions/cache keeps its tars
	cache  string // actions/cache: the last run's tar of its paths
	runID  int

	// One run's state.
	ws      string            // GITHUB_WORKSPACE
	env     map[string]string // the runner's own, with GITHUB_ENV's
	path    []string          // GITHUB_PATH's, newest first
	outputs map[string]map[string]string
	saves   []string // actions/cache paths to save after the job
	logs    map[string]string
}

// newRunner is a runner whose machine is in root: runners run one after
// the other may share it (Go's build cache then finds the same source at
// the same path).
func newRunner(t *testing.T, w workflow, origin, root string) *runner {
	return &runner{t: t, w: w, root: root, origin: origin, store: t.TempDir()}
}

// baseEnv is the process environment of every step: the test's, without
// what would leak into ccsite (its state and cache folders, git config),
// with Go's caches kept (a build of the same source in the same folder is
// then quick, as setup-go's cache makes it on GitHub).
func (r *runner) baseEnv() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "CCSITE_"), strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "GIT_"),
			strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "RUNNER_"):
			continue
		}
		env[k] = v
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			r.t.Fatalf("go env %s: %v", k, err)
		}
		env[k] = strings.TrimSpace(string(out))
	}
	m := filepath.Join(r.root, "machine")
	for k, v := range map[string]string{
		"HOME": filepath.Join(m, "home"), "CI": "true", "GITHUB_ACTIONS": "true",
		"GITHUB_WORKSPACE": r.ws, "GITHUB_REPOSITORY": "kim/shop", "GITHUB_REF": "refs/heads/main",
		"GITHUB_REF_NAME": "main", "GITHUB_EVENT_NAME": "push", "GITHUB_RUN_ID": strconv.Itoa(r.runID),
		"RUNNER_OS": "Linux", "RUNNER_TEMP": filepath.Join(m, "temp"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
		// Where ccsite would keep state and caches if the workflow did not
		// say: the test checks nothing goes there.
		"CCSITE_STATE_HOME": filepath.Join(m, "stray-state"), "XDG_CACHE_HOME": filepath.Join(m, "stray-cache"),
	} {
		env[k] = v
	}
	return env
}

// job runs the build job once, on a fresh machine whose workspace is at
// the same path each run (as GitHub's is). It returns each step's output
// by name.
func (r *runner) job() map[string]string {
	t := r.t
	r.runID++
	m := filepath.Join(r.root, "machine")
	if err := os.RemoveAll(m); err != nil {
		t.Fatal(err)
	}
	r.ws = filepath.Join(m, "work", "shop", "shop")
	r.env, r.path, r.outputs, r.saves, r.logs = nil, nil, map[string]map[string]string{}, nil, map[string]string{}
	r.env = r.baseEnv()
	for _, d := range []string{r.ws, r.env["HOME"], r.env["RUNNER_TEMP"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range r.w.Jobs["build"].Steps {
		if s.Uses != "" {
			r.uses(s)
		} else {
			r.logs[s.Name] = r.run(s)
		}
	}
	// actions/cache's post step: a tar of the paths (modes and times
	// kept, as the action's tar keeps them).
	var paths []string
	for _, p := range r.saves {
		if _, err := os.Stat(filepath.Join(r.ws, p)); err == nil {
			paths = append(paths, p)
		}
	}
	if len(paths) > 0 {
		r.cache = filepath.Join(r.store, fmt.Sprintf("cache-%d.tar", r.runID))
		r.tar(append([]string{"-cf", r.cache}, paths...)...)
	}
	for _, stray := range []string{r.env["CCSITE_STATE_HOME"], filepath.Join(r.env["XDG_CACHE_HOME"], "ccsite")} {
		if _, err := os.Stat(stray); err == nil {
			t.Errorf("the build kept something in %s, which no cache restores", stray)
		}
	}
	return r.logs
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// eval replaces the ${{ … }} expressions the runner knows.
func (r *runner) eval(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		switch {
		case e == "github.workspace":
			return r.ws
		case e == "github.run_id":
			return strconv.Itoa(r.runID)
		case e == "runner.os":
			return "Linux"
		case e == "runner.temp":
			return r.env["RUNNER_TEMP"]
		case strings.HasPrefix(e, "env."):
			return r.wfEnv()[strings.TrimPrefix(e, "env.")]
		case strings.HasPrefix(e, "steps."):
			id, out, ok := strings.Cut(strings.TrimPrefix(e, "steps."), ".outputs.")
			if v, has := r.outputs[id][out]; ok && has {
				return v
			}
		}
		r.t.Fatalf("the runner test cannot evaluate ${{ %s }}", e)
		return ""
	})
}

// wfEnv is the workflow's env, evaluated.
func (r *runner) wfEnv() map[string]string {
	env := map[string]string{}
	for k, v := range r.w.Env {
		if strings.Contains(v, "env.") {
			r.t.Fatalf("workflow env %s reads env: not handled", k)
		}
		env[k] = r.eval(v)
	}
	// What the user sets before the first run: the placeholder fails the
	// "Check the settings" step, as it should (TestWorkflowPlaceholder).
	if strings.HasPrefix(env["CCSITE_REPO"], "OWNER/") {
		env["CCSITE_REPO"] = "kim/ccsite"
	}
	return env
}

// run runs a run: step with bash as GitHub does (bash -e {0} when no
// shell is given) and returns its output; a failing step fails the test.
func (r *runner) run(s step) string {
	out, err := r.runErr(s)
	if err != nil {
		r.t.Fatalf("step %q: %v\n%s", s.Name, err, out)
	}
	return out
}

func (r *runner) runErr(s step) (string, error) {
	t := r.t
	tmp := r.env["RUNNER_TEMP"]
	files := map[string]string{}
	for _, k := range []string{"GITHUB_PATH", "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		files[k] = filepath.Join(tmp, "_runner_file_commands", fmt.Sprintf("%s_%d_%s", strings.ToLower(k), r.runID, strings.ReplaceAll(s.Name, " ", "_")))
		if err := os.MkdirAll(filepath.Dir(files[k]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(files[k], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(tmp, "step.sh")
	if err := os.WriteFile(script, []byte(r.eval(s.Run)), 0o644); err != nil {
		t.Fatal(err)
	}
	var args []string
	switch s.Shell {
	case "":
		args = []string{"-e", script}
	case "bash":
		args = []string{"--noprofile", "--norc", "-eo", "pipefail", script}
	default:
		t.Fatalf("step %q: shell %q is not handled", s.Name, s.Shell)
	}
	cmd := exec.Command("bash", args...)
	cmd.Dir = filepath.Join(r.ws, r.eval(s.WorkingDirectory))
	env := maps(r.env, r.wfEnv(), files)
	for k, v := range s.Env {
		env[k] = r.eval(v)
	}
	env["PATH"] = strings.Join(append(slices.Clone(r.path), r.env["PATH"]), string(os.PathListSeparator))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), err
	}
	// The file commands, for the steps after this one.
	for _, l := range lines(t, files["GITHUB_PATH"]) {
		r.path = append([]string{l}, r.path...)
	}
	for _, l := range lines(t, files["GITHUB_ENV"]) {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.Contains(l, "<<") {
			t.Fatalf("step %q: GITHUB_ENV line %q is not handled", s.Name, l)
		}
		r.env[k] = v
	}
	for _, l := range lines(t, files["GITHUB_OUTPUT"]) {
		k, v, ok := strings.Cut(l, "=")
		if !ok || s.ID == "" {
			t.Fatalf("step %q: GITHUB_OUTPUT line %q is not handled", s.Name, l)
		}
		r.output(s.ID, k, v)
	}
	return string(out), nil
}

func (r *runner) output(id, k, v string) {
	if r.outputs[id] == nil {
		r.outputs[id] = map[string]string{}
	}
	r.outputs[id][k] = v
}

func maps(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func lines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// uses does here what the action does on GitHub.
func (r *runner) uses(s step) {
	t := r.t
	action, _, _ := strings.Cut(s.Uses, "@")
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = r.eval(v)
	}
	switch action {
	case "actions/checkout":
		if with["repository"] != "" {
			r.checkoutSource(with)
		} else {
			r.checkout(with)
		}
	case "actions/setup-go":
		if _, err := os.Stat(filepath.Join(r.ws, with["go-version-file"])); err != nil {
			t.Fatalf("setup-go: go-version-file: %v", err)
		}
	case "actions/configure-pages":
		r.output(s.ID, "base_url", pagesURL)
		r.output(s.ID, "origin", "https://kim.github.io")
		r.output(s.ID, "host", "kim.github.io")
		r.output(s.ID, "base_path", "/shop")
	case "actions/cache":
		r.saves = strings.Fields(with["path"])
		if with["key"] == "" || !strings.HasPrefix(with["key"], with["restore-keys"]) {
			t.Fatalf("cache key %q, restore-keys %q", with["key"], with["restore-keys"])
		}
		if r.cache != "" {
			r.tar("-xf", r.cache)
		}
	case "actions/upload-pages-artifact":
		if _, err := os.Stat(filepath.Join(r.ws, with["path"], "index.html")); err != nil {
			t.Fatalf("upload-pages-artifact: %v", err)
		}
	default:
		t.Fatalf("the runner test has no local equivalent of %s", s.Uses)
	}
}

// checkout does what actions/checkout does for a push to main.
func (r *runner) checkout(with map[string]string) {
	git := func(args ...string) { r.git(r.ws, args...) }
	git("init", "-q", "-b", "main", ".")
	git("remote", "add", "origin", "file://"+r.origin)
	switch d := with["fetch-depth"]; d {
	case "0":
		git("fetch", "-q", "--prune", "--no-recurse-submodules", "origin",
			"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
	default:
		if d == "" {
			d = "1"
		}
		git("fetch", "-q", "--no-tags", "--prune", "--no-recurse-submodules", "--depth="+d, "origin",
			"+refs/heads/main:refs/remotes/origin/main")
	}
	git("checkout", "-q", "--force", "-B", "main", "refs/remotes/origin/main")
}

// checkoutSource puts this working tree where the workflow checks out
// ccsite's source.
func (r *runner) checkoutSource(with map[string]string) {
	t := r.t
	env := r.wfEnv()
	if with["repository"] != env["CCSITE_REPO"] || with["ref"] != env["CCSITE_REF"] {
		t.Fatalf("the source checkout reads %s@%s, not CCSITE_REPO@CCSITE_REF", with["repository"], with["ref"])
	}
	dst := filepath.Join(r.ws, with["path"])
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("ccsite's source is not a git working tree: %v", err)
	}
	src := strings.TrimSpace(string(top))
	list, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			if os.IsNotExist(err) { // deleted, not yet committed
				continue
			}
			t.Fatal(err)
		}
		info, _ := os.Lstat(filepath.Join(src, f))
		if info.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		p := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	// A checkout is a repository at a commit: the same commit each run.
	r.git(dst, "init", "-q")
	r.git(dst, "add", "-A")
	r.git(dst, "-c", "user.name=ccsite", "-c", "user.email=ccsite@example.org", "commit", "-q", "--no-verify",
		"--date=2026-02-01T00:00:00Z", "-m", "ccsite at CCSITE_REF")
}

func (r *runner) tar(args ...string) {
	r.t.Helper()
	cmd := exec.Command("tar", append([]string{"-C", r.ws}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("tar %q: %v\n%s", args, err, out)
	}
}

func (r *runner) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_COMMITTER_DATE=2026-02-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// needTools skips a runner test where it cannot run (and fails it under
// CI=true where it should).
func needTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds ccsite")
	}
	if runtime.GOOS == "windows" {
		t.Skip("bash steps")
	}
	for _, tool := range []string{"git", "bash", "go", "make", "tar", "diff"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no %s (CI=true: the runner test must run)", tool)
			}
			t.Skipf("no %s", tool)
		}
	}
}

// summary reads the build's summary lines: sessions found, pages
// written, sessions kept from the last build.
var (
	summaryFound = regexp.MustCompile(`(?m)^ccsite build: (\d+) projects, (\d+) sessions, .* (\d+) problems;`)
	summaryWrote = regexp.MustCompile(`(?m)^ccsite build: (\d+) pages written \(.*\), (\d+) sessions kept from the last build`)
)

func summary(t *testing.T, out string) (sessions, written, kept int) {
	t.Helper()
	f, w := summaryFound.FindStringSubmatch(out), summaryWrote.FindStringSubmatch(out)
	if f == nil || w == nil {
		t.Fatalf("no build summary in:\n%s", out)
	}
	sessions, _ = strconv.Atoi(f[2])
	if f[3] != "0" { // the fixture is sound: a problem is a layout misread
		t.Errorf("the build reports %s problem(s):\n%s", f[3], out)
	}
	written, _ = strconv.Atoi(w[1])
	kept, _ = strconv.Atoi(w[2])
	return
}

func TestWorkflowRuns(t *testing.T) {
	needTools(t)
	w, _ := readWorkflow(t)
	b := w.Jobs["build"]
	buildStep := b.Steps[find(b.Steps, "", "ccsite build")].Name
	machine := t.TempDir()
	// sample: Entire's real sample repository (CCSITE_ENTIRE=/work/shared/entire).
	for _, layout := range []string{"refs", "branch", "sample"} {
		t.Run(layout, func(t *testing.T) {
			origin, sessions := checkpointOrigin(t, layout)
			r := newRunner(t, w, origin, machine)
			first := r.job()
			t.Logf("first run, %q:\n%s", buildStep, first[buildStep])
			n, written, kept := summary(t, first[buildStep])
			if n != sessions || written == 0 || kept != 0 {
				t.Errorf("first run: %d sessions, %d pages written, %d kept; want %d sessions, all written", n, written, kept, sessions)
			}
			checkCommits(t, origin, first[buildStep])
			site1 := filepath.Join(t.TempDir(), "site")
			if err := os.CopyFS(site1, os.DirFS(filepath.Join(r.ws, "site"))); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(filepath.Join(site1, "sitemap.xml")); !strings.Contains(string(data), pagesURL+"/") {
				t.Errorf("the sitemap is not under Pages' URL:\n%.300s", data)
			}
			for _, l := range []string{"Fetch the checkpoints", "Install ccsite"} {
				if _, ok := first[l]; !ok {
					t.Errorf("no step %q ran", l)
				}
			}

			second := r.job()
			t.Logf("second run, %q:\n%s", buildStep, second[buildStep])
			n, written, kept = summary(t, second[buildStep])
			if n != sessions || written != 0 || kept != sessions {
				t.Errorf("second run: %d sessions, %d pages written, %d kept from the last build; want %d, none written, all kept",
					n, written, kept, sessions)
			}
			if diff, err := exec.Command("diff", "-r", site1, filepath.Join(r.ws, "site")).CombinedOutput(); err != nil {
				t.Errorf("the second run's site differs from the first's:\n%s", diff)
			}

			// A new checkpoint pushed: the next run builds its session only.
			if layout == "sample" {
				return
			}
			push(t, origin, layout, newCheckpoint(layout))
			third := r.job()
			t.Logf("third run, %q:\n%s", buildStep, third[buildStep])
			n, written, kept = summary(t, third[buildStep])
			if n != sessions+1 || written == 0 || kept != sessions {
				t.Errorf("after a new checkpoint: %d sessions, %d pages written, %d kept from the last build; want %d, the %d others kept",
					n, written, kept, sessions+1, sessions)
			}
		})
	}
}

// builtCommits reads how many commits of the repository's history the
// build read, when it says (--git's summary line, issue 56).
var builtCommits = regexp.MustCompile(`(?m)^ccsite build: git: .*; (\d+) commit\(s\)`)

// checkCommits checks that the build read the commits of every branch of
// the origin (but Entire's own): in the runner's checkout only main is a
// local branch, the others are origin/…, and their commits name
// checkpoints too.
func checkCommits(t *testing.T, origin, out string) {
	t.Helper()
	m := builtCommits.FindStringSubmatch(out)
	if m == nil {
		t.Log("the build does not say how many commits it read: not checked")
		return
	}
	cmd := exec.Command("sh", "-c", `git rev-list --count $(git for-each-ref --format='%(refname)' refs/heads | grep -v '^refs/heads/entire/')`)
	cmd.Dir = origin
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if m[1] != strings.TrimSpace(string(want)) {
		t.Errorf("the build read %s commit(s); the origin's branches hold %s (the checkout has origin's branches as origin/…)",
			m[1], strings.TrimSpace(string(want)))
	}
}

// TestWorkflowPlaceholder: a workflow copied without setting CCSITE_REPO
// stops at once, saying what to set.
func TestWorkflowPlaceholder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("bash steps")
	}
	w, _ := readWorkflow(t)
	if !strings.HasPrefix(w.Env["CCSITE_REPO"], "OWNER/") {
		t.Fatalf("CCSITE_REPO is %q: the template should say OWNER/ccsite", w.Env["CCSITE_REPO"])
	}
	b := w.Jobs["build"]
	at := find(b.Steps, "", "case \"$CCSITE_REPO\"")
	if at < 0 || at > sourceCheckout(b.Steps) {
		t.Fatal("no step checks CCSITE_REPO before the source checkout")
	}
	check := func(repo string) (string, error) {
		cmd := exec.Command("bash", "-e", "-c", b.Steps[at].Run)
		cmd.Env = append(os.Environ(), "CCSITE_REPO="+repo)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := check(w.Env["CCSITE_REPO"]); err == nil || !strings.Contains(out, "::error::set CCSITE_REPO") {
		t.Errorf("with the placeholder: %v\n%s", err, out)
	}
	if out, err := check("kim/ccsite"); err != nil {
		t.Errorf("with kim/ccsite: %v\n%s", err, out)
	}
}
