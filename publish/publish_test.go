package publish

import (
	"os"
	"regexp"
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
	// What the runner test (workflowrun_test.go) handles of the rest;
	// any other key fails the decoding.
	Shell            string
	WorkingDirectory string `yaml:"working-directory"`
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
// whose run holds a line starting with run; -1 if none.
func find(steps []step, action, run string) int {
	for i, s := range steps {
		if action != "" && strings.HasPrefix(s.Uses, action+"@") {
			return i
		}
		if run != "" && runLine(s.Run, run) != "" {
			return i
		}
	}
	return -1
}

// runLine is the first line of a run script that starts with prefix
// (after indentation), or "".
func runLine(script, prefix string) string {
	for _, l := range strings.Split(script, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// sourceCheckout is the index of the checkout of ccsite's own source: an
// actions/checkout with a repository; -1 if none.
func sourceCheckout(steps []step) int {
	for i, s := range steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["repository"] != "" {
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

	// Triggers: pushes to main, by hand, and a schedule (pushes of
	// refs/entire/* trigger nothing on GitHub).
	push, ok := w.On["push"]
	if !ok {
		t.Fatal("no push trigger")
	}
	var pushOn struct{ Branches []string }
	if err := push.Decode(&pushOn); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pushOn.Branches, "main") {
		t.Errorf("push does not trigger on main: %v", pushOn.Branches)
	}
	if !regexp.MustCompile(`(?m)^#.*never\s*\n#\s+on other refs: a push of refs/entire/\* alone runs nothing`).Match(raw) {
		t.Error("the comments do not say that pushes of refs/entire/* trigger nothing")
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

	// build: check out, fetch the checkpoints, check out ccsite's source,
	// set up Go from it, install, configure Pages, restore the cache,
	// build, upload; in that order.
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
		{what: "source"},
		{what: "setup-go", uses: "actions/setup-go"},
		{what: "install", run: "make"},
		{what: "configure-pages", uses: "actions/configure-pages"},
		{what: "cache", uses: "actions/cache"},
		{what: "build", run: "ccsite build"},
		{what: "upload", uses: "actions/upload-pages-artifact"},
	}
	last := -1
	for i := range order {
		o := &order[i]
		o.at = find(b.Steps, o.uses, o.run)
		if o.what == "source" {
			o.at = sourceCheckout(b.Steps)
		}
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

	// Every branch with its history (the old layout's branch, the commits
	// with trailers), then the checkpoint refs.
	if d := step("checkout").With["fetch-depth"]; d != "0" {
		t.Errorf("the checkout has fetch-depth %q, want 0 (every branch, all history)", d)
	}
	if f := runLine(step("fetch").Run, "git fetch"); !slices.ContainsFunc(words(f), func(w string) bool {
		return strings.TrimPrefix(w, "+") == "refs/entire/*:refs/entire/*"
	}) {
		t.Errorf("the fetch step does not fetch refs/entire/*: %s", f)
	}

	// ccsite built from its source, at the version set once at the top.
	src := step("source")
	for k, v := range map[string]string{"repository": "CCSITE_REPO", "ref": "CCSITE_REF", "path": "CCSITE_SRC"} {
		if src.With[k] != "${{ env."+v+" }}" || w.Env[v] == "" {
			t.Errorf("the source checkout's %s is %q (env %s %q): want ${{ env.%s }}, set", k, src.With[k], v, w.Env[v], v)
		}
	}
	srcDir := "${{ env.CCSITE_SRC }}"
	if got := step("setup-go").With["go-version-file"]; got != srcDir+"/go.mod" {
		t.Errorf("Go is set up from %q, want the source's go.mod", got)
	}
	if inst := runLine(step("install").Run, "make"); !slices.Equal(words(inst), []string{"make", "-C", "$CCSITE_SRC", "build"}) {
		t.Errorf("the install step does not run the source's make build: %q", inst)
	}

	build := step("build")
	flags, paths := buildArgs(t, runLine(build.Run, "ccsite build"))
	git, hasGit := flags["git"]
	if !hasGit && len(paths) == 0 || hasGit && len(paths) > 0 {
		t.Errorf("the build reads --git %q and folders %v: want one or the other", git, paths)
	}
	if hasGit && git != "." {
		t.Errorf("--git %s: want the checked-out repository with no ref (every layout)", git)
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
	got := words(`ccsite build --git ".@origin/${B}" -o site  'a b' --x=1 '+refs/entire/*:refs/entire/*'`)
	want := []string{"ccsite", "build", "--git", ".@origin/${B}", "-o", "site", "a b", "--x=1", "+refs/entire/*:refs/entire/*"}
	if !slices.Equal(got, want) {
		t.Errorf("words = %q", got)
	}
}
