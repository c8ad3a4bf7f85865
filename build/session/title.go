package session

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"ccsite/build/markup"
	"ccsite/build/transcript"
)

// Title sources, strongest first: what named the session (Session.TitleSource).
const (
	TitleCustom      = "custom-title"      // a title the person gave (/rename)
	TitleAI          = "ai-title"          // a title Claude Code generated
	TitleAgentName   = "agent-name"        // a sub-agent's name
	TitleSummary     = "summary"           // a summary record
	TitlePrompt      = "first-prompt"      // the first prompt that says something (a greeting when there is nothing else)
	TitleDescription = "agent-description" // the description of the call that ran a sub-agent
	TitleCommand     = "command"           // the first slash command
	TitleAnswer      = "first-answer"      // the first sentence of the first answer
	TitleTool        = "first-tool"        // the first tool call, for a session of tool calls only
	TitleNone        = "none"              // nothing was said: "No conversation" and the date
)

// title picks, in order: custom-title > ai-title > agent-name > a summary
// of this file > the first substantial prompt (greetings, "continue" and
// the like skipped; a plan handed over by its heading) > a sub-agent's description > a slash command with
// something to say (arguments, or one of the person's own) > a summary
// whose leaf is in another file > the first answer's first sentence (a
// greeting skipped) > the first prompt however short > any slash command >
// the first tool call. A session with none of these is "No conversation"
// with its date, never a bare id.
func title(s *Session) {
	var custom, ai, agentName string
	inFile := map[string]bool{}
	if len(s.Summaries) > 0 { // a set of every uuid only when it is asked
		for _, m := range s.allMessages() {
			for _, r := range m.Records {
				inFile[r.UUID] = true
			}
		}
	}
	for _, sd := range s.Side {
		r := sd.Record
		switch r.Type {
		case transcript.TypeCustomTitle:
			if r.CustomTitle != "" {
				custom = r.CustomTitle
			}
		case transcript.TypeAITitle:
			if r.AITitle != "" {
				ai = r.AITitle
			}
		case transcript.TypeAgentName:
			if r.AgentName != "" {
				agentName = r.AgentName
			}
		}
	}
	var summary, otherSummary string
	for i := range s.Summaries {
		sm := &s.Summaries[i]
		sm.InFile = inFile[sm.LeafUUID]
		if strings.TrimSpace(sm.Text) == "" {
			continue
		}
		if sm.InFile {
			summary = sm.Text
		} else {
			otherSummary = sm.Text
		}
	}
	var prompt, greeting, command, anyCommand, answer, thought string
	for _, m := range s.Messages {
		switch {
		case m.Prompt && (m.Kind == KindPrompt || m.Kind == KindQueued) && prompt != "" && anyCommand != "":
			// Nothing such a message could give is still wanted:
			// neither the prompt nor, were it context only, the
			// first command (checking that reads its text again).
		case m.Prompt && (m.Kind == KindPrompt || m.Kind == KindQueued) && !contextOnly(m):
			if prompt != "" {
				break
			}
			p := planHeading(PromptText(m))
			if s.Agent != nil {
				p = plainTitle(p)
			}
			t := Excerpt(p, 100)
			switch {
			case prompt != "" || t == "":
			case Generic(t):
				if greeting == "" {
					greeting = t
				}
			default:
				prompt = t
			}
		case m.Kind.StartsTurn():
			wantCommand := command == "" && m.Kind == KindCommand && !boilerplateCommand(m.Command)
			if anyCommand != "" && !wantCommand {
				break
			}
			t := Excerpt(PromptText(m), 100)
			if anyCommand == "" {
				anyCommand = t
			}
			if wantCommand {
				command = t
			}
		case m.Kind == KindAnswer:
			if answer == "" {
				answer = Excerpt(firstSentence(m.Text()), 100)
			}
			if thought == "" {
				thought = Excerpt(thinking(m), 100)
			}
		}
	}
	description := ""
	if s.Agent != nil {
		description = s.Agent.Description
	}
	for _, c := range []struct{ v, src string }{
		{custom, TitleCustom}, {ai, TitleAI}, {agentName, TitleAgentName},
		{summary, TitleSummary}, {prompt, TitlePrompt}, {description, TitleDescription},
		{command, TitleCommand}, {otherSummary, TitleSummary}, {answer, TitleAnswer},
		{greeting, TitlePrompt}, {anyCommand, TitleCommand}, {firstTool(s), TitleTool}, {thought, TitleAnswer},
	} {
		if v := Excerpt(c.v, 200); v != "" {
			s.Title, s.TitleSource = v, c.src
			return
		}
	}
	s.Title, s.TitleSource = "No conversation", TitleNone
	if !s.Start.IsZero() {
		s.Title += " · " + s.Start.UTC().Format("2006-01-02 15:04 UTC")
	}
}

