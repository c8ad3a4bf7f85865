package redact

import "testing"

func TestURLPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://shop:hunter2secret@db.internal/shop":          "postgres://shop:[REDACTED:url-password]@db.internal/shop",
		`{"cmd":"git clone https://kim:tok3nvalue@github.com/x"}`: `{"cmd":"git clone https://kim:[REDACTED:url-password]@github.com/x"}`,
		"a https://x.org/a and redis://u:pw123@h:6379 b":          "a https://x.org/a and redis://u:[REDACTED:url-password]@h:6379 b",
		"mongodb://a:one111@h1 mysql://b:two222@h2":               "mongodb://a:[REDACTED:url-password]@h1 mysql://b:[REDACTED:url-password]@h2",
		"https://user@host/ no password":                          "https://user@host/ no password",
		"https://u:${PASSWORD}@host and mail me@x.org":            "https://u:${PASSWORD}@host and mail me@x.org",
		"no url at all, just a@b":                                 "no url at all, just a@b",
	} {
		if got, _ := urlPasswords(in); got != want {
			t.Errorf("urlPasswords(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
