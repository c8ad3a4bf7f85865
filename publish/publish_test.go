package publish

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflow is what the test reads of a GitHub Actions workflow.
type workflow struct {
	Name        string
	On          map[string]yaml.Node `yaml:"on"`
	Env         map[string]string
	Permissions map[string]string
	Concurrency struct {
		Group            string
		CancelInProgress *bool `yaml:"cancel-in-progress"`
	}
	Jobs map[string]job
}

type job struct {
	RunsOn      string    `yaml:"runs-on"`
	Needs       yaml.Node `yaml:"needs"`
	Environment struct{ Name, URL string }
	Steps       []step
}

type step struct {
	Name, ID, Uses, Run string
	With                map[string]string
	Env                 map[string]string
}

func readWorkflow(t *testing.T) (workflow, []byte) {
	t.Helper()
	data, err := os.ReadFile("github-pages.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true) // a misspelt key is an error, as GitHub makes it
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("github-pages.yml: %v", err)
	}
	return w, data
}

// find is the index of the first step using action (owner/name), or
// whose run starts with run; -1 if none.
func find(steps []step, action, run string) int {
	for i, s := range steps {
		if action != "" && strings.HasPrefix(s.Uses, action+"@") {
			return i
		}
		if run != "" && strings.HasPrefix(strings.TrimSpace(s.Run), run) {
			return i
		}
	}
	return -1
}

