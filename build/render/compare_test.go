package render_test

import (
	"encoding/json"
	"strings"
	"testing"

	"ccsite/build/render"
	"ccsite/build/session"
)

// TestFactsJSEscapes: no text of a transcript can end the facts script or
// its string, and the script gives the facts back as they were.
func TestFactsJSEscapes(t *testing.T) {
	hostile := "</script><script>alert(1)</script> \u2028\u2029 <!-- & ]]>"
	f := render.Facts{ID: "s1", Title: hostile, TurnList: []render.FactsTurn{{Index: 1, Excerpt: hostile, Hash: render.PromptHash(hostile)}}}
	js := string(render.FactsJS(f))
	for _, bad := range []string{"</script", "<script", "<!--", "\u2028", "\u2029"} {
		if strings.Contains(js, bad) {
			t.Errorf("the facts script holds %q: %s", bad, js)
		}
	}
	body, ok := strings.CutPrefix(js, `ccsiteFacts("s1", `)
	body, ok2 := strings.CutSuffix(body, ");\n")
	if !ok || !ok2 {
		t.Fatalf("not a ccsiteFacts call: %s", js)
	}
	var back render.Facts
	if err := json.Unmarshal([]byte(body), &back); err != nil {
		t.Fatal(err)
	}
	if back.Title != hostile || back.TurnList[0].Excerpt != hostile {
		t.Errorf("facts read back: %q", back.Title)
	}
	if in := string(render.InlineFacts(f, f)); strings.Contains(in, "</script") {
		t.Errorf("inline facts hold </script: %s", in)
	}
}

// TestPromptHash: a prompt typed again with other spaces or case matches;
// another prompt, and no prompt, do not.
func TestPromptHash(t *testing.T) {
	a := render.PromptHash("Run the  tests\n")
	if a == "" || a != render.PromptHash("run the tests") {
		t.Errorf("the same prompt hashes apart: %q", a)
	}
	if a == render.PromptHash("Run the test") {
		t.Error("two prompts hash the same")
	}
	if h := render.PromptHash(" \n"); h != "" {
		t.Errorf("an empty prompt hashes to %q", h)
	}
}

// TestFactsAgent: a session of another agent is compared under its own
// name, not Claude Code's.
func TestFactsAgent(t *testing.T) {
	s := &session.Session{ID: "x", AgentName: "Codex"}
	if f := render.SessionFacts(s, &render.SessionView{}, ""); f.Agent != "Codex" {
		t.Errorf("agent %q, want Codex", f.Agent)
	}
	if f := render.SessionFacts(&session.Session{ID: "y"}, &render.SessionView{}, ""); f.Agent != "Claude Code" {
		t.Errorf("agent %q, want Claude Code", f.Agent)
	}
}
