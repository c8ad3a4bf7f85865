package render_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"ccsite/build/link"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"ccsite/internal/corpustest"

	"github.com/go-json-experiment/json/jsontext"
)

// compareStructured decodes tur into a new value of typ with
// transcript.FastInto and into another with transcript.Unmarshal, and
// returns whether the fast path took it, whether json read it, and what is
// wrong ("" when nothing is): the fast path must only take what json reads,
// to the same value, and leave its value alone when it refuses.
func compareStructured(tur []byte, typ reflect.Type) (fast, jsonOK bool, diff string) {
	got, want := reflect.New(typ), reflect.New(typ)
	fast = transcript.FastInto(tur, got.Interface())
	jsonOK = transcript.Unmarshal(tur, want.Interface()) == nil
	switch {
	case fast && !jsonOK:
		diff = "the fast path took a value json rejects"
	case fast && !sameValue(got.Elem(), want.Elem()):
		diff = fmt.Sprintf("fast path %+.300v, json %+.300v", got.Elem(), want.Elem())
	case !fast && !got.Elem().IsZero():
		diff = fmt.Sprintf("the fast path refused but changed its value: %+.300v", got.Elem())
	}
	// structured reads with FastIntoValid (its values are JSON the
	// decoder accepted): what it takes must be json's value too, and it
	// must take all FastInto takes.
	valid := reflect.New(typ)
	switch validFast := transcript.FastIntoValid(tur, valid.Interface()); {
	case diff != "":
	case fast && !validFast:
		diff = "FastIntoValid refused a value FastInto takes"
	case validFast && !jsonOK:
		diff = "FastIntoValid took a value json rejects"
	case validFast && !sameValue(valid.Elem(), want.Elem()):
		diff = fmt.Sprintf("FastIntoValid %+.300v, json %+.300v", valid.Elem(), want.Elem())
	}
	return fast, jsonOK, diff
}

// sameValue is reflect.DeepEqual, floats compared by their bits (-0 is not
// 0).
func sameValue(x, y reflect.Value) bool {
	return reflect.DeepEqual(x.Interface(), y.Interface()) && sameFloats(x, y)
}

