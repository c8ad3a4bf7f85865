// Package build runs ccsite's jobs: discover transcripts, parse them into
// sessions in parallel, and hand each finished session on in a stable order.
package build

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"ccsite/build/agents"
	"ccsite/build/archive"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"golang.org/x/sync/errgroup"
)

// Loaded is one main session (its sub-agents attached) or one orphan agent.
type Loaded struct {
	Project *archive.Project
	File    *archive.SessionFile // nil for an orphan agent
	Session *session.Session
	// Agent is the file of an orphan agent.
	Agent *archive.AgentFile
	// Claimed are the orphan agent files the session's calls claimed.
	Claimed []*archive.AgentFile
	// Err is set when the file could not be read at all.
	Err error
	// Cached is set (and Session nil) when the previous build's output
	// for it still holds: it was not parsed.
	Cached *Cached
}

// Cached is what Load needs of a previous build's output to trust it: the
// agent ids the session's calls named, in order, and the agent files it
// claimed with them.
type Cached struct {
	Refs []string
	// Claimed are the claimed files' pathKeys.
	Claimed []string
	// Still tells whether the claimed files are unchanged since.
	Still func(claimed []*archive.AgentFile) bool
	// Unit is the caller's own record of the output.
	Unit any
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Workers parse in parallel; 0 means one per CPU.
	Workers int
	// panicOn, set by tests, is called as each session file is parsed.
	panicOn func(stage, path string)
	// Redact, when set, rewrites every line before it is parsed (secrets,
	// the user's own strings, paths).
	Redact *redact.Redactor
	// Omit leaves thinking or tool output out, before redaction.
	Omit omit.Options
	// Cache, when set, is asked before each session or orphan agent is
	// parsed (l has Project and File, or Agent): a non-nil answer skips
	// the parse and hands fn l with Cached set instead, unless the agent
	// files the session would claim are no longer those it claimed.
	Cache func(l Loaded) *Cached
	// memo, when set, is the filter's memory of each file (lineMemo),
	// made with the same Redact and Omit.
	memo *lineMemo
}

// Load parses every session of the archive with its sub-agents, in
// parallel, and calls fn for each in archive order (projects by path,
// sessions by file path), then for each orphan agent. At most a few sessions
// per worker are held at once, so memory follows the largest sessions, not
// the archive. fn runs on one goroutine at a time.
func Load(ctx context.Context, a *archive.Archive, opts LoadOptions, fn func(Loaded) error) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type job struct {
		project *archive.Project
		file    *archive.SessionFile
	}
	var jobs []job
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			jobs = append(jobs, job{p, s})
		}
	}
	claims := newClaims(a.Orphans)
	err := ordered(ctx, len(jobs), workers, func(i int) Loaded {
		j := jobs[i]
		if opts.Cache != nil {
			if c := opts.Cache(Loaded{Project: j.project, File: j.file}); c != nil {
				return Loaded{Project: j.project, File: j.file, Cached: c}
			}
		}
		s, err := loadSession(j.file, opts)
		return Loaded{Project: j.project, File: j.file, Session: s, Err: err}
	}, func(l Loaded) error {
		// Claiming runs here, in archive order, so which session gets an
		// agent file two of them name never depends on scheduling.
		if c := l.Cached; c != nil {
			var got []*archive.AgentFile
			for _, id := range c.Refs {
				if ag := claims.claim(id, l.File.Folder); ag != nil {
					got = append(got, ag)
				}
			}
			if sameFiles(got, c.Claimed) && (c.Still == nil || c.Still(got)) {
				return fn(l)
			}
			// Not what it claimed before: give them back and parse.
			claims.release(got)
			s, err := loadSession(l.File, opts)
			l = Loaded{Project: l.Project, File: l.File, Session: s, Err: err}
		}
		if l.Session != nil {
			l.Claimed = claimAgents(l.Session, l.File, claims, opts)
		}
		return fn(l)
	})
	if err != nil {
		return err
	}
	// Orphans nobody claimed, each in the project of its own cwd or folder.
	var orphans []*archive.AgentFile
	for _, ag := range a.Orphans {
		if !claims.taken(ag) {
			orphans = append(orphans, ag)
		}
	}
	return ordered(ctx, len(orphans), workers, func(i int) Loaded {
		ag := orphans[i]
		l := Loaded{Project: orphanProject(a, ag), Agent: ag}
		if opts.Cache != nil {
			if c := opts.Cache(l); c != nil {
				l.Cached = c
				return l
			}
		}
		s, err := loadAgent(ag, opts)
		if s != nil {
			s.Agent.Orphan = true
		}
		l.Session, l.Err = s, err
		return l
	}, fn)
}

