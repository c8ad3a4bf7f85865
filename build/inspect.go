package build

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"ccsite/build/archive"
	"ccsite/build/session"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// InspectOptions configure Inspect.
type InspectOptions struct {
	Paths   []string
	JSON    bool
	Workers int
}

// Totals count what a run read.
type Totals struct {
	Projects   int           `json:"projects"`
	Sessions   int           `json:"sessions"`
	Agents     int           `json:"agents"`
	Orphans    int           `json:"orphanAgents"`
	Problems   int           `json:"problems"`
	Unreadable int           `json:"unreadableFiles"`
	Files      int           `json:"files"`
	Bytes      int64         `json:"bytes"`
	Elapsed    time.Duration `json:"-"`
}

// jsonOpts writes deterministic JSON and tolerates invalid UTF-8 kept from
// transcripts.
var jsonOpts = json.JoinOptions(json.Deterministic(true), jsontext.AllowInvalidUTF8(true),
	json.FormatNilSliceAsNull(false))

// InspectSchema names the --json document format (see README).
const InspectSchema = "ccsite.inspect/1"

// Inspect discovers and parses the archive at opts.Paths and writes a report
// per session to w: text for people, or one JSON document (--json). It fails
// only when nothing could be read.
func Inspect(ctx context.Context, w io.Writer, opts InspectOptions) (Totals, error) {
	start := time.Now()
	a, err := archive.Discover(ctx, opts.Paths)
	if err != nil {
		return Totals{}, err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	defer bw.Flush()
	t := Totals{Files: a.Files, Bytes: a.Bytes}
	var out inspectWriter = &textWriter{w: bw}
	if opts.JSON {
		out = &jsonWriter{w: bw}
	}
	out.begin(a)
	var project *archive.Project
	err = Load(ctx, a, LoadOptions{Workers: opts.Workers}, func(l Loaded) error {
		if l.Project != project {
			project = l.Project
			t.Projects++
		}
		if l.Err != nil {
			t.Unreadable++
			return out.unreadable(l)
		}
		if l.Session.Agent != nil && l.Session.Agent.Orphan {
			t.Orphans++
		} else {
			t.Sessions++
		}
		t.Agents += len(l.Session.Agents)
		t.Problems += len(l.Session.Problems)
		for _, ag := range l.Session.Agents {
			t.Problems += len(ag.Problems)
		}
		return out.session(l)
	})
	if err != nil {
		return t, err
	}
	t.Elapsed = time.Since(start)
	if t.Sessions+t.Orphans == 0 {
		return t, fmt.Errorf("no transcript could be read (%d unreadable files)", t.Unreadable)
	}
	return t, out.end(a, t)
}

type inspectWriter interface {
	begin(a *archive.Archive)
	session(l Loaded) error
	unreadable(l Loaded) error
	end(a *archive.Archive, t Totals) error
}

// textWriter writes the report for people.
type textWriter struct {
	w       *bufio.Writer
	project *archive.Project
}

func (tw *textWriter) begin(a *archive.Archive) {}

func (tw *textWriter) header(p *archive.Project) {
	if p == tw.project {
		return
	}
	tw.project = p
	note := ""
	if p.FromFolder {
		note = " (no cwd in its records: named by folder)"
	}
	fmt.Fprintf(tw.w, "\n== project %s [%s]%s\n", p.Path, p.Name, note)
}

func (tw *textWriter) unreadable(l Loaded) error {
	tw.header(l.Project)
	path := ""
	if l.File != nil {
		path = l.File.Path
	}
	fmt.Fprintf(tw.w, "\n-- unreadable %s: %v\n", path, l.Err)
	return nil
}

func (tw *textWriter) session(l Loaded) error {
	tw.header(l.Project)
	s := l.Session
	w := tw.w
	kind := "session"
	if s.Agent != nil {
		kind = "orphan sub-agent"
	}
	fmt.Fprintf(w, "\n-- %s %s\n   title: %s  (%s)\n   file:  %s (%s, %d lines)\n", kind, s.ID, s.Title, s.TitleSource,
		s.Path, humanBytes(s.Stats.Bytes), s.Stats.Lines)
	writeStats(w, "   ", s)
	writeTurns(w, "   ", s)
	if len(s.Branches) > 0 {
		fmt.Fprintf(w, "   branches: %d abandoned\n", len(s.Branches))
		for _, b := range s.Branches {
			where := "a separate root"
			if b.Fork != nil {
				where = fmt.Sprintf("fork after line %d", b.Fork.Line)
				if b.Fork.Branch > 0 {
					where += fmt.Sprintf(" (on branch %d)", b.Fork.Branch)
				}
			}
			first := ""
			for _, m := range b.Messages {
				if m.Prompt {
					first = session.Excerpt(session.PromptText(m), 60)
					break
				}
			}
			fmt.Fprintf(w, "     #%d %s, %d messages, newest %s  %q\n", b.Index, where, len(b.Messages), fmtTime(b.Leaf), first)
		}
	}
	if len(s.Agents) > 0 {
		fmt.Fprintf(w, "   sub-agents: %d\n", len(s.Agents))
		for _, a := range s.Agents {
			writeAgent(w, "     ", a)
		}
	}
	writeProblems(w, "   ", s)
	return nil
}

func writeAgent(w io.Writer, ind string, a *session.Session) {
	ai := a.Agent
	extra := []string{ai.Layout}
	if ai.AgentType != "" {
		extra = append(extra, ai.AgentType)
	}
	if ai.Warmup {
		extra = append(extra, "warmup")
	}
	link := "no call found"
	if ai.ToolUseID != "" {
		link = "call " + ai.ToolUseID
	}
	if len(ai.LinkedBy) > 0 {
		link += " via " + strings.Join(ai.LinkedBy, ", ")
	}
	fmt.Fprintf(w, "%s%s [%s] %q: %d messages, %d tool calls, %s; %s\n%s  file: %s\n", ind, ai.AgentID,
		strings.Join(extra, ", "), session.Excerpt(a.Title, 70), a.Stats.Messages, a.Stats.ToolCalls,
		fmtDur(a.Active), link, ind, a.Path)
	if len(a.Problems) > 0 {
		writeProblems(w, ind+"  ", a)
	}
}

func writeStats(w io.Writer, ind string, s *session.Session) {
	fmt.Fprintf(w, "%stime:  %s → %s (active %s)\n", ind, fmtTime(s.Start), fmtTime(s.End), fmtDur(s.Active))
	st := s.Stats
	fmt.Fprintf(w, "%sstats: %d turns, %d messages (%d prompts, %d answers), %d tool calls%s\n", ind,
		st.Turns, st.Messages, st.Prompts, st.Answers, st.ToolCalls, toolList(st.ToolsByName, " (", ")"))
	fmt.Fprintf(w, "%stokens: in %d, out %d, cache read %d, cache write %d\n", ind,
		st.Tokens.Input, st.Tokens.Output, st.Tokens.CacheRead, st.Tokens.CacheWrite)
	var meta []string
	add := func(label string, v []string) {
		if len(v) > 0 {
			meta = append(meta, label+" "+strings.Join(v, ", "))
		}
	}
	if s.CWD != "" {
		meta = append(meta, "cwd "+s.CWD)
	}
	if s.Slug != "" {
		meta = append(meta, "slug "+s.Slug)
	}
	add("git", s.GitBranches)
	add("models", s.Models)
	add("versions", s.Versions)
	if len(meta) > 0 {
		fmt.Fprintf(w, "%s%s\n", ind, strings.Join(meta, " · "))
	}
	for _, pr := range s.PRLinks {
		fmt.Fprintf(w, "%sPR: %s\n", ind, pr.URL)
	}
	if len(s.Unanswered) > 0 {
		fmt.Fprintf(w, "%sunanswered tool calls: %s\n", ind, strings.Join(s.Unanswered, ", "))
	}
	if len(s.OrphanResults) > 0 {
		var ids []string
		for _, o := range s.OrphanResults {
			ids = append(ids, fmt.Sprintf("%s (line %d)", o.ToolUseID, o.Line))
		}
		fmt.Fprintf(w, "%sorphan tool results: %s\n", ind, strings.Join(ids, ", "))
	}
	if len(s.Unknown) > 0 {
		fmt.Fprintf(w, "%sunknown records (shown raw): %s\n", ind, toolList(s.Unknown, "", ""))
	}
}

func writeTurns(w io.Writer, ind string, s *session.Session) {
	if len(s.Turns) == 0 {
		return
	}
	fmt.Fprintf(w, "%sturns:\n", ind)
	for _, t := range s.Turns {
		ex := t.Excerpt
		if !t.HasPrompt {
			ex = "(before the first prompt)"
		}
		fmt.Fprintf(w, "%s  %3d  %s  %-60s %s\n", ind, t.Index, fmtClock(t.Start), fmt.Sprintf("%q", session.Excerpt(ex, 58)),
			toolList(t.Tools, "", ""))
	}
}

func writeProblems(w io.Writer, ind string, s *session.Session) {
	if len(s.Problems) == 0 {
		return
	}
	fmt.Fprintf(w, "%sproblems: %d\n", ind, len(s.Problems))
	for _, p := range s.Problems {
		if p.Line > 0 {
			fmt.Fprintf(w, "%s  %s:%d: [%s] %s\n", ind, p.File, p.Line, p.Kind, p.Reason)
		} else {
			fmt.Fprintf(w, "%s  %s: [%s] %s\n", ind, p.File, p.Kind, p.Reason)
		}
	}
}

func (tw *textWriter) end(a *archive.Archive, t Totals) error {
	for _, sk := range a.Skipped {
		fmt.Fprintf(tw.w, "\nskipped %s: %s\n", sk.Path, sk.Reason)
	}
	fmt.Fprintf(tw.w, "\n%d projects, %d sessions, %d sub-agents, %d orphan sub-agents, %d problems; %d files, %s in %s\n",
		t.Projects, t.Sessions, t.Agents, t.Orphans, t.Problems, t.Files, humanBytes(t.Bytes), t.Elapsed.Round(time.Millisecond))
	return tw.w.Flush()
}

// toolList formats counts as "Bash 4, Read 2", most first, then by name.
func toolList(m map[string]int, pre, post string) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, c := range session.SortCounts(m) {
		parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Count))
	}
	return pre + strings.Join(parts, ", ") + post
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func fmtClock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.UTC().Format("15:04:05")
}

