package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"strings"

	"ccsite/build/session"
)

// Facts are a session's figures as the compare page shows them: what its
// page says (the same spelled strings) and the numbers to tell which of
// two sessions is cheaper, faster or touched more. They are made from the
// session and its page's view, with no other pass over the transcript.
type Facts struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Project string `json:"project"`
	// Page is the session's page from the site's root ("" in a single file).
	Page     string   `json:"page,omitempty"`
	Agent    string   `json:"agent"`
	Versions []string `json:"versions,omitempty"`
	Models   []string `json:"models,omitempty"`
	Start    Time     `json:"start"`
	End      Time     `json:"end"`
	// Cost is the cost with sub-agents, as the page spells it; CostUSD its
	// amount; CostOwn and CostAgents the two parts ("" without sub-agents).
	Cost       string      `json:"cost"`
	CostUSD    float64     `json:"costUSD"`
	CostOwn    string      `json:"costOwn"`
	CostAgents string      `json:"costAgents,omitempty"`
	Tokens     FactsTokens `json:"tokens"`
	Active     string      `json:"active"`
	ActiveMs   int64       `json:"activeMs"`
	// Split sums the turns' time: model, tools, waiting and idle (ms).
	Split     FactsSplit    `json:"split"`
	Turns     int           `json:"turns"`
	Messages  int           `json:"messages"`
	ToolCalls int           `json:"toolCalls"`
	Tools     []NameCount   `json:"tools,omitempty"`
	Errors    int           `json:"errors"`
	Agents    int           `json:"agents"`
	Files     []FactsFile   `json:"files,omitempty"`
	Commits   []FactsCommit `json:"commits,omitempty"`
	TurnList  []FactsTurn   `json:"turnList"`
}

// FactsTokens are a session's token counts; Text spells them as its page
// does.
type FactsTokens struct {
	Input      int64  `json:"in"`
	Output     int64  `json:"out"`
	CacheRead  int64  `json:"cacheRead"`
	CacheWrite int64  `json:"cacheWrite"`
	Partial    int    `json:"partial,omitzero"`
	Text       string `json:"text"`
}

// FactsSplit is where a session's time went, in milliseconds.
type FactsSplit struct {
	ModelMs   int64 `json:"model"`
	ToolsMs   int64 `json:"tools"`
	WaitingMs int64 `json:"waiting"`
	IdleMs    int64 `json:"idle"`
}