// AgentRefIDs lists the agent ids a session's claims try, in order: what
// a Cached must hold as Refs.
func AgentRefIDs(s *session.Session) []string {
	ids := make([]string, len(s.AgentRefs))
	for i, r := range s.AgentRefs {
		ids[i] = r.AgentID
	}
	return ids
}

func sameFiles(got []*archive.AgentFile, paths []string) bool {
	if len(got) != len(paths) {
		return false
	}
	for i, ag := range got {
		if pathKey(ag.Path) != paths[i] {
			return false
		}
	}
	return true
}

// ordered runs work(i) for i in [0,n) on workers goroutines and calls emit
// with the results in index order, keeping at most 2*workers results alive.
func ordered(ctx context.Context, n, workers int, work func(int) Loaded, emit func(Loaded) error) error {
	if n == 0 {
		return nil
	}
	g, ctx := errgroup.WithContext(ctx)
	window := make(chan struct{}, 2*workers)
	results := make([]chan Loaded, n)
	for i := range results {
		results[i] = make(chan Loaded, 1)
	}
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for w := 0; w < workers; w++ {
		g.Go(func() error {
			for i := range next {
				results[i] <- work(i)
			}
			return nil
		})
	}
	g.Go(func() error {
		for i := 0; i < n; i++ {
			var l Loaded
			select {
			case l = <-results[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
			results[i] = nil
			err := emit(l)
			<-window
			if err != nil {
				return err
			}
		}
		return nil
	})
	return g.Wait()
}

// loadSession parses a session file and its agent files and links them.
func loadSession(sf *archive.SessionFile, opts LoadOptions) (s *session.Session, err error) {
	defer recoverTo(&s, &err)
	if opts.panicOn != nil {
		opts.panicOn("parse", sf.Path)
	}
	if sf.Agent != "" {
		return loadOther(sf, opts)
	}
	f, err := transcript.ReadFileWith(sf.Path, opts.lines())
	if err != nil {
		return nil, err
	}
	s = session.Build(f, session.Options{})
	s.ID = sf.ID
	for _, a := range s.Agents {
		a.Agent.ParentID = s.ID
		a.ID = s.ID + "/" + a.Agent.AgentID
	}
	for _, ag := range sf.Agents {
		a, err := loadAgent(ag, opts)
		if err != nil {
			s.Problems = append(s.Problems, session.Problem{File: ag.Path, Kind: "agent", Reason: err.Error()})
			continue
		}
		session.Attach(s, a, ag.LinkedBy)
	}
	session.Nest(s)
	sortAgents(s)
	storedOutputs(s, sf, opts)
	return s, nil
}

// loadOther reads a session of another agent than Claude Code through its
// reader (build/agents), each line through the same filter.
func loadOther(sf *archive.SessionFile, opts LoadOptions) (*session.Session, error) {
	ag := agents.ByKey(sf.Agent)
	if ag == nil {
		return nil, fmt.Errorf("no reader for agent %q", sf.Agent)
	}
	f, err := ag.Read(sf.Path, opts.filter())
	if err != nil {
		return nil, err
	}
	if f.Agent == "" {
		f.Agent = ag.Name // pages name the agent whatever its reader set
	}
	omitRecords(f, opts.Omit)
	s := session.Build(f, session.Options{})
	s.ID = sf.ID
	s.Parent = sf.ParentSession
	s.ParentIsAgent = sf.SubAgent
	return s, nil
}

// claimAgents attaches the agent files this session's calls name that no
// other link placed.
func claimAgents(s *session.Session, sf *archive.SessionFile, claims *claims, opts LoadOptions) (claimed []*archive.AgentFile) {
	n := len(s.Agents)
	before := map[*session.Session]bool{}
	for _, a := range s.Agents {
		before[a] = true
	}
	for _, ref := range s.AgentRefs {
		if ag := claims.claim(ref.AgentID, sf.Folder); ag != nil {
			claimed = append(claimed, ag)
			a, err := loadAgent(ag, opts)
			if err != nil {
				s.Problems = append(s.Problems, session.Problem{File: ag.Path, Kind: "agent", Reason: err.Error()})
				continue
			}
			session.Attach(s, a)
		}
	}
	// Agents known only from the agent_progress records that embed their
	// messages: rebuilt from those, so their work is not lost.
	have := map[string]bool{}
	for _, a := range s.Agents {
		if a.Agent != nil {
			have[a.Agent.AgentID] = true
		}
	}
	for _, ref := range s.AgentRefs {
		if ref.Via != "agent_progress" || have[ref.AgentID] {
			continue
		}
		have[ref.AgentID] = true
		if a := session.FromProgress(s, ref.AgentID); a != nil {
			session.Attach(s, a, "agent_progress")
		}
	}
	if len(s.Agents) > n {
		session.Nest(s)
		sortAgents(s)
		var added []*session.Session
		for _, a := range s.Agents {
			if !before[a] {
				added = append(added, a)
			}
		}
		storedIn(s, added, sf, opts)
	}
	return claimed
}

// sortAgents orders sub-agents by first appearance: by the position of the
// call that ran them, then (no call) by start time and file.
func sortAgents(s *session.Session) {
	pos := map[string]int{}
	for i, c := range s.Tools {
		pos[c.ID] = i
	}
	key := func(a *session.Session) int {
		if a.Agent != nil {
			if p, ok := pos[a.Agent.ToolUseID]; ok && a.Agent.ToolUseID != "" {
				return p
			}
		}
		return len(s.Tools)
	}
	sort.SliceStable(s.Agents, func(i, j int) bool {
		a, b := s.Agents[i], s.Agents[j]
		if ka, kb := key(a), key(b); ka != kb {
			return ka < kb
		}
		// Workflow agents (no call of the session runs them) by workflow.
		if wa, wb := workflowOf(a), workflowOf(b); wa != wb {
			return wa < wb
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Path < b.Path
	})
}

// filter is the line filter the options ask for, or none: what is left
// out goes first, so redaction never scans it.
func (o LoadOptions) filter() transcript.Filter { return o.filterWith(o.Redact.Line) }

// filterOnce is filter for lines a lineMemo remembers: redaction marks no
// line clean (redact.Redactor.LineOnce).
func (o LoadOptions) filterOnce() transcript.Filter { return o.filterWith(o.Redact.LineOnce) }

func (o LoadOptions) filterWith(redact transcript.Filter) transcript.Filter {
	red, om := o.Redact.Active(), o.Omit.Active()
	switch {
	case red && om:
		return func(file string, line []byte) []byte { return redact(file, o.Omit.Line(file, line)) }
	case red:
		return redact
	case om:
		return o.Omit.Line
	}
	return nil
}

// lines is filter as the decoder takes it, with the memo when there is one.
func (o LoadOptions) lines() transcript.FileFilter {
	if o.memo != nil {
		return o.memo
	}
	return transcript.Lines(o.filter())
}

// loadAgent parses a sub-agent file.
func loadAgent(ag *archive.AgentFile, opts LoadOptions) (a *session.Session, err error) {
	defer recoverTo(&a, &err)
	f, err := transcript.ReadFileWith(ag.Path, opts.lines())
	if err != nil {
		return nil, err
	}
	a = session.Build(f, session.Options{AgentFile: true, Layout: ag.Layout})
	a.Agent.AgentID = ag.ID
	a.ID = "agent-" + ag.ID
	if ag.Meta != nil {
		a.Agent.AgentType = opts.Redact.String(ag.Path, ag.Meta.AgentType)
		a.Agent.Description = opts.Redact.String(ag.Path, ag.Meta.Description)
		a.Agent.ParentAgent = ag.Meta.ParentAgentID
	}
	a.Agent.WorkflowID = ag.WorkflowID
	return a, nil
}

// claims lets a parsed session take an orphan agent file its calls name,
// once, and only from its own folder.
type claims struct {
	mu   sync.Mutex
	byID map[string][]*archive.AgentFile
	done map[*archive.AgentFile]bool
}

func newClaims(orphans []*archive.AgentFile) *claims {
	c := &claims{byID: map[string][]*archive.AgentFile{}, done: map[*archive.AgentFile]bool{}}
	for _, ag := range orphans {
		c.byID[ag.ID] = append(c.byID[ag.ID], ag)
	}
	return c
}

func (c *claims) claim(agentID, folder string) *archive.AgentFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ag := range c.byID[agentID] {
		if !c.done[ag] && ag.Folder == folder {
			c.done[ag] = true
			return ag
		}
	}
	return nil
}

// release gives claimed files back.
func (c *claims) release(files []*archive.AgentFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ag := range files {
		delete(c.done, ag)
	}
}

func (c *claims) taken(ag *archive.AgentFile) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done[ag]
}

// orphanProject finds the project an orphan agent belongs to: the project
// of its folder, else one named by its cwd.
func orphanProject(a *archive.Archive, ag *archive.AgentFile) *archive.Project {
	for _, p := range a.Projects {
		for _, f := range p.Folders {
			if f == ag.Folder {
				return p
			}
		}
	}
	path, from := ag.FirstCWD, false
	if path == "" {
		path, from = ag.Folder, true
	}
	return &archive.Project{Path: path, Name: archive.ShortName(path), FromFolder: from, Folders: []string{ag.Folder}}
}

// recoverTo turns a panic while a file is parsed (a bug ccsite has on its
// data) into that file's error, so one session cannot take the build down.
func recoverTo(s **session.Session, err *error) {
	if r := recover(); r != nil {
		*s, *err = nil, panicError(r)
	}
}

// panicError describes a recovered panic.
func panicError(r any) error {
	return fmt.Errorf("ccsite failed on this file (a bug; please report it): %v", r)
}
