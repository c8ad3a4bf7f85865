package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateOutsideSite: the output folder holds only what is published.
// The manifest and the bleve index are in the state folder. An older
// build's .ccsite folder in the site is removed. A state folder inside the
// site is refused. A site without its state builds again to the same
// bytes.
func TestStateOutsideSite(t *testing.T) {
	in := t.TempDir()
	copyTree(t, "../demo/projects", in)
	dir := t.TempDir()
	out, state := filepath.Join(dir, "site"), filepath.Join(dir, "state")
	if err := os.MkdirAll(filepath.Join(out, ".ccsite", "bleve"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, ".ccsite", "state.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(out, marker), []byte(markerHead), 0o644)
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: state}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"state.json", "bleve-metas", "bleve-texts.log", "bleve-texts.idx", "lock"} {
		if _, err := os.Stat(filepath.Join(state, f)); err != nil {
			t.Errorf("the state folder has no %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "journal")); err == nil {
		t.Error("a completed build left its journal")
	}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if name == ".ccsite" || strings.HasPrefix(name, "bleve") || name == "state.json" || name == "journal" || name == "lock" || strings.HasSuffix(name, ".gob") {
			t.Errorf("build state in the site: %s", p)
		}
		return nil
	})
	// The marker lists what was published, and only that.
	data, _ := os.ReadFile(filepath.Join(out, marker))
	if strings.Contains(string(data), ".ccsite/") {
		t.Errorf("the marker lists build state:\n%s", data)
	}
	if _, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: filepath.Join(out, "x")}); err == nil || !strings.Contains(err.Error(), "inside the site") {
		t.Errorf("a state folder inside the site: %v", err)
	}
	// The state lost (a CI machine): the next build starts over, to the
	// same site.
	before := siteFiles(t, out)
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: state})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept != 0 {
		t.Errorf("without its state, a build kept %d sessions", sum.Kept)
	}
	after := siteFiles(t, out)
	if len(before) != len(after) {
		t.Errorf("the rebuilt site has %d files, before %d", len(after), len(before))
	}
	for name, content := range before {
		if after[name] != content {
			t.Errorf("%s differs after a build without state", name)
		}
	}
}