func sameFloats(x, y reflect.Value) bool {
	switch x.Kind() {
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(x.Float()) == math.Float64bits(y.Float())
	case reflect.Struct:
		for i := range x.NumField() {
			if !sameFloats(x.Field(i), y.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range x.Len() {
			if !sameFloats(x.Index(i), y.Index(i)) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !x.IsNil() {
			return sameFloats(x.Elem(), y.Elem())
		}
	}
	return true
}

// corpusSessions lists the corpus's session files ($CCSITE_CORPUS; none
// when unset), sub-agents left to the sessions they belong to.
func corpusSessions(tb testing.TB) []string {
	root := os.Getenv("CCSITE_CORPUS")
	if root == "" {
		return nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// buildViews makes the views of the session of each file and of each of
// its sub-agents, as the site's pages do: every tool call's result is
// read by its tool's view.
func buildViews(tb testing.TB, files []string) {
	var views func(parent, s *session.Session)
	views = func(parent, s *session.Session) {
		l := render.Links{Page: sessionPage(s), Project: link.Project(testProject),
			Agent: func(a *session.Session) string { return agentPage(s, a) }}
		if parent != nil {
			l.Page, l.Parent, l.ParentTitle = agentPage(parent, s), sessionPage(parent), parent.Title
		}
		sharedBuilder.Session(s, "project", l)
		for _, a := range s.Agents {
			views(s, a)
		}
	}
	for _, file := range files {
		views(nil, loadSession(tb, file))
	}
}

// brokenWrites writes sessions of a Write call whose result has a member
// of the wrong type, which writeTool reads in two parts; it returns their
// paths.
func brokenWrites(t *testing.T) []string {
	data, err := os.ReadFile(filepath.Join("testdata", "sessions", "tool-write-update.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(data, []byte(`"toolUseResult":`))
	end := bytes.Index(data, []byte(`,"sourceToolAssistantUUID"`))
	if start < 0 || end < start {
		t.Fatal("tool-write-update.jsonl: no toolUseResult")
	}
	dir := t.TempDir()
	var files []string
	for i, tur := range []string{
		`{"type":"update","originalFile":"export function formatPrice() {}\n","structuredPatch":"not a patch"}`,
		`{"type":"update","originalFile":5,"structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}]}`,
		`{"type":["update"],"structuredPatch":[{"oldStart":"1"}]}`,
	} {
		line := slices.Concat(data[:start], []byte(`"toolUseResult":`+tur), data[end:])
		path := filepath.Join(dir, fmt.Sprintf("broken-write-%d.jsonl", i))
		if err := os.WriteFile(path, line, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	return files
}

// callStats counts structured's calls on objects of one type.
type callStats struct {
	calls, fast, json, failed int // failed: json rejects it too
}

// TestStructuredFastInto builds the views of the test sessions, the hostile
// one, and with $CCSITE_CORPUS every corpus session, checking every call
// of structured on an object: transcript.FastInto must give json's value or
// refuse. Then it decodes every toolUseResult object of the corpus (and
// every object structured saw) into every type structured was called
// with, both ways. The fast path must take nearly all of what json reads.
func TestStructuredFastInto(t *testing.T) {
	var mu sync.Mutex
	stats := map[reflect.Type]*callStats{}
	values := map[string]bool{}
	render.SetStructuredHook(func(tur jsontext.Value, res any) {
		if len(tur) == 0 || tur[0] != '{' {
			return // structured decodes nothing else
		}
		typ := reflect.TypeOf(res).Elem()
		fast, jsonOK, diff := compareStructured(tur, typ)
		mu.Lock()
		defer mu.Unlock()
		if diff != "" {
			t.Errorf("%v: %.200s: %s", typ, tur, diff)
		}
		st := stats[typ]
		if st == nil {
			st = &callStats{}
			stats[typ] = st
		}
		st.calls++
		switch {
		case fast:
			st.fast++
		case jsonOK:
			st.json++
		default:
			st.failed++
		}
		values[string(tur)] = true
	})
	t.Cleanup(func() { render.SetStructuredHook(nil) })

	files := caseFiles(t)
	path, _ := hostileTranscript(t, t.TempDir())
	files = append(files, path)
	files = append(files, brokenWrites(t)...)
	files = append(files, corpusSessions(t)...)
	buildViews(t, files)

	var all callStats
	types := slices.Collect(func(yield func(reflect.Type) bool) {
		for typ := range stats {
			if !yield(typ) {
				return
			}
		}
	})
	slices.SortFunc(types, func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) })
	for _, typ := range types {
		st := stats[typ]
		all.calls, all.fast, all.json, all.failed = all.calls+st.calls, all.fast+st.fast, all.json+st.json, all.failed+st.failed
		t.Logf("%5d calls, %5d fast, %3d refused, %3d rejected by json: %v", st.calls, st.fast, st.json, st.failed, typ)
	}
	t.Logf("%d types; %d calls on objects: the fast path took %d, json read %d it refused, %d json rejects too",
		len(types), all.calls, all.fast, all.json, all.failed)
	if len(types) < 16 {
		t.Errorf("structured was called with %d types, want the 16 of tools.go", len(types))
	}
	if os.Getenv("CCSITE_CORPUS") != "" && all.fast < 99*(all.fast+all.json)/100 {
		t.Errorf("the fast path took %d of the %d calls json reads, want at least 99%%", all.fast, all.fast+all.json)
	}

	// Every value against every type.
	if os.Getenv("CCSITE_CORPUS") != "" {
		corpustest.EachLine(t, func(file string, line []byte) {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				return
			}
			rec, _ := transcript.DecodeLine(line, file, 0)
			if tur := rec.ToolUseResult; len(tur) > 0 && tur[0] == '{' {
				values[string(tur)] = true
			}
		})
	}
	var cross callStats
	for v := range values {
		for _, typ := range types {
			fast, jsonOK, diff := compareStructured([]byte(v), typ)
			if diff != "" {
				t.Errorf("%v: %.200s: %s", typ, v, diff)
			}
			cross.calls++
			switch {
			case fast:
				cross.fast++
			case jsonOK:
				cross.json++
			default:
				cross.failed++
			}
		}
	}
	t.Logf("%d objects × %d types: the fast path took %d, json read %d it refused, %d json rejects too",
		len(values), len(types), cross.fast, cross.json, cross.failed)
}

// BenchmarkStructured decodes every object structured is given while the
// corpus's views are made ($CCSITE_CORPUS), into a new value of its type,
// with json as structured did before transcript.FastInto, with FastInto
// (json for what it refuses), and as it does now (FastIntoValid).
func BenchmarkStructured(b *testing.B) {
	files := corpusSessions(b)
	if len(files) == 0 {
		b.Skip("CCSITE_CORPUS not set")
	}
	type call struct {
		tur []byte
		typ reflect.Type
	}
	var calls []call
	size := 0
	render.SetStructuredHook(func(tur jsontext.Value, res any) {
		if len(tur) > 0 && tur[0] == '{' {
			calls = append(calls, call{bytes.Clone(tur), reflect.TypeOf(res).Elem()})
			size += len(tur)
		}
	})
	buildViews(b, files)
	render.SetStructuredHook(nil)
	b.Logf("%d calls, %.1f MB", len(calls), float64(size)/1e6)
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, c := range calls {
				_ = transcript.Unmarshal(c.tur, reflect.New(c.typ).Interface())
			}
		}
	})
	for _, fast := range []struct {
		name string
		into func([]byte, any) bool
	}{{"fast", transcript.FastInto}, {"valid", transcript.FastIntoValid}} {
		b.Run(fast.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, c := range calls {
					out := reflect.New(c.typ).Interface()
					_ = fast.into(c.tur, out) || transcript.Unmarshal(c.tur, out) == nil
				}
			}
		})
	}
}
