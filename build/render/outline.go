package render

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"ccsite/build/link"
	"ccsite/build/session"
	"ccsite/build/transcript"
)

// branches builds the views of the session's abandoned branches, each
// labelled by its first time and first words.
func (c *viewCtx) branches(s *session.Session) []BranchView {
	var out []BranchView
	for _, br := range s.Branches {
		bv := BranchView{Index: br.Index, Anchor: c.pre + link.Branch(br.Index), Leaf: mkTime(br.Leaf), Items: c.items(br.Messages)}
		if br.Fork != nil {
			bv.ForkAnchor = "#" + c.pre + link.Message(br.Fork.UUID)
			bv.ForkLine = br.Fork.Line
		}
		for _, m := range br.Messages {
			if !m.Time.IsZero() {
				bv.Start = mkTime(m.Time)
				break
			}
		}
		bv.Label = branchLabel(br.Messages)
		out = append(out, bv)
	}
	return out
}

// branchLabel is a branch's first words: its first prompt's, else its
// first answer's.
func branchLabel(msgs []*session.Message) string {
	for _, m := range msgs {
		if m.Prompt {
			if t := session.Excerpt(session.PromptText(m), 80); t != "" {
				return t
			}
		}
	}
	for _, m := range msgs {
		if m.Kind == session.KindAnswer {
			if t := session.Excerpt(m.Text(), 80); t != "" {
				return t
			}
		}
	}
	return ""
}

// placeBranches puts each branch right after the live-branch item it
// forks from; it returns those with no such item (their fork is on
// another branch, or missing), shown after the conversation.
func placeBranches(items []Item, bvs []BranchView) []BranchView {
	byFork := map[string][]int{}
	for i, bv := range bvs {
		if bv.ForkAnchor != "" {
			byFork[bv.ForkAnchor] = append(byFork[bv.ForkAnchor], i)
		}
	}
	placed := make([]bool, len(bvs))
	for i := range items {
		if items[i].Anchor == "" {
			continue
		}
		for _, k := range byFork["#"+items[i].Anchor] {
			items[i].Branches = append(items[i].Branches, bvs[k])
			placed[k] = true
		}
		if len(items[i].Branches) > 0 {
			items[i].Forks = nil // shown in place: no link to the bottom
		}
	}
	var rest []BranchView
	for i, bv := range bvs {
		if !placed[i] {
			rest = append(rest, bv)
		}
	}
	return rest
}

// quietKinds are the items that carry nothing for a reader of the
// conversation: bookkeeping the full view shows and the conversation view
// hides.
var quietKinds = map[string]bool{"progress": true, "event": true, "meta": true, "unknown": true}

// outline fills what the turn outline shows: tool calls, time taken,
// tokens written; and marks a turn before the first prompt that holds
// only bookkeeping.
func outline(s *session.Session, turns []TurnView) {
	byIndex := map[int]*TurnView{}
	for i := range turns {
		byIndex[turns[i].Index] = &turns[i]
	}
	tokens := session.TurnTokens(s)
	for k, t := range s.Turns {
		tv := byIndex[t.Index]
		if tv == nil {
			continue
		}
		n := 0
		type tc struct {
			name string
			n    int
		}
		var names []tc
		for name, k := range t.Tools {
			n += k
			names = append(names, tc{name, k})
		}
		sort.Slice(names, func(i, j int) bool {
			if names[i].n != names[j].n {
				return names[i].n > names[j].n
			}
			return names[i].name < names[j].name
		})
		var top []string
		for i, x := range names {
			if i == 3 {
				top = append(top, "…")
				break
			}
			top = append(top, x.name)
		}
		tv.Tools, tv.ToolNames = n, strings.Join(top, ", ")
		if tm := t.Timing; tm != nil && tm.WallMs > 0 {
			tv.Took = span(tm.WallMs)
			tv.TimeParts, tv.TimeTop = timeParts(tm)
		} else if !t.Start.IsZero() && !t.End.IsZero() && t.End.After(t.Start) {
			tv.Took = span(t.End.Sub(t.Start).Milliseconds())
		}
		tv.OutTokens, tv.Out, tv.OutShort = tokens[k].Output, spellTurnOut(tokens[k]), shortTurnOut(tokens[k])
		tv.OutEstimate, tv.outPartial = tokens[k].OutputEstimate(), tokens[k].Partial > 0
		tv.Context = turnContext(s, t)
	}
	for i := range turns {
		tv := &turns[i]
		if tv.HasPrompt {
			continue
		}
		tv.Quiet = true
		for _, it := range tv.Items {
			if !quietKinds[it.Kind] {
				tv.Quiet = false
				break
			}
		}
	}
}

