//go:build gore2regex

package redact

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"ccsite/build/internal/leakgen"
	re2 "github.com/wasilibs/go-re2"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

// ccsite's copy of go-re2 compiles a MustCompile'd expression at its first
// use (third_party/go-re2/CCSITE.md). It must still match as before, from
// many goroutines at once, and a bad expression must still panic with
// MustCompile's message, at that first use.
func TestLazyRegexp(t *testing.T) {
	re := glregexp.MustCompile(`\b(key-[0-9a-f]{4})\b`)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := re.FindStringSubmatch("x key-00af y"); len(got) != 2 || got[1] != "key-00af" {
				t.Errorf("FindStringSubmatch = %q", got)
			}
			if re.MatchString("key-00ag") {
				t.Error("matched key-00ag")
			}
		}()
	}
	wg.Wait()
	if n := re.NumSubexp(); n != 1 {
		t.Errorf("NumSubexp = %d, want 1", n)
	}

	bad := glregexp.MustCompile(`a(b`) // no panic yet
	defer func() {
		msg, _ := recover().(string)
		if !strings.HasPrefix(msg, "regexp: Compile(`a(b`): error parsing regexp: missing closing )") {
			t.Errorf("panic %q, want MustCompile's message", msg)
		}
	}()
	bad.MatchString("ab")
	t.Error("a bad expression matched without a panic")
}