// words splits a command line as sh would for the simple quoting used in
// the workflow: spaces, and '…' or "…" quotes.
func words(line string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// buildArgs reads a ccsite build command line: its flags by name (as
// written, -o or --out) and its folders.
func buildArgs(t *testing.T, line string) (flags map[string]string, paths []string) {
	t.Helper()
	w := words(line)
	if len(w) < 2 || w[0] != "ccsite" || w[1] != "build" {
		t.Fatalf("not a ccsite build: %q", line)
	}
	flags = map[string]string{}
	for i := 2; i < len(w); i++ {
		a := w[i]
		if !strings.HasPrefix(a, "-") {
			paths = append(paths, a)
			continue
		}
		name, val, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "o" {
			name = "out"
		}
		if !ok {
			if i+1 >= len(w) {
				t.Fatalf("%s without a value in %q", a, line)
			}
			i++
			val = w[i]
		}
		flags[name] = val
	}
	return flags, paths
}

// pinned: owner/name[/path]@vN, or a full commit hash.
var pinned = regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@(v\d+|[0-9a-f]{40})$`)

func TestWorkflow(t *testing.T) {
	w, raw := readWorkflow(t)

	// Triggers: pushes to main and the transcripts branch, by hand, and a
	// schedule.
	branch := w.Env["TRANSCRIPTS_BRANCH"]
	if branch == "" {
		t.Fatal("no TRANSCRIPTS_BRANCH")
	}
	push, ok := w.On["push"]
	if !ok {
		t.Fatal("no push trigger")
	}
	var pushOn struct{ Branches []string }
	if err := push.Decode(&pushOn); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"main", branch} {
		if !slices.Contains(pushOn.Branches, b) {
			t.Errorf("push does not trigger on %s: %v", b, pushOn.Branches)
		}
	}
	for _, k := range []string{"workflow_dispatch", "schedule"} {
		if _, ok := w.On[k]; !ok {
			t.Errorf("no %s trigger", k)
		}
	}

	// Permissions for Pages, and one deployment at a time.
	for k, v := range map[string]string{"pages": "write", "id-token": "write", "contents": "read"} {
		if w.Permissions[k] != v {
			t.Errorf("permissions.%s = %q, want %q", k, w.Permissions[k], v)
		}
	}
	if w.Concurrency.Group == "" || w.Concurrency.CancelInProgress == nil || *w.Concurrency.CancelInProgress {
		t.Errorf("concurrency %+v: want a group, deployments not cancelled", w.Concurrency)
	}
	if len(w.Jobs) != 2 {
		t.Errorf("jobs %v, want build and deploy", slices.Sorted(func(yield func(string) bool) {
			for k := range w.Jobs {
				if !yield(k) {
					return
				}
			}
		}))
	}

	// Every action pinned to a major version (or a commit).
	for name, j := range w.Jobs {
		if j.RunsOn == "" {
			t.Errorf("job %s: no runs-on", name)
		}
		ids := map[string]bool{}
		for _, s := range j.Steps {
			if s.Uses != "" && !pinned.MatchString(s.Uses) {
				t.Errorf("job %s: %s is not pinned to a major version", name, s.Uses)
			}
			if s.Uses == "" && s.Run == "" {
				t.Errorf("job %s: step %q does nothing", name, s.Name)
			}
			// A step's outputs are read after it, by its id.
			for _, m := range regexp.MustCompile(`steps\.([\w-]+)\.outputs`).FindAllStringSubmatch(s.Run+fmtMap(s.Env)+fmtMap(s.With), -1) {
				if !ids[m[1]] {
					t.Errorf("job %s: step %q reads steps.%s before it ran", name, s.Name, m[1])
				}
			}
			if s.ID != "" {
				ids[s.ID] = true
			}
		}
	}

	// build: check out, fetch the transcripts, install, configure Pages,
	// restore the cache, build, upload; in that order.
	b, ok := w.Jobs["build"]
	if !ok {
		t.Fatal("no build job")
	}
	order := []struct {
		what      string
		at        int
		uses, run string
	}{
		{what: "checkout", uses: "actions/checkout"},
		{what: "fetch", run: "git fetch"},
		{what: "setup-go", uses: "actions/setup-go"},
		{what: "install", run: "go install"},
		{what: "configure-pages", uses: "actions/configure-pages"},
		{what: "cache", uses: "actions/cache"},
		{what: "build", run: "ccsite build"},
		{what: "upload", uses: "actions/upload-pages-artifact"},
	}
	last := -1
	for i := range order {
		o := &order[i]
		o.at = find(b.Steps, o.uses, o.run)
		if o.at < 0 {
			t.Fatalf("build job: no %s step", o.what)
		}
		if o.at < last {
			t.Errorf("build job: %s comes before %s", o.what, order[i-1].what)
		}
		last = o.at
	}
	step := func(what string) step {
		for _, o := range order {
			if o.what == what {
				return b.Steps[o.at]
			}
		}
		panic(what)
	}

	if f := step("fetch").Run; !strings.Contains(f, "${TRANSCRIPTS_BRANCH}") && !strings.Contains(f, branch) {
		t.Errorf("the fetch step does not fetch the transcripts branch: %s", f)
	}
	if inst := step("install").Run; !strings.Contains(inst, "${CCSITE_MODULE}@") || w.Env["CCSITE_MODULE"] == "" {
		t.Errorf("ccsite is not installed from CCSITE_MODULE: %s", inst)
	}

	build := step("build")
	flags, paths := buildArgs(t, strings.TrimSpace(build.Run))
	git, hasGit := flags["git"]
	if !hasGit && len(paths) == 0 || hasGit && len(paths) > 0 {
		t.Errorf("the build reads --git %q and folders %v: want one or the other", git, paths)
	}
	if hasGit && !strings.HasPrefix(git, ".") {
		t.Errorf("--git %s: want the checked-out repository", git)
	}
	if hasGit && git != "." && !strings.Contains(git, "${TRANSCRIPTS_BRANCH}") {
		t.Errorf("--git %s does not read TRANSCRIPTS_BRANCH", git)
	}
	site, state := flags["out"], flags["state"]
	if site != "site" {
		t.Errorf("the build writes to %q, want site", site)
	}
	if state == "" {
		t.Error("the build keeps its state in the default folder, which no cache restores")
	}
	if base := flags["base-url"]; base == "" || !strings.Contains(base+build.Env[strings.Trim(base, "${}")], "steps.pages.outputs.base_url") {
		t.Errorf("--base-url %q (env %v): want Pages' base_url", base, build.Env)
	}
	if !regexp.MustCompile(`(?m)^\s+# run: ccsite build -o site .* \S+/\S+$`).Match(raw) {
		t.Error("no commented-out build from a folder")
	}

	cache := step("cache")
	cached := strings.Fields(cache.With["path"])
	if !slices.Contains(cached, state) {
		t.Errorf("the cache keeps %v, not the state folder %s", cached, state)
	}
	hl := strings.TrimPrefix(w.Env["CCSITE_CACHE_DIR"], "${{ github.workspace }}/")
	if hl == "" || !slices.Contains(cached, hl) {
		t.Errorf("the cache keeps %v, not the highlight cache (CCSITE_CACHE_DIR %q)", cached, w.Env["CCSITE_CACHE_DIR"])
	}
	if cache.With["key"] == "" || cache.With["restore-keys"] == "" || !strings.HasPrefix(cache.With["key"], cache.With["restore-keys"]) {
		t.Errorf("cache key %q, restore-keys %q: want a new key each run, the latest restored", cache.With["key"], cache.With["restore-keys"])
	}

	if got := step("upload").With["path"]; got != site {
		t.Errorf("upload-pages-artifact uploads %q, the build writes %q", got, site)
	}

	// deploy: after build, to the github-pages environment.
	d, ok := w.Jobs["deploy"]
	if !ok {
		t.Fatal("no deploy job")
	}
	if d.Needs.Value != "build" && !(d.Needs.Kind == yaml.SequenceNode && len(d.Needs.Content) == 1 && d.Needs.Content[0].Value == "build") {
		t.Errorf("deploy does not need build")
	}
	at := find(d.Steps, "actions/deploy-pages", "")
	if at < 0 {
		t.Fatal("deploy job: no actions/deploy-pages")
	}
	if d.Environment.Name != "github-pages" || !strings.Contains(d.Environment.URL, "steps."+d.Steps[at].ID+".outputs.page_url") || d.Steps[at].ID == "" {
		t.Errorf("deploy environment %+v, deploy step id %q", d.Environment, d.Steps[at].ID)
	}
}

func fmtMap(m map[string]string) string {
	var b strings.Builder
	for k, v := range m {
		b.WriteString(k + "=" + v + "\n")
	}
	return b.String()
}

