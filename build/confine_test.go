package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ccsite/build/keep"
)

// siteHolding lists the files under dir whose bytes hold s.
func siteHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), s) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestLinksOutOfSessionNotRead: a stored large output (tool-results/) and
// a sub-agent's .meta.json that are links to private files out of the
// session's folder are neither published nor archived; the session's page
// says what was skipped.
func TestLinksOutOfSessionNotRead(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".claude", "projects")
	proj := filepath.Join(root, "-home-u-app")
	sdir := filepath.Join(proj, nsS1)
	writeFile(t, filepath.Join(home, "private.txt"), "PRIVATE-FILE-CONTENT\n")
	writeFile(t, filepath.Join(home, "private.json"), `{"agentType":"PRIVATE-TYPE","description":"PRIVATE-DESCRIPTION"}`)

	s := &nsFile{sid: nsS1, prefix: "aaaaaaaa"}
	s.prompt("Read the big log")
	s.call("toolu_Big", "Bash", `{"command":"cat big.log"}`)
	s.result("toolu_Big", "<persisted-output>\nOutput too large (60.2KB). Full output saved to: "+sdir+"/tool-results/toolu_Big.txt\n\nPreview (first 2KB):\nline 0\n</persisted-output>", "")
	s.call("toolu_Agent", "Agent", `{"description":"Survey","prompt":"survey","subagent_type":"Explore"}`)
	s.result("toolu_Agent", "done", `{"status":"completed","agentId":"ag1"}`)
	s.answer("Done.")
	s.write(t, filepath.Join(proj, nsS1+".jsonl"))
	ag := &nsFile{sid: nsS1, prefix: "a1a1a1a1", minute: 1}
	ag.prompt("survey")
	ag.answer("Surveyed.")
	ag.write(t, filepath.Join(sdir, "subagents", "agent-ag1.jsonl"))
	for link, target := range map[string]string{
		filepath.Join(sdir, "tool-results", "toolu_Big.txt"):    filepath.Join(home, "private.txt"),
		filepath.Join(sdir, "subagents", "agent-ag1.meta.json"): filepath.Join(home, "private.json"),
	} {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
	}

	site := filepath.Join(t.TempDir(), "site")
	state := filepath.Join(t.TempDir(), "state")
	if _, err := Run(context.Background(), Config{Paths: []string{root}, Out: site, State: state, NoSearch: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"PRIVATE-FILE-CONTENT", "PRIVATE-TYPE", "PRIVATE-DESCRIPTION"} {
		if got := siteHolding(t, site, s); len(got) > 0 {
			t.Errorf("%s published in %v", s, got)
		}
		if got := siteHolding(t, state, s); len(got) > 0 {
			t.Errorf("%s kept in the state folder: %v", s, got)
		}
	}
	for _, want := range []string{"skipped tool-results/toolu_Big.txt: a link out of the session", "skipped subagents/agent-ag1.meta.json: a link out of the session"} {
		if got := siteHolding(t, site, want); len(got) == 0 {
			t.Errorf("no page says %q", want)
		}
	}
	st, err := keep.Open(archiveDir(state))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, e := range st.Entries() {
		if data, err := st.Read(e); err == nil && strings.Contains(string(data), "PRIVATE") {
			t.Errorf("archived: %s (%s)", e.Path, e.Kind)
		}
	}
}
