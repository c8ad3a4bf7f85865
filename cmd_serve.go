package main

import (
	"ccsite/build"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"ccsite/build/archive"
	"ccsite/serve"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newServeCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "serve [flags] [SITE]",
		Short: "Serve a built site and its search API; --watch rebuilds it as you work",
		Long: `Serve a built site (default ./site) on a local address, with the search API
GET /api/search?q=… (the search page then uses it). A site copied without its
state is served with the static search.

--watch also keeps the site up to date: it watches the transcripts the site
was last built from and, once a change has settled, runs the same ccsite
build again (as recorded by that build); open pages then reload.

Requests must name the server (their Host header) as localhost, a loopback
address, or the host of --addr; with a wildcard --addr (:8080, 0.0.0.0,
[::]), any IP address. Any other name is refused (421 Misdirected
Request), so a web page whose name is made to point at this machine (DNS
rebinding) cannot read the site. --allow-host NAME lets a name of yours
in, e.g. the machine's name on the local network.`,
		Example: `  ccsite serve
  ccsite serve --addr :8080 public
  ccsite serve --addr :8080 --allow-host mybox.lan --allow-host mybox
  ccsite serve --watch --interval 500ms`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("name at most one site folder")
			}
			return nil
		},
	}
	f := c.Flags()
	addr := f.StringP("addr", "a", "127.0.0.1:8080", "listen on `HOST:PORT`")
	watch := f.BoolP("watch", "w", false, "build the site again when its transcripts change, and reload the open pages")
	interval := f.Duration("interval", time.Second, "with --watch, look for changes every `DURATION` when polling")
	state := f.String("state", "", "the site's build state `DIR` (its search index); default: the one ccsite build uses for the folder")
	allow := f.StringArray("allow-host", nil, "also answer requests for the host `NAME` (repeatable; besides localhost, loopback addresses and the --addr host)")
	f.SortFlags = false
	c.RunE = func(c *cobra.Command, rest []string) error {
		if *interval <= 0 {
			return usagef("--interval must be more than 0")
		}
		for _, h := range *allow {
			if !isHostName(h) {
				return usagef("--allow-host wants a host name (or an IP address), not %q", h)
			}
		}
		dir := "site"
		if len(rest) == 1 {
			dir = rest[0]
		}
		return status(runServe(e, dir, *addr, *state, *allow, *watch, *interval))
	}
	return c
}

func runServe(e *env, dir, addr, state string, allow []string, watch bool, interval time.Duration) int {
	ctx, stderr := e.ctx, e.stderr
	if err := isSite(dir); err != nil {
		fmt.Fprintf(stderr, "ccsite serve: %v\n", err)
		return exitFail
	}
	state, err := stateOf(dir, state, e.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ccsite serve: %v\n", err)
		return exitFail
	}
	index := build.IndexPath(state)
	started := func(a string) {
		fmt.Fprintf(stderr, "ccsite serve: %s on http://%s/ (search API: /api/search?q=…); Ctrl-C stops\n", dir, a)
	}
	if !watch {
		err = serve.Run(ctx, dir, index, addr, allow, started)
	} else {
		err = serveWatching(ctx, dir, index, addr, allow, interval, stderr, started)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ccsite serve: %v\n", err)
		return exitFail
	}
	return exitOK
}

// isHostName tells whether s can be an --allow-host name: letters, digits
// and . - _ (an IP address: : [ ] too), a port allowed.
func isHostName(s string) bool {
	if strings.Trim(s, ".:[]") == "" {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(".-_:[]", r)) {
			return false
		}
	}
	return true
}

// siteMarker is the file every build writes at the root of its site
// (build/lists.go).
const siteMarker = ".ccsite-site"

// isSite says why dir is not a site ccsite built: it must hold the marker
// every build writes, or, copied without its dot files, an index.html
// beside assets/.
func isSite(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s does not exist; build a site there first with: ccsite build -o %s", dir, dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a folder; serve the folder ccsite build wrote (ccsite build -o DIR)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, siteMarker)); err == nil {
		return nil
	}
	_, page := os.Stat(filepath.Join(dir, "index.html"))
	_, assets := os.Stat(filepath.Join(dir, "assets"))
	if page == nil && assets == nil {
		return nil
	}
	return fmt.Errorf("%s is not a site built by ccsite (no %s in it); build one with: ccsite build -o %s", dir, siteMarker, dir)
}