func fmtDur(d time.Duration) string {
	if d < time.Hour {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// jsonWriter streams one JSON document:
//
//	{"schema": ..., "projects": [{..., "sessions": [...]}], "orphanAgents": [...],
//	 "unreadable": [...], "skipped": [...], "totals": {...}}
type jsonWriter struct {
	w       *bufio.Writer
	project *archive.Project
	n       int
	orphans []jsontext.Value
	bad     []map[string]string
}

func (jw *jsonWriter) begin(a *archive.Archive) {
	fmt.Fprintf(jw.w, "{\"schema\":%q,\"roots\":", InspectSchema)
	jw.write(a.Roots)
	jw.w.WriteString(",\"projects\":[")
}

func (jw *jsonWriter) write(v any) error {
	return json.MarshalWrite(jw.w, v, jsonOpts)
}

func (jw *jsonWriter) openProject(p *archive.Project) error {
	if p == jw.project {
		return nil
	}
	if jw.project != nil {
		jw.w.WriteString("]},\n")
	}
	jw.project, jw.n = p, 0
	jw.w.WriteString("{\"path\":")
	jw.write(p.Path)
	jw.w.WriteString(",\"name\":")
	jw.write(p.Name)
	fmt.Fprintf(jw.w, ",\"fromFolder\":%t,\"folders\":", p.FromFolder)
	jw.write(p.Folders)
	jw.w.WriteString(",\"sessions\":[")
	return nil
}

func (jw *jsonWriter) session(l Loaded) error {
	if l.Session.Agent != nil && l.Session.Agent.Orphan {
		b, err := json.Marshal(struct {
			Project string           `json:"project"`
			Session *session.Session `json:"session"`
		}{l.Project.Path, l.Session}, jsonOpts)
		if err != nil {
			return fmt.Errorf("encode %s: %w", l.Session.Path, err)
		}
		jw.orphans = append(jw.orphans, b)
		return nil
	}
	jw.openProject(l.Project)
	if jw.n > 0 {
		jw.w.WriteString(",\n")
	}
	jw.n++
	if err := jw.write(l.Session); err != nil {
		return fmt.Errorf("encode %s: %w", l.Session.Path, err)
	}
	return nil
}

func (jw *jsonWriter) unreadable(l Loaded) error {
	path := ""
	if l.File != nil {
		path = l.File.Path
	}
	jw.bad = append(jw.bad, map[string]string{"path": path, "error": l.Err.Error()})
	return nil
}

func (jw *jsonWriter) end(a *archive.Archive, t Totals) error {
	if jw.project != nil {
		jw.w.WriteString("]}")
	}
	jw.w.WriteString("],\n\"orphanAgents\":[")
	for i, b := range jw.orphans {
		if i > 0 {
			jw.w.WriteString(",\n")
		}
		jw.w.Write(b)
	}
	jw.w.WriteString("],\n\"unreadable\":")
	jw.write(nonNil(jw.bad))
	jw.w.WriteString(",\n\"skipped\":")
	jw.write(nonNil(a.Skipped))
	jw.w.WriteString(",\n\"totals\":")
	jw.write(t)
	jw.w.WriteString("}\n")
	return jw.w.Flush()
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