// FactsFile is a file the session changed, the turns that did and the
// lines its edits added and removed.
type FactsFile struct {
	Path    string `json:"path"`
	Turns   []int  `json:"turns"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// FactsCommit is a commit the session made, in its turn (0: unknown).
type FactsCommit struct {
	Hash    string `json:"hash"`
	Short   string `json:"short"`
	Subject string `json:"subject"`
	URL     string `json:"url,omitempty"`
	Turn    int    `json:"turn,omitzero"`
}

// commitsFacts lists the commits of v, each with its turn.
func commitsFacts(v *SessionView) []FactsCommit {
	var out []FactsCommit
	seen := map[string]bool{}
	for _, tv := range v.Turns {
		for _, c := range tv.Commits {
			out = append(out, FactsCommit{Hash: c.Hash, Short: c.Short, Subject: c.Subject, URL: c.URL, Turn: tv.Index})
			seen[c.Hash] = true
		}
	}
	for _, c := range v.Commits {
		if !seen[c.Hash] {
			out = append(out, FactsCommit{Hash: c.Hash, Short: c.Short, Subject: c.Subject, URL: c.URL})
		}
	}
	return out
}

// FactsTurn is a turn as the compare page lines it up: Hash is its
// prompt's normalised text, hashed ("" for a turn without a prompt).
type FactsTurn struct {
	Index     int    `json:"index"`
	Anchor    string `json:"anchor"`
	Excerpt   string `json:"excerpt"`
	Hash      string `json:"hash"`
	HasPrompt bool   `json:"hasPrompt,omitzero"`
	Tools     int    `json:"tools,omitzero"`
	ToolNames string `json:"toolNames,omitempty"`
	Took      string `json:"took,omitempty"`
	Ms        int64  `json:"ms,omitzero"`
	Cost      string `json:"cost,omitempty"`
	Errors    int    `json:"errors,omitzero"`
}

// SessionFacts makes the figures of s from v, its page's view (Builder.Session
// of s); page is the page's path from the site's root ("" for none).
func SessionFacts(s *session.Session, v *SessionView, page string) Facts {
	agent := "Claude Code"
	if s.AgentName != "" {
		agent = s.AgentName
	}
	f := Facts{ID: s.ID, Title: s.Title, Project: v.Project, Page: page, Agent: agent,
		Versions: v.Versions, Models: v.Models, Start: v.Start, End: v.End,
		Cost: v.Cost, CostOwn: v.Cost, CostAgents: v.CostAgents, Active: v.Active, ActiveMs: s.Active.Milliseconds(),
		Turns: len(v.Turns), Messages: s.Stats.Messages, ToolCalls: s.Stats.ToolCalls, Tools: v.Tools,
		Agents: len(v.Agents), Commits: commitsFacts(v)}
	if v.CostWithAgents != "" {
		f.Cost = v.CostWithAgents
	}
	f.CostUSD = s.Costs(s.Pricing).WithAgents.USD
	t := s.Stats.Tokens
	f.Tokens = FactsTokens{Input: t.Input, Output: t.Output, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, Partial: t.Partial,
		Text: thousands(t.Input) + " in · " + v.TokensOut + " · " + thousands(t.CacheRead) + " cache read · " + thousands(t.CacheWrite) + " cache write"}
	edits := map[string][2]int{} // lines added and removed, by tool call
	errs := map[int]int{}        // failed calls, by turn index
	for _, tv := range v.Turns {
		for _, it := range tv.Items {
			a, ok := it.Data.(Answer)
			if !ok {
				continue
			}
			if a.Error {
				errs[tv.Index]++
			}
			for _, p := range a.Parts {
				if tool, ok := p.Data.(ToolView); ok && p.Kind == "tool" {
					edits[tool.ID] = editLines(tool)
					if tool.Status == "error" {
						errs[tv.Index]++
					}
				}
			}
		}
	}
	f.Files = filesFacts(s, edits)
	f.TurnList = turnsFacts(s, v, errs)
	for _, t := range s.Turns {
		if tm := t.Timing; tm != nil {
			f.Split.ModelMs += tm.ModelMs
			f.Split.WaitingMs += tm.WaitingMs
			f.Split.IdleMs += tm.IdleMs
			for _, x := range tm.Tools {
				f.Split.ToolsMs += x.Ms
			}
		}
	}
	for _, n := range errs {
		f.Errors += n
	}
	return f
}

// editLines is what a file card counts of the lines a call added and
// removed: its diff's, or a file written whole (no diff) its lines.
func editLines(t ToolView) [2]int {
	if t.Fold.Added > 0 || t.Fold.Removed > 0 {
		return [2]int{t.Fold.Added, t.Fold.Removed}
	}
	if fv, ok := t.Data.(FileView); ok && t.Name == "Write" && fv.Diff == "" {
		return [2]int{fv.Lines, 0}
	}
	return [2]int{}
}

// filesFacts lists the files s changed with the lines its edits added and
// removed (edits: by call id, as the page's cards count them).
func filesFacts(s *session.Session, edits map[string][2]int) []FactsFile {
	touched := s.FilesTouched()
	if len(touched) == 0 {
		return nil
	}
	byPath := map[string]int{}
	out := make([]FactsFile, len(touched))
	for i, ft := range touched {
		out[i] = FactsFile{Path: ft.Path, Turns: ft.Turns}
		byPath[ft.Path] = i
	}
	for _, c := range s.Tools {
		i, ok := byPath[c.In().FilePath()]
		if !ok {
			continue
		}
		e := edits[c.ID]
		out[i].Added += e[0]
		out[i].Removed += e[1]
	}
	return out
}

// turnsFacts lines up the turns of v with their prompts' hashes.
func turnsFacts(s *session.Session, v *SessionView, errs map[int]int) []FactsTurn {
	prompt := map[int]string{}
	ms := map[int]int64{}
	for _, t := range s.Turns {
		if t.Prompt >= 0 && t.Prompt < len(s.Messages) {
			prompt[t.Index] = session.PromptText(s.Messages[t.Prompt])
		}
		if t.Timing != nil {
			ms[t.Index] = t.Timing.WallMs
		} else if !t.Start.IsZero() && t.End.After(t.Start) {
			ms[t.Index] = t.End.Sub(t.Start).Milliseconds()
		}
	}
	out := make([]FactsTurn, 0, len(v.Turns))
	for _, tv := range v.Turns {
		ft := FactsTurn{Index: tv.Index, Anchor: tv.Anchor, Excerpt: tv.Excerpt, HasPrompt: tv.HasPrompt,
			Tools: tv.Tools, ToolNames: tv.ToolNames, Took: tv.Took, Ms: ms[tv.Index], Cost: tv.Cost, Errors: errs[tv.Index]}
		if p, ok := prompt[tv.Index]; ok && tv.HasPrompt {
			ft.Hash = PromptHash(p)
		}
		out = append(out, ft)
	}
	return out
}

// PromptHash hashes a prompt's text with its spaces collapsed and its
// letters lower-cased, so a prompt typed again the same way matches.
func PromptHash(text string) string {
	norm := strings.ToLower(strings.Join(strings.Fields(text), " "))
	if norm == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:8])
}

// FactsJS writes f as a script calling ccsiteFacts(id, facts): a file a
// page loads with <script src>, which works from file:// where fetch does
// not. encoding/json escapes <, >, & and U+2028/U+2029, so no text of the
// transcript can end the script or the string.
func FactsJS(f Facts) []byte {
	var b bytes.Buffer
	b.WriteString("ccsiteFacts(")
	b.Write(jsonJS(f.ID))
	b.WriteString(", ")
	b.Write(jsonJS(f))
	b.WriteString(");\n")
	return b.Bytes()
}

// CompareEntry is a session in the compare index: its id, title,
// project, page, facts script and start.
type CompareEntry struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Project string `json:"project"`
	Page    string `json:"page"`
	Facts   string `json:"facts"`
	Start   string `json:"start,omitempty"`
}

// CompareIndexJS writes the compare index as a script calling
// ccsiteCompareIndex(entries).
func CompareIndexJS(entries []CompareEntry) []byte {
	if entries == nil {
		entries = []CompareEntry{}
	}
	var b bytes.Buffer
	b.WriteString("ccsiteCompareIndex(")
	b.Write(jsonJS(entries))
	b.WriteString(");\n")
	return b.Bytes()
}

// CompareView is the compare page's body: Index the compare index's URL
// (a site's page), or Inline the two sessions' facts (a single file).
type CompareView struct {
	Index  string
	Script string
	Inline template.JS
}

// InlineFacts is the script of a single compare file: the two sessions'
// facts and their ids as the page's a and b.
func InlineFacts(a, b Facts) template.JS {
	var buf bytes.Buffer
	buf.WriteString("window.ccsiteInline = {a: ")
	buf.Write(jsonJS(a))
	buf.WriteString(", b: ")
	buf.Write(jsonJS(b))
	buf.WriteString("};")
	return template.JS(buf.String())
}

func jsonJS(v any) []byte {
	data, err := json.Marshal(v) // escapes <, >, &, U+2028 and U+2029
	if err != nil {
		panic(err) // facts are plain values: a bug
	}
	return data
}
