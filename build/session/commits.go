package session

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Commit is a git commit a session made, as its transcript shows it: a
// Bash call running git commit whose output holds git's summary line,
// "[main abc1234] subject" ("[main (root-commit) abc1234] subject",
// "[detached HEAD abc1234] subject").
type Commit struct {
	Hash    string    `json:"hash"`             // as git printed it (7 or more hex digits)
	Subject string    `json:"subject"`          // the subject git printed
	Branch  string    `json:"branch,omitempty"` // "" on a detached HEAD
	Turn    int       `json:"turn"`             // the live branch's turn of the call
	Time    time.Time `json:"time,omitzero"`    // the call's time
	Tool    string    `json:"tool"`             // the call's id
}

// commitLine is git commit's summary line.
var commitLine = regexp.MustCompile(`(?m)^\[(detached HEAD|[^\]\s]+)( \(root-commit\))? ([0-9a-f]{7,40})\] ([^\r\n]*)`)

// isGitCommit says a shell command runs git commit (git -C dir commit,
// git commit --amend, a chain of commands).
func isGitCommit(cmd string) bool {
	i := strings.Index(cmd, "git ")
	return i >= 0 && strings.Contains(cmd[i:], "commit")
}

// ParseCommits reads git commit's summary lines in a command's output.
func ParseCommits(out string) []Commit {
	var list []Commit
	for _, m := range commitLine.FindAllStringSubmatch(out, -1) {
		c := Commit{Hash: m[3], Subject: strings.TrimSpace(m[4])}
		if m[1] != "detached HEAD" {
			c.Branch = m[1]
		}
		list = append(list, c)
	}
	return list
}

// Commits are the commits the session's live branch made, in order, each
// once (by hash).
func (s *Session) Commits() []Commit {
	var out []Commit
	seen := map[string]bool{}
	for _, c := range s.Tools {
		if c.Name != "Bash" || c.Use == nil || c.Use.Turn == 0 || !isGitCommit(c.In().Str("command")) {
			continue
		}
		for _, cm := range ParseCommits(StripANSI(c.ResultText())) {
			if seen[cm.Hash] {
				continue
			}
			seen[cm.Hash] = true
			cm.Turn, cm.Time, cm.Tool = c.Use.Turn, c.Use.Time, c.ID
			out = append(out, cm)
		}
	}
	slices.SortStableFunc(out, func(a, b Commit) int { return a.Turn - b.Turn })
	return out
}

// FileTouch is a file the session changed and the turns that changed it.
type FileTouch struct {
	Path  string `json:"path"`
	Turns []int  `json:"turns"`
}

// FilesTouched lists the files the live branch's Edit, MultiEdit, Write
// and NotebookEdit calls changed, by path, each with its turns in order.
func (s *Session) FilesTouched() []FileTouch {
	turns := map[string][]int{}
	for _, c := range s.Tools {
		switch c.Name {
		case "Edit", "MultiEdit", "Write", "NotebookEdit":
		default:
			continue
		}
		p := c.In().FilePath()
		if p == "" || c.Use == nil || c.Use.Turn == 0 {
			continue
		}
		if t := turns[p]; len(t) == 0 || t[len(t)-1] != c.Use.Turn {
			turns[p] = append(t, c.Use.Turn)
		}
	}
	out := make([]FileTouch, 0, len(turns))
	for p, t := range turns {
		slices.Sort(t)
		out = append(out, FileTouch{Path: p, Turns: slices.Compact(t)})
	}
	slices.SortFunc(out, func(a, b FileTouch) int { return strings.Compare(a.Path, b.Path) })
	return out
}
