package gitsrc

import "testing"

func TestWebURL(t *testing.T) {
	for _, c := range []struct{ remote, web, commit string }{
		{"https://github.com/o/r.git", "https://github.com/o/r", "https://github.com/o/r/commit/abc"},
		{"git@github.com:o/r.git", "https://github.com/o/r", "https://github.com/o/r/commit/abc"},
		{"ssh://git@gitlab.com/g/sub/r", "https://gitlab.com/g/sub/r", "https://gitlab.com/g/sub/r/-/commit/abc"},
		{"https://user:tok@bitbucket.org/o/r.git", "https://bitbucket.org/o/r", "https://bitbucket.org/o/r/commits/abc"},
		{"https://codeberg.org/o/r", "https://codeberg.org/o/r", "https://codeberg.org/o/r/commit/abc"},
		{"/home/x/repo", "", ""},
		{"file:///home/x/repo.git", "", ""},
		{"../r.git", "", ""},
	} {
		if got := WebURL(c.remote); got != c.web {
			t.Errorf("WebURL(%q) = %q, want %q", c.remote, got, c.web)
		}
		h := &History{WebURL: WebURL(c.remote)}
		if got := h.CommitURL("abc"); got != c.commit {
			t.Errorf("CommitURL for %q = %q, want %q", c.remote, got, c.commit)
		}
	}
}
