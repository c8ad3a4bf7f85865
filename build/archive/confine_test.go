package archive

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A link in a session's folder that leads out of it (a stored output or a
// sub-agent's .meta.json linked to a private file, a sub-agent file linked
// from elsewhere, the session's folder itself a link) is not followed: the
// file is not listed, the .meta.json not read, and both the archive and the
// session say what was skipped. Links that stay in the folder are followed.
func TestDiscoverLinksOutOfSession(t *testing.T) {
	t.Parallel()
	app := "projects/-home-u-app/"
	top := tree(t, map[string]string{
		"private/id_rsa":                           "PRIVATE KEY",
		"private/token":                            "PRIVATE TOKEN",
		"private/meta.json":                        `{"agentType":"PRIVATE","description":"PRIVATE"}`,
		"private/agent.jsonl":                      agentTranscript(sid1, "a2", "/home/u/app"),
		"private/session/tool-results/y.txt":       "PRIVATE OUTPUT",
		"private/session/subagents/agent-a3.jsonl": agentTranscript(sid2, "a3", "/home/u/app"),

		app + sid1 + ".jsonl":                        sessionLines(sid1, "/home/u/app"),
		app + sid1 + "/tool-results/ok.txt":          "stored output",
		app + sid1 + "/subagents/agent-a1.jsonl":     agentTranscript(sid1, "a1", "/home/u/app"),
		app + sid1 + "/subagents/agent-a4.jsonl":     agentTranscript(sid1, "a4", "/home/u/app"),
		app + sid1 + "/subagents/agent-a4.meta.json": `{"agentType":"Explore","description":"kept"}`,
		app + sid1 + "/real/agent-a5.meta.json":      `{"agentType":"Plan","description":"linked inside"}`,
		app + sid1 + "/real/stored.txt":              "stored output, linked",
		app + sid1 + "/real/a5.txt":                  agentTranscript(sid1, "a5", "/home/u/app"),
		app + sid2 + ".jsonl":                        sessionLines(sid2, "/home/u/app"),
		app + "agent-l1.jsonl":                       agentTranscript(sid1, "l1", "/home/u/app"),
	})
	root := filepath.Join(top, "projects")
	sess := filepath.Join(root, "-home-u-app", sid1)
	private := filepath.Join(top, "private")
	// Out of the folder: a stored output, a .meta.json (2.1.x and legacy),
	// a sub-agent file, by absolute and relative links.
	symlink(t, filepath.Join(private, "id_rsa"), filepath.Join(sess, "tool-results", "x.txt"))
	symlink(t, filepath.Join("..", "..", "..", "..", "private", "token"), filepath.Join(sess, "tool-results", "rel.txt"))
	symlink(t, filepath.Join(private, "meta.json"), filepath.Join(sess, "subagents", "agent-a1.meta.json"))
	symlink(t, filepath.Join(private, "agent.jsonl"), filepath.Join(sess, "subagents", "agent-a2.jsonl"))
	symlink(t, filepath.Join(private, "meta.json"), filepath.Join(root, "-home-u-app", "agent-l1.meta.json"))
	// In it: followed.
	symlink(t, filepath.Join("..", "real", "stored.txt"), filepath.Join(sess, "tool-results", "linked.txt"))
	symlink(t, filepath.Join("..", "real", "agent-a5.meta.json"), filepath.Join(sess, "subagents", "agent-a5.meta.json"))
	symlink(t, filepath.Join(sess, "real", "a5.txt"), filepath.Join(sess, "subagents", "agent-a5.jsonl"))
	// The second session's folder is itself a link out of its project.
	symlink(t, filepath.Join(private, "session"), filepath.Join(root, "-home-u-app", sid2))

	a, err := discoverIn(t, root)
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string { return relTo(root, p) }
	var s1, s2 *SessionFile
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			switch s.ID {
			case sid1:
				s1 = s
			case sid2:
				s2 = s
			}
		}
	}
	if s1 == nil || s2 == nil {
		t.Fatalf("sessions not found: %v", sessionPaths(root, a))
	}
	var extras []string
	for _, e := range s1.Extras {
		extras = append(extras, rel(e))
	}
	slices.Sort(extras)
	eqList(t, "extras", extras, []string{
		"-home-u-app/" + sid1 + "/tool-results/linked.txt",
		"-home-u-app/" + sid1 + "/tool-results/ok.txt",
	})
	if len(s2.Extras) != 0 || len(s2.Agents) != 0 {
		t.Errorf("session 2, its folder a link out: extras %v, agents %v", s2.Extras, s2.Agents)
	}
	metas := map[string]string{}
	var agents []string
	for _, ag := range append(append([]*AgentFile(nil), s1.Agents...), a.Orphans...) {
		agents = append(agents, rel(ag.Path))
		if ag.Meta != nil {
			metas[ag.ID] = ag.Meta.Description
		}
		if ag.ID == "a1" || ag.ID == "l1" {
			if ag.Meta != nil || ag.MetaInfo != nil {
				t.Errorf("agent %s: its .meta.json, a link out, was read: %+v", ag.ID, ag.Meta)
			}
		}
	}
	slices.Sort(agents)
	eqList(t, "agents", agents, []string{
		"-home-u-app/" + sid1 + "/subagents/agent-a1.jsonl",
		"-home-u-app/" + sid1 + "/subagents/agent-a4.jsonl",
		"-home-u-app/" + sid1 + "/subagents/agent-a5.jsonl",
		"-home-u-app/agent-l1.jsonl",
	})
	if metas["a4"] != "kept" || metas["a5"] != "linked inside" {
		t.Errorf("metas in the folder not read: %v", metas)
	}
	for id, d := range metas {
		if strings.Contains(d, "PRIVATE") {
			t.Errorf("agent %s: %s", id, d)
		}
	}
	why := ": " + WhyLinkOut
	wantSkips := []string{
		"-home-u-app/" + sid1 + "/subagents/agent-a1.meta.json" + why,
		"-home-u-app/" + sid1 + "/subagents/agent-a2.jsonl" + why,
		"-home-u-app/" + sid1 + "/tool-results/rel.txt" + why,
		"-home-u-app/" + sid1 + "/tool-results/x.txt" + why,
		"-home-u-app/" + sid2 + "/subagents/agent-a3.jsonl" + why,
		"-home-u-app/" + sid2 + "/tool-results/y.txt" + why,
		"-home-u-app/agent-l1.meta.json" + why,
	}
	eqList(t, "skipped", skips(root, a), wantSkips)
	var own []string
	for _, s := range []*SessionFile{s1, s2} {
		for _, sk := range s.Skipped {
			own = append(own, rel(sk.Path)+": "+sk.Reason)
		}
	}
	slices.Sort(own)
	eqList(t, "the sessions' own skips", own, wantSkips[:6])
}
