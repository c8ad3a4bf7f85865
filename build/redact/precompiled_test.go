//go:build gore2regex

package redact

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// The copy of go-re2 ships libre2 compiled by wazero for linux/amd64
// (third_party/go-re2/CCSITE.md, change 8), in the files of shippedDir
// named by wazero's cache keys, and shippedSource says what they were
// compiled from.
const (
	shippedDir    = "../../third_party/go-re2/internal/wasm/amd64-linux"
	shippedSource = shippedDir + "/SOURCE"
	wasmDir       = "../../third_party/go-re2/internal/wasm"
)

// re2Child runs the re2child program (testdata/re2child, built once by
// buildRE2Child) with env and an empty cache folder; it returns the
// program's output and the files it left in the folder (name → content).
func re2Child(t *testing.T, bin string, env ...string) (string, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), append([]string{"GO_RE2_CACHE_DIR=" + dir, "GO_RE2_CACHE_STRICT=1"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("re2child: %v\n%s", err, out)
	}
	files := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = b
	}
	return string(out), files
}

// source is what the shipped code must be compiled from: the wazero the
// program runs (its output) and the two WebAssembly modules' hashes.
func source(t *testing.T, wazero string) string {
	t.Helper()
	if !strings.HasPrefix(wazero, "wazero v") {
		t.Fatalf("re2child printed %q, want its wazero version", wazero)
	}
	var sb strings.Builder
	sb.WriteString(wazero)
	for _, name := range []string{"libcre2.wasm", "memory.wasm"} {
		b, err := os.ReadFile(filepath.Join(wasmDir, name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "%s sha256 %x\n", name, sha256.Sum256(b))
	}
	return sb.String()
}

func gunzip(t *testing.T, p string) []byte {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return b
}

// TestRE2Precompiled: the code shipped compiled is, byte for byte, what
// wazero compiles on this machine today from the modules shipped beside it,
// and a process with an empty cache folder takes it instead of compiling
// (it leaves no compiled libre2 in the folder). CCSITE_UPDATE_RE2=1 writes
// the shipped code anew (on linux/amd64).
func TestRE2Precompiled(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("code is shipped compiled for linux/amd64 only")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build re2child with")
	}
	bin := filepath.Join(t.TempDir(), "re2child")
	if out, err := exec.Command(gobin, "build", "-tags", "gore2regex", "-o", bin, "./testdata/re2child").CombinedOutput(); err != nil {
		t.Fatalf("go build re2child: %v\n%s", err, out)
	}
	version, fresh := re2Child(t, bin, "GO_RE2_PRECOMPILED=off")
	if len(fresh) != 2 {
		t.Fatalf("wazero compiled %d modules into the cache, want 2 (libre2 and memory)", len(fresh))
	}
	src := source(t, version)
	if os.Getenv("CCSITE_UPDATE_RE2") == "1" {
		os.RemoveAll(shippedDir)
		if err := os.MkdirAll(shippedDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range fresh {
			var buf bytes.Buffer
			z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			z.Write(b)
			z.Close()
			if err := os.WriteFile(filepath.Join(shippedDir, name+".gz"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(shippedSource, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	had, err := os.ReadFile(shippedSource)
	if err != nil {
		t.Fatal(err)
	}
	if string(had) != src {
		t.Fatalf("the shipped code was compiled from\n%s\nnot from today's\n%s\nwrite it anew: CCSITE_UPDATE_RE2=1 go test -tags gore2regex ./build/redact -run TestRE2Precompiled", had, src)
	}
	shipped, _ := filepath.Glob(filepath.Join(shippedDir, "*.gz"))
	var names []string
	for _, p := range shipped {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".gz"))
	}
	sort.Strings(names)
	var want []string
	for name := range fresh {
		want = append(want, name)
	}
	sort.Strings(want)
	if strings.Join(names, " ") != strings.Join(want, " ") {
		// Same modules, same wazero: the keys differ by the CPU features
		// wazero compiles for (SSE3, SSE4.1, SSE4.2, ABM). This machine
		// compiles for itself, as it did before code was shipped.
		t.Skipf("this CPU's features are not those the shipped code was compiled for (keys %v here, %v shipped)", want, names)
	}
	for name, b := range fresh {
		if !bytes.Equal(gunzip(t, filepath.Join(shippedDir, name+".gz")), b) {
			t.Errorf("shipped %s differs from what wazero compiles", name[:12])
		}
	}
	if _, left := re2Child(t, bin); len(left) != 0 {
		var l []string
		for name := range left {
			l = append(l, name[:12])
		}
		t.Errorf("a process with the shipped code compiled %v itself", l)
	}
}