// generic are prompts (and answers' first sentences) that say nothing of
// what a session is about, compared lower-cased without punctuation.
var generic = map[string]bool{}

func init() {
	for _, w := range []string{
		"hi", "hello", "hey", "heya", "hiya", "yo", "sup", "howdy", "hola", "hallo", "bonjour", "greetings",
		"hi there", "hello there", "hey there", "hi claude", "hello claude", "hey claude",
		"good morning", "good afternoon", "good evening", "morning",
		"continue", "please continue", "continue please", "go on", "keep going", "carry on", "go ahead",
		"proceed", "please proceed", "resume", "start", "begin", "go", "next", "again", "retry", "try again",
		"ok", "okay", "k", "yes", "y", "yep", "yeah", "sure", "no", "n", "nope", "done",
		"thanks", "thank you", "thx", "ty", "cool", "nice", "great",
		"test", "testing", "ping", "help", "what", "why", "how",
		"ready", "i'm ready", "i'm ready to help", "understood", "got it", "sure thing",
		"how can i help", "how can i help you", "how can i help you today", "what can i help you with",
		"what can i help you with today", "what would you like to do", "what would you like me to do",
		"what would you like to work on", "what would you like to work on today",
	} {
		generic[w] = true
	}
}

// Generic reports a prompt that says nothing of what a session is about:
// a greeting, "continue", "ok", "test" and the like, a bare slash, or a
// few words starting "continue" or "resume" ("resume last session").
func Generic(text string) bool {
	t := strings.ToLower(strings.Join(strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}), " "))
	if t == "" || generic[t] {
		return true
	}
	if words := strings.Fields(t); len(words) <= 3 {
		switch words[0] {
		case "hi", "hello", "hey", "continue", "resume", "ok", "okay", "thanks":
			return true
		}
	}
	// An answer that only offers help.
	for _, p := range []string{"what would you like", "how can i help", "how can i assist", "what can i help", "i'm claude", "i am claude"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// Text Claude Code writes as if typed: a hook's verdict, the caveat
	// before local commands.
	return strings.HasPrefix(t, "operation stopped by hook") ||
		strings.HasPrefix(t, "caveat the messages below were generated by the user")
}

// Housekeeping reports a slash command that runs Claude Code itself and
// names nothing a session is about: a built-in command without arguments.
func Housekeeping(m *Message) bool {
	return m.Kind == KindCommand && boilerplateCommand(m.Command)
}

// boilerplateCommand reports a built-in slash command without arguments:
// it runs Claude Code itself (/clear, /model, /login…), so it names nothing
// the session is about.
func boilerplateCommand(c *Command) bool {
	if c == nil {
		return true
	}
	if strings.TrimSpace(c.Args) != "" {
		return false
	}
	switch strings.TrimPrefix(strings.TrimSpace(c.Name), "/") {
	case "", "clear", "model", "login", "logout", "exit", "quit", "resume", "continue", "compact", "status",
		"cost", "usage", "help", "config", "doctor", "context", "memory", "permissions", "hooks", "mcp",
		"agents", "ide", "theme", "vim", "terminal-setup", "upgrade", "release-notes", "bug", "add-dir",
		"export", "rewind", "todos", "stats", "statusline", "output-style", "privacy-settings", "plugin",
		"fast", "effort", "chrome", "rename", "tasks", "bashes", "sandbox", "feedback", "install-github-app", "migrate-installer":
		return true
	}
	return false
}

