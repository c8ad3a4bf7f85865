//go:build gore2regex

package redact

import (
	"strings"
	"sync"
	"testing"

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
