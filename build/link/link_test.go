package link

import (
	"strings"
	"testing"
)

// TestFileBounded: a name from a transcript of any length makes a file
// name of at most maxFile bytes, unique and stable.
func TestFileBounded(t *testing.T) {
	long1 := strings.Repeat("a", 300) + "1"
	long2 := strings.Repeat("a", 300) + "2"
	f1, f2 := File(long1), File(long2)
	if len(f1) > maxFile || len(f2) > maxFile {
		t.Errorf("lengths %d, %d", len(f1), len(f2))
	}
	if f1 == f2 || File(long1) != f1 {
		t.Errorf("not unique or not stable: %s %s", f1, f2)
	}
	if got := File("agent-a1b2c3d"); got != "agent-a1b2c3d" {
		t.Errorf("short name changed: %s", got)
	}
	if p := Agent("proj", long1, long1); len(p) > 255 {
		t.Errorf("agent page %d bytes", len(p))
	}
	for _, el := range strings.Split(Agent("proj", long1, strings.Repeat("€", 200)), "/") {
		if len(el) > 255 {
			t.Errorf("element of %d bytes", len(el))
		}
	}
}