// timeParts spells where a turn's time went, in order model, tools
// (largest first), waiting, idle, parts under a second left out; and its
// largest part alone (the first of those in that order on a tie); ""
// when the model took all of it.
func timeParts(tm *session.Timing) (all, top string) {
	type part struct {
		name string
		ms   int64
	}
	parts := []part{{"model", tm.ModelMs}}
	for _, x := range tm.Tools {
		parts = append(parts, part{x.Name, x.Ms})
	}
	parts = append(parts, part{"waiting", tm.WaitingMs}, part{"idle", tm.IdleMs})
	var out []string
	best := -1
	for i, p := range parts {
		if p.ms < 1000 {
			continue
		}
		out = append(out, p.name+" "+span(p.ms))
		if best < 0 || p.ms > parts[best].ms {
			best = i
		}
	}
	if best < 0 || len(out) == 1 && parts[best].name == "model" {
		return "", "" // all model time: the total says it
	}
	return strings.Join(out, " · "), parts[best].name + " " + span(parts[best].ms)
}

// span spells a duration in milliseconds in whole units: "850 ms",
// "40 s", "2 min 5 s", "1 h 3 min".
func span(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60000:
		return fmt.Sprintf("%d s", ms/1000)
	case ms < 3600000:
		return fmt.Sprintf("%d min %d s", ms/60000, ms/1000%60)
	}
	return fmt.Sprintf("%d h %d min", ms/3600000, ms/60000%60)
}

// resume is the command that resumes a main session in Claude Code, from
// its folder; "" for a sub-agent, and for a session whose id is not a
// UUID (as Claude Code names sessions) or whose folder is not a path a
// shell could be given: what is copied from the page and pasted in a
// terminal must run nothing but cd and claude. A folder under home (the
// builder's home folder, "" for none) is written ~/…, the tilde left for
// the shell to expand.
func resume(s *session.Session, home string) string {
	if s.Agent != nil || !transcript.IsUUID(s.ID) {
		return ""
	}
	cmd := "claude --resume " + shellQuote(s.ID) // the file's name: what --resume looks for
	switch s.AgentName {
	case "":
	case "Codex":
		cmd = "codex resume " + shellQuote(s.ID) // the thread id
	default:
		return "" // no resume command known for it
	}
	if s.CWD == "" {
		return cmd
	}
	if strings.IndexFunc(s.CWD, unicode.IsControl) >= 0 || !utf8.ValidString(s.CWD) {
		return ""
	}
	dir := shellQuote(s.CWD)
	if rest, ok := underHome(s.CWD, home); ok {
		dir = "~"
		if rest != "" {
			dir += "/" + shellQuote(rest)
		}
	} else if strings.HasPrefix(s.CWD, "-") {
		dir = "-- " + dir // not an option of cd
	}
	return "cd " + dir + " && " + cmd
}

// underHome tells whether path is home or below it, and the rest of path
// after home's separator ("" for home itself).
func underHome(path, home string) (rest string, ok bool) {
	home = strings.TrimRight(home, `/\`)
	if home == "" || !strings.HasPrefix(path, home) {
		return "", false
	}
	rest = path[len(home):]
	if rest == "" {
		return "", true
	}
	if rest[0] != '/' && rest[0] != '\\' {
		return "", false
	}
	return strings.TrimLeft(rest, `/\`), true
}

// shellQuote quotes a word for a POSIX shell (sh, bash, zsh) when it
// needs it: bare, it is only letters, digits and "/", ".", "_", "-" (a
// "~" would be expanded at a word's start, "=" too in zsh), else it is
// single-quoted, where nothing is interpreted.
func shellQuote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

func sourceName(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Base(p)
}

// deferLimit is the number of tool calls past which a page keeps tool
// bodies and thinking in inert templates, made when opened: a long
// session then loads as fast as a short one.
const deferLimit = 400

// deferred tells whether s's page waits to make its later turns and its
// tool bodies: more tool calls than the builder's DeferAfter (default
// deferLimit).
func (b *Builder) deferred(s *session.Session) bool {
	limit := b.DeferAfter
	if limit <= 0 {
		limit = deferLimit
	}
	return len(s.Tools) > limit
}

// deferTurns marks the turns a very long page makes only as they near the
// window: all but the first two (whose tool calls wait one by one, see
// FoldLine.Defer), each with a guess at its height so the
// scroll bar does not jump much as they are made.
func deferTurns(turns []TurnView) {
	for i := range turns {
		if turns[i].Index <= 2 {
			continue
		}
		turns[i].Defer = true
		turns[i].Height = min(40*len(turns[i].Items)+60, 20000)
	}
}
