package publish

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// actionlint checks workflows as GitHub reads them: keys, expressions and
// their types, action inputs, runner labels, cron syntax (and the run:
// scripts with shellcheck, when it is on PATH).
const actionlint = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// TestActionlint runs actionlint on the workflow, fetched through the Go
// module proxy (not a dependency of ccsite: go run pkg@version). It skips
// when the module cannot be fetched, except under CI=true.
func TestActionlint(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches and builds actionlint")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	mod, _, _ := strings.Cut(strings.TrimSuffix(actionlint, "@v1.7.12"), "/cmd/")
	dl := exec.Command("go", "mod", "download", mod+"@v1.7.12")
	dl.Dir = t.TempDir() // outside ccsite's module: nothing to add to its go.sum
	dl.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
	if out, err := dl.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot fetch %s (CI=true: actionlint must run): %v\n%s", mod, err, out)
		}
		t.Skipf("cannot fetch %s: %v\n%s", mod, err, out)
	}
	// Read here, given on stdin: go test's cache then knows the test read
	// the file.
	data, err := os.ReadFile("github-pages.yml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", actionlint, "-no-color", "-stdin-filename", "github-pages.yml", "-")
	cmd.Stdin = strings.NewReader(string(data))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("actionlint github-pages.yml: %v\n%s", err, out)
	}
}
