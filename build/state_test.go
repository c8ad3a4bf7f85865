package build

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/search"
)

// TestStateRoundTrip: the manifest reads back as it was written, every
// kind of field a unit holds included (times, durations, costs, an orphan's
// link, problems, redaction counts), and a second write of what was read
// is the same bytes.
func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 5, 1, 9, 30, 0, 123456789, time.UTC)
	st := &buildState{
		Format: stateFormat, Tool: "tool", Options: "opts",
		Sources: map[string]source{"b/x.jsonl": {Size: 10, MTime: 99, Hash: "ab"}, "a/y.jsonl": {Size: 1}},
		Units: map[string]*unit{
			"p/s.html": {Key: "k", Session: "s", Title: "Fix the <b>thing</b> \u2028 ünïcode", Project: "/home/p",
				Refs: []string{"r"}, Files: []string{"p/s.html", "p/s.md"}, DocsHash: "dh",
				Overview: session.Overview{Title: "t", Start: start, End: start.Add(time.Hour), Active: 37*time.Minute + 5*time.Millisecond,
					Turns: 3, Tokens: session.Tokens{Input: 5, Output: 7, CacheRead: 1 << 40}, Models: []string{"m"},
					Cost: 0.1 + 0.2, CostByModel: map[string]float64{"m": 1e-9, "n": 3}},
				Pages: 2, Problems: []session.Problem{{File: "f", Line: 3, Kind: "line", Reason: "bad"}},
				Redacted: map[string]map[string]int{"f": {"aws": 2}}},
			"p/agent-a.html": {Key: "o", Orphan: &render.Nav{Title: "o", URL: "../x.html", Time: render.Time{ISO: "i", Zero: true}},
				Files: []string{"p/agent-a.html"}, Deleted: "2026-05-02"},
		},
		Static: []string{"search/index.js"}, Search: search.StaticStats{Docs: 4, Bytes: 5}, Docs: 4, IndexUpdated: true,
	}
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(filepath.Join(dir, stateFile))
	got := readState(dir, "tool", "opts")
	if got == nil {
		t.Fatalf("the manifest written does not read back:\n%s", first)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("read back:\n%+v\nwant:\n%+v", got, st)
	}
	os.Remove(filepath.Join(dir, stateFile))
	if err := writeState(dir, got); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(filepath.Join(dir, stateFile)); string(second) != string(first) {
		t.Errorf("written again, the manifest changed:\n%s\n%s", first, second)
	}
	if readState(dir, "other tool", "opts") != nil || readState(dir, "tool", "other") != nil {
		t.Error("a manifest of another tool or other options was taken")
	}
	st.IndexUpdated = false
	if err := writeState(dir, st); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, stateFile)); len(data) == 0 || strings.Contains(string(data), "indexUpdated") {
		t.Errorf("an index made anew is still said to be updated: %s", data)
	}
}