// firstSentence is the first sentence of an answer that says something:
// its first lines with Markdown marks (headings, quotes, list bullets,
// emphasis) taken off, split into sentences, a greeting or a one- or
// two-word exclamation ("Perfect!") skipped.
// emphasis takes Markdown's emphasis and code marks off a line.
var emphasis = strings.NewReplacer("**", "", "__", "", "`", "")

func firstSentence(text string) string {
	lines := 0
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "#>-*+ \t")
		line = strings.TrimSpace(emphasis.Replace(line))
		if line == "" || strings.HasPrefix(line, "|") {
			continue
		}
		for _, sn := range sentences(line) {
			if !Generic(sn) && !(len(strings.Fields(sn)) <= 2 && strings.HasSuffix(sn, "!")) {
				return sn
			}
		}
		if lines++; lines == 3 { // a greeting's lines, not the answer's body
			return ""
		}
	}
	return ""
}

// sentences splits a line after each ".", "!", "?" followed by a space or
// its end; a line ending in ":" loses it.
func sentences(line string) []string {
	var out []string
	start := 0
	for i, r := range line {
		end := i + len(string(r))
		switch {
		case r == ':' && end == len(line):
			out = append(out, strings.TrimSpace(line[start:i]))
			start = end
		case (r == '.' || r == '!' || r == '?' || r == '。') && (end == len(line) || line[end] == ' '):
			out = append(out, strings.TrimSpace(line[start:end]))
			start = end
		}
	}
	if rest := strings.TrimSpace(line[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// thinking is the first sentence of the first thinking block, for an
// answer with no text.
func thinking(m *Message) string {
	for _, b := range m.Blocks {
		if b.Type == "thinking" {
			if t := firstSentence(b.Thinking); t != "" {
				return t
			}
		}
	}
	return ""
}

// planHeading is the heading of a plan handed over as a prompt
// ("Implement the following plan: # Fix the login flow ## Context…"), else
// the prompt.
func planHeading(prompt string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(prompt), "Implement the following plan:")
	if !ok {
		return prompt
	}
	for _, line := range strings.Split(rest, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
			if h = strings.TrimSpace(strings.TrimLeft(h, "#")); h != "" {
				return h
			}
		}
	}
	return prompt
}

// plainTitle is the text a reader sees of a prompt Claude wrote in
// Markdown (a sub-agent's: "You are **bob**…"), from its first lines: a
// title needs no more, and a long prompt is not parsed whole.
func plainTitle(p string) string {
	const head = 2000
	if len(p) > head {
		cut := strings.LastIndexByte(p[:head], '\n')
		if cut < head/2 {
			cut = head
			for cut > 0 && !utf8.RuneStart(p[cut]) {
				cut--
			}
		}
		p = p[:cut]
	}
	return markup.PlainText(p)
}

// firstTool names the first tool call with what it worked on: "Bash: go
// test ./...", "Read: main.go".
func firstTool(s *Session) string {
	for _, c := range s.Tools {
		if c.Name == "" {
			continue
		}
		name := c.Name
		if strings.HasPrefix(name, "mcp__") { // mcp__server__tool: the tool
			name = name[strings.LastIndex(name, "__")+2:]
		}
		in := c.In()
		for _, k := range []string{"description", "command", "file_path", "notebook_path", "pattern", "url", "query", "path", "prompt", "plan"} {
			if v := strings.TrimSpace(in.Str(k)); v != "" {
				return name + ": " + Excerpt(v, 100)
			}
		}
		return name + " call"
	}
	return ""
}

func shortID(id string) string {
	if len(id) > 16 {
		return id[:8]
	}
	return id
}
