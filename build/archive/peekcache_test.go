package archive

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// peeks is what Discover read of each file, by path.
func peeks(a *Archive) map[string][5]string {
	out := map[string][5]string{}
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			out[s.Path] = [5]string{s.FirstCWD, s.SessionID, s.FirstUUID, s.FirstTime.String(), s.ContinuedIn}
			for _, ag := range s.Agents {
				out[ag.Path] = [5]string{ag.FirstCWD, ag.ParentID, "", ag.FirstTime.String(), ""}
			}
		}
	}
	for _, ag := range a.Orphans {
		out[ag.Path] = [5]string{ag.FirstCWD, ag.ParentID, "", ag.FirstTime.String(), ""}
	}
	return out
}

// TestPeekCache: a discovery through the cache finds what one without it
// finds, cold and warm; a warm one leaves the cache file alone; a file
// that changed (a continued-in record appended) is read again; a file gone
// leaves the cache.
func TestPeekCache(t *testing.T) {
	root := tree(t, map[string]string{
		"-p/s1.jsonl":                        sessionLines("s1", "/home/u/p"),
		"-p/s2.jsonl":                        sessionLines("s2", "/home/u/p"),
		"-p/s1/subagents/agent-a1.jsonl":     sessionLines("s1", "/home/u/p"),
		"-q/agent-orphan.jsonl":              sessionLines("gone", "/home/u/q"),
		"-q/c3.jsonl":                        sessionLines("c3", "/home/u/q"),
		"-p/s1/subagents/agent-a1.meta.json": `{"agentType":"x"}`,
	})
	cacheFile := filepath.Join(t.TempDir(), "archive", "peeks.json")
	// check discovers with and without the cache and tells whether a file
	// was read (not found in the cache).
	check := func(what string) (missed bool) {
		t.Helper()
		want, err := Discover(context.Background(), []string{root})
		if err != nil {
			t.Fatal(err)
		}
		c := OpenPeekCache(cacheFile)
		got, err := DiscoverCached(context.Background(), []string{root}, c)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(peeks(got), peeks(want)) {
			t.Errorf("%s: through the cache\n%v\nwithout\n%v", what, peeks(got), peeks(want))
		}
		missed = c.miss
		if err := c.Save(cacheFile); err != nil {
			t.Fatal(err)
		}
		return missed
	}
	if !check("cold") {
		t.Error("cold: nothing read")
	}
	st1, err := os.Stat(cacheFile)
	if err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	time.Sleep(10 * time.Millisecond)
	if check("warm") {
		t.Error("warm: a file was read again")
	}
	if st2, _ := os.Stat(cacheFile); !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("warm: the cache file was written again")
	}

	f, err := os.OpenFile(filepath.Join(root, "-q", "c3.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"continued-in","sessionId":"c3","continuedInSessionId":"c4"}` + "\n")
	f.Close()
	check("appended")
	a, _ := DiscoverCached(context.Background(), []string{root}, OpenPeekCache(cacheFile))
	if got := peeks(a)[filepath.Join(root, "-q", "c3.jsonl")][4]; got != "c4" {
		t.Errorf("appended: continued in %q, want c4", got)
	}

	os.Remove(filepath.Join(root, "-p", "s2.jsonl"))
	check("removed")
	c := OpenPeekCache(cacheFile)
	if _, ok := c.old[filepath.Join(root, "-p", "s2.jsonl")]; ok || len(c.old) != 4 {
		t.Errorf("removed: the cache holds %d files, the removed one among them: %v", len(c.old), ok)
	}

	// A broken cache file is an empty cache.
	os.WriteFile(cacheFile, []byte("{not json"), 0o644)
	if !check("broken file") {
		t.Error("broken file: nothing read again")
	}
}

// TestPeekCacheCorpus: on the real corpus, a warm discovery through the
// cache reads no file and finds what one without it finds.
func TestPeekCacheCorpus(t *testing.T) {
	dir := os.Getenv("CCSITE_CORPUS")
	if dir == "" {
		t.Skip("CCSITE_CORPUS not set")
	}
	want, err := Discover(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	cacheFile := filepath.Join(t.TempDir(), "peeks.json")
	for _, round := range []string{"cold", "warm"} {
		c := OpenPeekCache(cacheFile)
		got, err := DiscoverCached(context.Background(), []string{dir}, c)
		if err != nil {
			t.Fatal(err)
		}
		if round == "warm" && c.miss {
			t.Error("warm: a file was read again")
		}
		if g, w := peeks(got), peeks(want); !reflect.DeepEqual(g, w) || len(w) < 100 {
			t.Errorf("%s: %d files through the cache, %d without, or they differ", round, len(g), len(w))
		}
		if err := c.Save(cacheFile); err != nil {
			t.Fatal(err)
		}
	}
}
