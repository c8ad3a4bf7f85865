package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ccsite/build"
	"ccsite/build/redact"
)

// A build the SessionEnd hook starts runs in the background with its
// output on /dev/null (see package hook). It is given --from-hook, and
// writes how it ended and what it printed to hook.log in the site's state
// folder; the next ccsite build of the site says when the last one failed.
const (
	fromHookFlag = "from-hook"
	hookLogName  = "hook.log"
	// hookLogMax is how much of the hook build's output is kept: its end.
	hookLogMax = 16 << 10
	// hookLogHead starts the log's first line: the outcome and the time.
	hookLogHead = "ccsite build (SessionEnd hook): "
)

// runBuildLogged runs ccsite build. The hook's build (--from-hook) also
// writes hook.log; any other build first says whether the last hook build
// failed since the last build that worked.
func runBuildLogged(e *env, bf *buildFlagSet, paths []string) int {
	if !*bf.fromHook {
		log := noteHookFailure(e, bf)
		code := runBuild(e, bf, paths)
		if code == exitOK && log != "" {
			markHookFailureSeen(log)
		}
		return code
	}
	tail := &tailBuffer{max: hookLogMax}
	he := *e
	he.stderr = io.MultiWriter(e.stderr, tail)
	he.args = withoutFromHook(e.args) // serve --watch reruns it as a build of its own
	start := time.Now()
	code := runBuild(&he, bf, paths)
	state, err := stateOf(*bf.out, *bf.state, e.getenv)
	if err != nil {
		return code
	}
	log := hookLog(start.UTC(), time.Since(start), code, he.args, tail.String())
	if err := build.WritePrivateFile(filepath.Join(state, hookLogName), []byte(hookRedact(bf, e.getenv, log))); err != nil {
		fmt.Fprintf(e.stderr, "ccsite build: warning: %s: %v\n", hookLogName, err)
	}
	return code
}

// hookLog is the text of hook.log: the outcome and time on its first
// line, the command, then the output's end.
func hookLog(at time.Time, took time.Duration, code int, args []string, output string) string {
	var b strings.Builder
	outcome := "ok"
	if code != exitOK {
		outcome = "failed"
	}
	fmt.Fprintf(&b, "%s%s at %s (exit status %d, after %s)\n", hookLogHead, outcome, at.Format(time.RFC3339), code, took.Round(time.Millisecond))
	fmt.Fprintf(&b, "command: ccsite %s\n", strings.Join(args, " "))
	if output == "" {
		b.WriteString("output: none\n")
		return b.String()
	}
	b.WriteString("output:\n")
	b.WriteString(output)
	if !strings.HasSuffix(output, "\n") {
		b.WriteByte('\n')
	}
	return b.String()
}

// hookRedact redacts the log as the build's pages are, and with gitleaks'
// rules even under --no-redact: an error may quote a transcript's line.
func hookRedact(bf *buildFlagSet, getenv func(string) string, log string) string {
	opts, err := bf.rf.options(getenv)
	if err != nil {
		opts = redact.Options{}
	}
	opts.Secrets = true
	red, err := redact.New(opts)
	if err != nil {
		return log
	}
	return red.String("", log)
}

// hookLogSeen, a line of hook.log after its first, says that a build
// of the site worked after the failed hook build: it is not told again.
const hookLogSeen = "a build worked since: "

// noteHookFailure says, on stderr, that the last hook build failed, when
// no build of the site has worked since: when, its last line, and where
// the log is. It returns the log's path when it said so.
func noteHookFailure(e *env, bf *buildFlagSet) string {
	state, err := stateOf(*bf.out, *bf.state, e.getenv)
	if err != nil {
		return ""
	}
	path := filepath.Join(state, hookLogName)
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	at, last, ok := failedHookRun(data)
	if !ok {
		return ""
	}
	msg := ""
	if last != "" {
		msg = ": " + oneLine(strings.TrimPrefix(last, "ccsite build: "), 200)
	}
	fmt.Fprintf(e.stderr, "ccsite build: the last build by the SessionEnd hook failed at %s%s; see %s\n",
		at.Local().Format("2006-01-02 15:04:05 MST"), msg, path)
	return path
}

// markHookFailureSeen adds to the failed hook build's log that a build
// worked since.
func markHookFailureSeen(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	out := fmt.Appendf(nil, "%s\n%s%s\n%s", first, hookLogSeen, time.Now().UTC().Format(time.RFC3339), rest)
	build.WritePrivateFile(path, out)
}

// failedHookRun reads hook.log: when the run failed, and the last line it
// printed; ok is false when it did not fail (or the log is not one).
func failedHookRun(data []byte) (at time.Time, last string, ok bool) {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	s, found := strings.CutPrefix(string(first), hookLogHead+"failed at ")
	if !found {
		return at, "", false
	}
	stamp, _, _ := strings.Cut(s, " ")
	at, err := time.Parse(time.RFC3339, stamp)
	if err != nil || bytes.HasPrefix(rest, []byte(hookLogSeen)) {
		return at, "", false
	}
	if _, out, found := bytes.Cut(rest, []byte("\noutput:\n")); found {
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				last = line
			}
		}
	}
	return at, last, true
}

// withoutFromHook is args without --from-hook.
func withoutFromHook(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a != "--"+fromHookFlag && a != "--"+fromHookFlag+"=true" {
			out = append(out, a)
		}
	}
	return out
}

// tailBuffer keeps the last max bytes written to it, from a line's start.
type tailBuffer struct {
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.trim()
	}
	return len(p), nil
}

func (t *tailBuffer) trim() {
	if len(t.buf) <= t.max {
		return
	}
	keep := t.buf[len(t.buf)-t.max:]
	if i := bytes.IndexByte(keep, '\n'); i >= 0 && i < len(keep)-1 {
		keep = keep[i+1:]
	}
	t.buf = append(t.buf[:0], keep...)
	t.cut = true
}

// String is what was kept, saying so when the start was cut.
func (t *tailBuffer) String() string {
	t.trim()
	if t.cut {
		return "[…]\n" + string(t.buf)
	}
	return string(t.buf)
}