// TestFindAllStringIndexMemo: the copy of go-re2 hands back its last
// FindAllStringIndex result when asked again for the same text and n
// (third_party/go-re2/CCSITE.md): the answers are still Go's regexp's,
// whatever the order of texts, ns and goroutines, and a caller changing
// the slices it got changes no later answer.
func TestFindAllStringIndexMemo(t *testing.T) {
	const expr = `[a-z]+[0-9]`
	re := re2.MustCompile(expr)
	ref := regexp.MustCompile(expr)
	texts := []string{"ab1 cd2 ef3", "x9", "none here", "", "ab1 cd2 ef3 gh4"}
	same := func(s string, n int) {
		t.Helper()
		got, want := re.FindAllStringIndex(s, n), ref.FindAllStringIndex(s, n)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("FindAllStringIndex(%q, %d) = %v, want %v", s, n, got, want)
		}
	}
	for _, s := range texts {
		for _, n := range []int{-1, -1, 1, 1, -1, 2} {
			same(s, n)
		}
	}
	// The same text again after a caller wrote over its answer.
	got := re.FindAllStringIndex(texts[0], -1)
	for _, m := range got {
		m[0], m[1] = -5, -5
	}
	same(texts[0], -1)
	// A text with the same bytes in another string.
	same(strings.Clone(texts[0]), -1)
	// Leftmost-longest from now on: nothing remembered from before holds.
	alt := re2.MustCompile(`a|ab`)
	altRef := regexp.MustCompile(`a|ab`)
	if got := fmt.Sprint(alt.FindAllStringIndex("ab ab", -1)); got != fmt.Sprint(altRef.FindAllStringIndex("ab ab", -1)) {
		t.Errorf("a|ab: %s", got)
	}
	alt.Longest()
	altRef.Longest()
	if got, want := fmt.Sprint(alt.FindAllStringIndex("ab ab", -1)), fmt.Sprint(altRef.FindAllStringIndex("ab ab", -1)); got != want {
		t.Errorf("a|ab after Longest: %s, want %s", got, want)
	}
	// Many goroutines, each on texts of its own and shared ones.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				s := texts[(g+i)%len(texts)]
				if i%3 == 0 {
					s = fmt.Sprintf("w%d%d q%d", g, i, i)
				}
				got, want := re.FindAllStringIndex(s, -1), ref.FindAllStringIndex(s, -1)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("goroutine %d: FindAllStringIndex(%q) = %v, want %v", g, s, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestLiteralFindAll: an expression that is a literal (gitleaks' "\n")
// finds its occurrences without RE2 (third_party/go-re2/CCSITE.md, 9),
// as RE2 and Go's regexp find them: non-overlapping, from the left, up to
// n, around multi-byte characters and invalid bytes; an expression with a
// metacharacter, a flag or U+FFFD is not taken for a literal and still
// matches as an expression.
func TestLiteralFindAll(t *testing.T) {
	exprs := []string{"\n", "aa", "ab", "é", "\n\n", "a", "(?i)a", "a.", "\ufffd", "b+"}
	pieces := []string{"a", "b", "\n", "é", "\xff", "\xc3", "A"}
	rnd := rand.New(rand.NewPCG(9, 9))
	var texts []string
	for range 400 {
		var b strings.Builder
		for k := rnd.IntN(12); k > 0; k-- {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	texts = append(texts, "", "aaa", "aaaa", "\n\n\n")
	for _, expr := range exprs {
		lazy := re2.MustCompile(expr)   // a literal takes the literal path
		plain, err := re2.Compile(expr) // RE2, always
		if err != nil {
			t.Fatal(err)
		}
		ref := regexp.MustCompile(expr)
		for _, s := range texts {
			for _, n := range []int{-1, 1, 2, 5} { // (n = 0: go-re2 gives every match, Go none; no caller asks for none)
				got, want := fmt.Sprint(lazy.FindAllStringIndex(s, n)), fmt.Sprint(plain.FindAllStringIndex(s, n))
				if got != want {
					t.Fatalf("%q: FindAllStringIndex(%q, %d) = %s, RE2 %s", expr, s, n, got, want)
				}
				if utf8.ValidString(s) {
					if goRes := fmt.Sprint(ref.FindAllStringIndex(s, n)); got != goRes {
						t.Fatalf("%q: FindAllStringIndex(%q, %d) = %s, Go %s", expr, s, n, got, goRes)
					}
				}
			}
		}
	}
}

// TestRE2CacheReused: a process that matches loads RE2's native code from
// the compilation cache the first one wrote (third_party/go-re2/CCSITE.md)
// rather than compiling it again: with GO_RE2_CACHE_STRICT=1 a cache that
// does not load panics (without it, go-re2 compiles without the cache), and
// the file is left as it is.
func TestRE2CacheReused(t *testing.T) {
	if os.Getenv("CCSITE_RE2_CHILD") == "1" {
		if !glregexp.MustCompile(`a+b`).MatchString("xaab") {
			t.Fatal("no match")
		}
		return
	}
	dir := t.TempDir()
	run := func() map[string]string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRE2CacheReused$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CCSITE_RE2_CHILD=1", "GO_RE2_CACHE_DIR="+dir, "GO_RE2_CACHE_STRICT=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		files := map[string]string{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if st, err := os.Stat(p); err == nil {
					var ino uint64
					if sys, ok := st.Sys().(*syscall.Stat_t); ok {
						ino = sys.Ino
					}
					files[p] = fmt.Sprintf("%s, inode %d", st.ModTime().Format(time.RFC3339Nano), ino)
				}
			}
			return nil
		})
		return files
	}
	first := run()
	if len(first) == 0 {
		t.Fatal("the first process wrote no cache")
	}
	second := run()
	for p, v := range first {
		if second[p] != v {
			t.Errorf("%s rewritten by the second process (%s, then %s): the cache was not used", filepath.Base(p), v, second[p])
		}
	}
}

// TestLazyNumSubexp: a rule's group count, which gitleaks checks as it
// loads its rules, is counted by Go's parser without compiling the rule
// (third_party/go-re2/CCSITE.md); it must be RE2's count, for every rule
// and allowlist expression of the configuration ccsite runs.
func TestLazyNumSubexp(t *testing.T) {
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, r := range cfg.Rules {
		if r.Regex != nil {
			exprs = append(exprs, r.Regex.String())
		}
		for _, a := range r.Allowlists {
			for _, re := range a.Regexes {
				exprs = append(exprs, re.String())
			}
		}
	}
	for _, r := range extraRules {
		exprs = append(exprs, r.Regex.String())
	}
	exprs = append(exprs, `(a)(?:b)(?P<c>d)`, `(?i)((x))|y`, `[(]\(`)
	if len(exprs) < 200 {
		t.Fatalf("only %d expressions", len(exprs))
	}
	for _, e := range exprs {
		lazy := glregexp.MustCompile(e).NumSubexp()
		re, err := re2.Compile(e)
		if err != nil {
			t.Errorf("%q: %v", e, err)
			continue
		}
		if n := re.NumSubexp(); n != lazy {
			t.Errorf("%q: %d groups counted without compiling, RE2 counts %d", e, lazy, n)
		}
	}
}

// TestEnginesAgree: with the gore2regex tag, an update's redaction matches
// on Go's regexp package for its first bytes (SmallScan), a cold build's on
// RE2. Both must redact alike: every line of a generated archive full of
// planted secrets (leakgen) is redacted in a process that runs every rule
// on Go's engine and in one that runs them on RE2, and the two outputs are
// compared byte for byte.
func TestEnginesAgree(t *testing.T) {
	if engine := os.Getenv("CCSITE_ENGINE_CHILD"); engine != "" {
		if engine == "go" {
			re2.UseGo(1 << 40)
		}
		r, err := New(Options{Secrets: true})
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		var files []string
		filepath.WalkDir(os.Getenv("CCSITE_ENGINE_IN"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		for _, f := range files {
			data, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(data), "\n") {
				out.Write(r.Line(f, []byte(line)))
				out.WriteByte('\n')
			}
		}
		byRule, _ := r.Counts()
		fmt.Fprintf(&out, "%v\n", byRule)
		if err := os.WriteFile(os.Getenv("CCSITE_ENGINE_OUT"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	in := t.TempDir()
	plan, err := leakgen.Write(in, 7)
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string][]byte{}
	for _, engine := range []string{"go", "re2"} {
		out := filepath.Join(t.TempDir(), engine)
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnginesAgree$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CCSITE_ENGINE_CHILD="+engine, "CCSITE_ENGINE_IN="+in, "CCSITE_ENGINE_OUT="+out)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", engine, err, b)
		}
		outs[engine], _ = os.ReadFile(out)
	}
	g, r := strings.Split(string(outs["go"]), "\n"), strings.Split(string(outs["re2"]), "\n")
	if len(g) < 100 || len(plan.Plants) < 50 {
		t.Fatalf("%d lines, %d secrets planted: too few to mean anything", len(g), len(plan.Plants))
	}
	diffs := 0
	for i := range max(len(g), len(r)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(r) {
			b = r[i]
		}
		if a != b {
			if diffs++; diffs <= 5 {
				t.Errorf("line %d differs:\nGo:  %.300s\nRE2: %.300s", i, a, b)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d lines redacted differently", diffs, len(g))
	}
}
