package serve

import "testing"

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		"/":                   "/",
		"/mnt/my\\040share":   "/mnt/my share",
		"/mnt/tab\\011x/":     "/mnt/tab\tx",
		"/mnt/odd\\04":        "/mnt/odd\\04",
		"/home/kim/.claude":   "/home/kim/.claude",
		"/mnt/back\\134slash": "/mnt/back\\slash",
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mountType("/"); got == "" {
		t.Log("no mount type for / (no /proc?)")
	}
}
