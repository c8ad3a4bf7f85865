package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary double as the ccsite command that the
// scripts in testdata/script run.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ccsite": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

// TestScripts runs the CLI scripts in testdata/script. Each script starts
// with HOME=/no-home and no CLAUDE_CONFIG_DIR, so only the trees it writes
// are read. CCSITE_UPDATE=1 rewrites the files that cmp compares against.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("CCSITE_UPDATE") != "",
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits": cmdExits,
			"json":  cmdJSON,
		},
	})
}

// cmdExits runs a program and checks its exit status; its stdout and
// stderr are then checked as after exec:
//
//	exits 2 ccsite inspect --bogus
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad exit code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdJSON checks that a file (or stdout, stderr) holds one JSON document,
// and that a dotted path in it exists and, with a value, equals it. Path
// elements are object keys or array indexes; len(PATH) is the length of an
// array or object. Strings compare as text, other values as compact JSON.
// With "!": no PATH, the file must not be JSON; no VALUE, the path must be
// missing; with a VALUE, the path must exist with another value.
//
//	json stdout projects.0.sessions.0.title 'Fix the build'
//	json stdout len(projects) 2
//	! json stdout orphanAgents.0
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 3 {
		ts.Fatalf("usage: json FILE [PATH [VALUE]]")
	}
	data := ts.ReadFile(args[0])
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var doc any
	err := dec.Decode(&doc)
	if err == nil {
		if _, extra := dec.Token(); extra == nil {
			err = errors.New("more than one JSON value")
		}
	}
	switch {
	case len(args) == 1 && neg && err == nil:
		ts.Fatalf("%s is valid JSON", args[0])
	case len(args) == 1 && neg:
		return
	case err != nil:
		ts.Fatalf("%s: invalid JSON: %v", args[0], err)
	case len(args) == 1:
		return
	}
	path := args[1]
	inner, isLen := strings.CutPrefix(path, "len(")
	inner, closed := strings.CutSuffix(inner, ")")
	if isLen != closed {
		ts.Fatalf("json: bad path %q", path)
	}
	v, err := lookup(doc, inner)
	if err == nil && isLen {
		v, err = length(v, inner)
	}
	if err != nil {
		if neg && len(args) == 2 {
			return
		}
		ts.Fatalf("%s: %v", args[0], err)
	}
	got := display(v)
	switch {
	case len(args) == 2 && neg:
		ts.Fatalf("%s: %s exists: %s", args[0], path, got)
	case len(args) == 3 && neg && got == args[2]:
		ts.Fatalf("%s: %s = %s", args[0], path, got)
	case len(args) == 3 && !neg && got != args[2]:
		ts.Fatalf("%s: %s = %s, want %s", args[0], path, got, args[2])
	}
}

// lookup follows a dotted path through decoded JSON.
func lookup(v any, path string) (any, error) {
	var at []string
	for _, key := range strings.Split(path, ".") {
		here := strings.Join(at, ".")
		if here == "" {
			here = "the top"
		}
		at = append(at, key)
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[key]
			if !ok {
				return nil, errors.New("no key " + strconv.Quote(key) + " at " + here)
			}
			v = e
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, errors.New("no index " + key + " at " + here + " (length " + strconv.Itoa(len(x)) + ")")
			}
			v = x[i]
		default:
			return nil, errors.New(here + " is not an object or array")
		}
	}
	return v, nil
}

// length is the number of elements of an array or object.
func length(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		return json.Number(strconv.Itoa(len(x))), nil
	case []any:
		return json.Number(strconv.Itoa(len(x))), nil
	}
	return nil, errors.New(path + " is not an object or array")
}

// display is a string's text or any other value's compact JSON.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "<" + err.Error() + ">"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