func TestWords(t *testing.T) {
	got := words(`ccsite build --git ".@origin/${B}" -o site  'a b' --x=1`)
	want := []string{"ccsite", "build", "--git", ".@origin/${B}", "-o", "site", "a b", "--x=1"}
	if !slices.Equal(got, want) {
		t.Errorf("words = %q", got)
	}
}

// TestWorkflowRuns runs the workflow's fetch and build steps as the runner
// would, on a shallow clone of a repository whose transcripts are on their
// own branch: then again on a fresh clone with the restored state, as the
// next run does.
func TestWorkflowRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ccsite")
	}
	if runtime.GOOS == "windows" {
		t.Skip("bash steps")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	w, _ := readWorkflow(t)
	b := w.Jobs["build"]
	fetch, build := b.Steps[find(b.Steps, "", "git fetch")], b.Steps[find(b.Steps, "", "ccsite build")]

	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	gobuild := exec.Command("go", "build", "-tags", "gore2regex", "-o", filepath.Join(bin, "ccsite"), ".")
	gobuild.Dir = ".."
	if out, err := gobuild.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x",
		"CCSITE_STATE_HOME="+filepath.Join(dir, "wrong-state"), "XDG_CACHE_HOME="+filepath.Join(dir, "xdg-cache"),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(where string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = where, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}

	// The user's repository: code on main, transcripts (the demo's) on the
	// transcripts branch.
	origin := filepath.Join(dir, "origin")
	run(dir, "git", "init", "-q", "-b", "main", origin)
	os.WriteFile(filepath.Join(origin, "main.go"), []byte("package main\n"), 0o644)
	run(origin, "git", "add", "main.go")
	run(origin, "git", "commit", "-q", "-m", "code")
	run(origin, "git", "checkout", "-q", "--orphan", w.Env["TRANSCRIPTS_BRANCH"])
	run(origin, "git", "rm", "-q", "-r", "--cached", "main.go")
	os.Remove(filepath.Join(origin, "main.go"))
	if err := os.CopyFS(filepath.Join(origin, "checkpoints"), os.DirFS(filepath.Join("..", "demo", "projects"))); err != nil {
		t.Fatal(err)
	}
	run(origin, "git", "add", "checkpoints")
	run(origin, "git", "commit", "-q", "-m", "checkpoints")
	run(origin, "git", "checkout", "-q", "main")

	// A run: actions/checkout's shallow clone of main, then the steps, with
	// the workflow's environment.
	step := func(work string, s step) string {
		t.Helper()
		cmd := exec.Command("bash", "-e", "-c", s.Run)
		cmd.Dir = work
		cmd.Env = env
		for k, v := range w.Env {
			cmd.Env = append(cmd.Env, k+"="+strings.ReplaceAll(v, "${{ github.workspace }}", work))
		}
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+strings.ReplaceAll(v, "${{ steps.pages.outputs.base_url }}", "https://kim.github.io/shop"))
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("step %q: %v\n%s", s.Name, err, out)
		}
		return string(out)
	}
	clone := func(name string) string {
		work := filepath.Join(dir, name)
		run(dir, "git", "clone", "-q", "--depth=1", "--single-branch", "--branch", "main", "file://"+origin, work)
		return work
	}
	work := clone("work") // the runner's workspace: the same path each run
	step(work, fetch)
	out := step(work, build)
	t.Logf("first run:\n%s", out)
	for _, f := range []string{"site/index.html", "site/sitemap.xml", ".ccsite-state", ".ccsite-cache"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("after the build: %v", err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(work, "site", "sitemap.xml")); !strings.Contains(string(data), "https://kim.github.io/shop/") {
		t.Errorf("the sitemap is not under Pages' URL:\n%.300s", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "wrong-state")); err == nil {
		t.Error("the build kept state outside the cached folder")
	}

	// The next run: a fresh clone, the cached folders restored.
	cached := strings.Fields(b.Steps[find(b.Steps, "actions/cache", "")].With["path"])
	saved := filepath.Join(dir, "saved")
	os.MkdirAll(saved, 0o755)
	keep := cached
	if !slices.Contains(keep, "site") {
		keep = append(keep, "site") // to compare with
	}
	for _, d := range keep {
		if err := os.Rename(filepath.Join(work, d), filepath.Join(saved, d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	clone("work")
	for _, d := range cached {
		if err := os.CopyFS(filepath.Join(work, d), os.DirFS(filepath.Join(saved, d))); err != nil {
			t.Fatal(err)
		}
	}
	step(work, fetch)
	out = step(work, build)
	t.Logf("second run:\n%s", out)
	if m := regexp.MustCompile(`(\d+) sessions kept from the last build`).FindStringSubmatch(out); m == nil || m[1] != "8" { // the demo's 7 Claude Code sessions and 1 of Codex
		t.Errorf("the second run did not build from the restored state: %v", m)
	}
	same, err := exec.Command("diff", "-r", filepath.Join(saved, "site"), filepath.Join(work, "site")).CombinedOutput()
	if err != nil {
		t.Errorf("the second run's site differs from the first's:\n%s", same)
	}
}
