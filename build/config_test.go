package build

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ccsite/build/redact"
)

// TestRunLeavesConfig: Run reads its Config and changes nothing outside
// its own run. Two builds in one process at once, one redacting and one
// not, give the sites each gives alone; and the Redactor a Config holds
// is the same after a build with it: its Fingerprint, what it makes of a
// text, and its counts (the build's are in its Summary).
func TestRunLeavesConfig(t *testing.T) {
	sec := fakeSecrets()
	in, _ := secretArchive(t, sec)
	red, err := redact.New(redact.Options{Secrets: true})
	if err != nil {
		t.Fatal(err)
	}
	probe := "STRIPE_SECRET_KEY=" + sec["stripe"] + "\nnothing to see"
	fp, probed := red.Fingerprint(), red.String("probe", probe)
	if probed == probe {
		t.Fatalf("the probe redacts to itself: %q", probe)
	}
	counts := func() string { byRule, byFile := red.Counts(); return fmt.Sprint(byRule, byFile) }
	before := counts()

	build := func(red *redact.Redactor) (map[string]string, Summary) {
		dir := t.TempDir()
		out := filepath.Join(dir, "site")
		sum, err := Run(context.Background(), Config{Paths: []string{in}, Out: out, State: filepath.Join(dir, "state"),
			CacheDir: filepath.Join(dir, "cache"), JSON: true, Redact: red})
		if err != nil {
			t.Fatal(err)
		}
		return siteFiles(t, out), sum
	}
	redacted, rsum := build(red)
	plain, _ := build(nil)
	if len(rsum.Redactions) == 0 {
		t.Fatal("the redacting build redacted nothing")
	}
	if !strings.Contains(fmt.Sprint(plain), sec["stripe"]) || strings.Contains(fmt.Sprint(redacted), sec["stripe"]) {
		t.Fatal("the plain site should show the key, the redacted one not")
	}

	var both [2]map[string]string
	var wg sync.WaitGroup
	for i, r := range []*redact.Redactor{red, nil} {
		wg.Go(func() { both[i], _ = build(r) })
	}
	wg.Wait()
	for i, alone := range []map[string]string{redacted, plain} {
		if len(both[i]) != len(alone) {
			t.Errorf("build %d: %d files at once, %d alone", i, len(both[i]), len(alone))
		}
		for name, data := range alone {
			if both[i][name] != data {
				t.Errorf("build %d: %s differs when built beside another", i, name)
			}
		}
	}

	if got := red.Fingerprint(); got != fp {
		t.Errorf("Fingerprint %s after the builds, %s before", got, fp)
	}
	if got := counts(); got != before {
		t.Errorf("counts %s after the builds, %s before", got, before)
	}
	if got := red.String("probe", probe); got != probed {
		t.Errorf("the probe redacts to %q after the builds, %q before", got, probed)
	}
}