// serveWatching serves the site in dir and builds it again, as it was last
// built, whenever its input changes; open pages then reload.
func serveWatching(ctx context.Context, dir, index, addr string, allow []string, interval time.Duration, stderr io.Writer, started func(string)) error {
	rec, builtAt, err := readBuildRecord(dir)
	if err != nil {
		return err
	}
	roots, out, err := rec.inputs(os.Getenv)
	if err != nil {
		return err
	}
	if err := sameDir(dir, out); err != nil {
		return err
	}
	self, err := selfPath()
	if err != nil {
		return fmt.Errorf("--watch: find the ccsite program to build with: %w", err)
	}
	site, err := serve.Open(dir, index, true)
	if err != nil {
		return err
	}
	defer site.Close()
	if err := site.AllowHosts(allow...); err != nil {
		return err
	}
	go func() {
		if err := site.Ready(); err != nil {
			fmt.Fprintf(stderr, "ccsite serve: search index: %v (/api/search answers 500; the pages are served)\n", err)
		}
	}()
	w := serve.NewWatcher(roots, interval, builtAt)
	rebuild := func(ctx context.Context) {
		start := time.Now()
		fmt.Fprintln(stderr, "ccsite serve: transcripts changed; building the site again")
		n, err := site.Rebuild(func() error { return rec.rebuild(ctx, self, stderr) })
		switch {
		case ctx.Err() != nil:
		case err != nil:
			fmt.Fprintf(stderr, "ccsite serve: the build failed (%v); pages not reloaded\n", err)
		default:
			fmt.Fprintf(stderr, "ccsite serve: built in %s; %d open page(s) reloading\n", time.Since(start).Round(time.Millisecond), n)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // before the site closes: a build may be running
	}()
	return site.Serve(ctx, addr, func(a string) {
		started(a)
		where := strings.Join(roots, ", ")
		if where == "" {
			where = "no folder (the build read the default folders, and none exists)"
		}
		fmt.Fprintf(stderr, "ccsite serve: watching %d input file(s) under %s; pages reload on change\n", w.Files(), where)
		fmt.Fprintf(stderr, "ccsite serve: %s\n", w.Mode())
		wg.Go(func() { w.Run(ctx, rebuild) })
	})
}

// readBuildRecord reads the record ccsite build left for the site (in the
// cache folder), and when it was written.
func readBuildRecord(site string) (BuildRecord, time.Time, error) {
	var rec BuildRecord
	p, err := recordPath(site, os.Getenv)
	if err != nil {
		return rec, time.Time{}, fmt.Errorf("--watch: %w", err)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return rec, time.Time{}, fmt.Errorf("--watch: %s has no build record (%s): build the site with ccsite build first", site, p)
	}
	if err != nil {
		return rec, time.Time{}, fmt.Errorf("--watch: %w", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.Dir == "" {
		return rec, time.Time{}, fmt.Errorf("--watch: %s is not a build record (build the site again with ccsite build)", p)
	}
	st, err := os.Stat(p)
	if err != nil {
		return rec, time.Time{}, fmt.Errorf("--watch: %w", err)
	}
	return rec, st.ModTime(), nil
}

// inputs parses the recorded build's arguments as build does: the paths it
// read (the default folders when none was named) and the folder it wrote,
// absolute.
func (rec BuildRecord) inputs(getenv func(string) string) (roots []string, out string, err error) {
	fs := buildFlags()
	// Spelled as build reads them: "-force" (older records) is "--force".
	args := longFlags(newRoot(&env{}), append([]string{"build"}, rec.Args...))[1:]
	if err := fs.Parse(args); err != nil {
		return nil, "", fmt.Errorf("--watch: the recorded build arguments %q: %w", rec.Args, err)
	}
	paths := fs.Args()
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(rec.Dir, p)
	}
	for _, p := range paths {
		roots = append(roots, abs(p))
	}
	if len(roots) == 0 && fs.Lookup("git").Value.String() == "" {
		home, _ := os.UserHomeDir()
		if h := getenv("HOME"); h != "" {
			home = h
		}
		roots = archive.AllDefaultRoots(getenv, home, nil)
	}
	return roots, abs(fs.Lookup("out").Value.String()), nil
}

// buildFlags has the flags of ccsite build (declared once, by
// declareBuildFlags), to tell a recorded build's paths from its flags'
// values.
func buildFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("build", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	declareBuildFlags(fs)
	fs.SetNormalizeFunc(aliases)
	return fs
}

// sameDir checks that the site served is the one the recorded build
// writes (not a copy of it).
func sameDir(site, out string) error {
	a, err := os.Stat(site)
	if err != nil {
		return err
	}
	b, err := os.Stat(out)
	if err != nil || !os.SameFile(a, b) {
		return fmt.Errorf("--watch: %s was built into %s; serve that folder", site, out)
	}
	return nil
}

// rebuild runs the recorded build again, in its folder, as a child
// process of this same program: its --quiet output (warnings and errors)
// goes to stderr. When ctx ends, the build is interrupted as by Ctrl-C.
func (rec BuildRecord) rebuild(ctx context.Context, self string, stderr io.Writer) error {
	// --quiet before the recorded arguments, which may end with "-- PATH".
	cmd := exec.CommandContext(ctx, self, append([]string{"build", "--quiet"}, rec.Args...)...)
	cmd.Dir = rec.Dir
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	return cmd.Run()
}

// selfPath is the program to run ccsite build with: this one. A bare name
// is looked up on PATH as the shell did — a program that is several
// commands by name (a test binary run as ccsite) stays the right one —
// else the running executable.
func selfPath() (string, error) {
	if name := os.Args[0]; filepath.Base(name) == name {
		if p, err := exec.LookPath(name); err == nil {
			return filepath.Abs(p)
		}
	}
	return os.Executable()
}
