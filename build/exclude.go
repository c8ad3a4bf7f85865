package build

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"ccsite/build/archive"
	"ccsite/build/link"
)

// Exclude says which projects and sessions stay out of a site. A session
// left out takes its sub-agents with it, orphan agent files naming it
// included, so nothing of it reaches a page or the search index.
type Exclude struct {
	// Projects are globs tried on a project's path, its name, its page
	// slug and the name of each of its folders; * and ? match "/" too.
	Projects []string
	// Sessions are session ids (or globs on them): the file's id or the
	// sessionId its records carry.
	Sessions []string
	// Since and Until bound a session's start: Since inclusive, Until
	// exclusive (a --until day is turned into the next midnight). A
	// session with no time at all is left out when either is set.
	Since, Until time.Time
}

// ExcludeStats says what an Exclude left out.
type ExcludeStats struct {
	Projects int `json:"projects"`
	Sessions int `json:"sessions"`
	Agents   int `json:"agentFiles"`
	// Undated counts the sessions left out only because they carry no
	// time while a date bound was given.
	Undated int `json:"undated"`
	// Unmatched lists the globs that matched nothing: most likely typos.
	Unmatched []string `json:"unmatched,omitempty"`
}

// Active tells whether e leaves anything out.
func (e Exclude) Active() bool {
	return len(e.Projects) > 0 || len(e.Sessions) > 0 || !e.Since.IsZero() || !e.Until.IsZero()
}

// Validate checks the globs.
func (e Exclude) Validate() error {
	for _, g := range e.Projects {
		if _, err := globRE(g); err != nil {
			return fmt.Errorf("--exclude-project %q: %v", g, err)
		}
	}
	for _, g := range e.Sessions {
		if _, err := globRE(g); err != nil {
			return fmt.Errorf("--exclude-session %q: %v", g, err)
		}
	}
	if !e.Since.IsZero() && !e.Until.IsZero() && !e.Since.Before(e.Until) {
		return fmt.Errorf("--since %s is not before --until", e.Since.Format(time.RFC3339))
	}
	return nil
}

// ParseDate reads a --since/--until value: 2006-01-02, 2006-01-02T15:04,
// or RFC 3339; dates without a zone are UTC. until turns a bare date into
// the end of that day, so "--until 2026-03-01" keeps the 1st.
func ParseDate(s string, until bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", s); err == nil {
		if until {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (want 2006-01-02, 2006-01-02T15:04 or RFC 3339)", s)
}

// globRE turns a glob into a regular expression: * is any run of
// characters (slashes too), ? one character, [...] a class.
func globRE(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			j := strings.IndexByte(g[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [")
			}
			class := g[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// globs are compiled globs, each with its source.
type globs []struct {
	src string
	re  *regexp.Regexp
}

// compileGlobs compiles globs once (a bad one, which Validate reports, is
// left out).
func compileGlobs(src []string) globs {
	var out globs
	for _, g := range src {
		if re, err := globRE(g); err == nil {
			out = append(out, struct {
				src string
				re  *regexp.Regexp
			}{g, re})
		}
	}
	return out
}

// matchAny tells whether any glob matches any name, marking the globs
// that do as used.
func (gs globs) matchAny(used map[string]bool, names ...string) bool {
	hit := false
	for _, g := range gs {
		for _, n := range names {
			if n != "" && g.re.MatchString(n) {
				used[g.src] = true
				hit = true
				break
			}
		}
	}
	return hit
}

func projectOut(projects globs, p *archive.Project, used map[string]bool) bool {
	if len(projects) == 0 {
		return false
	}
	names := []string{p.Path, filepath.ToSlash(p.Path), p.Name, link.ProjectSlug(p.Path)}
	for _, f := range p.Folders {
		names = append(names, filepath.Base(f))
	}
	return projects.matchAny(used, names...)
}

func (e Exclude) dated() bool { return !e.Since.IsZero() || !e.Until.IsZero() }

// inRange tells whether a start time is within the bounds.
func (e Exclude) inRange(t time.Time) bool {
	if t.IsZero() {
		return !e.dated()
	}
	if !e.Since.IsZero() && t.Before(e.Since) {
		return false
	}
	if !e.Until.IsZero() && !t.Before(e.Until) {
		return false
	}
	return true
}

// Apply removes what e leaves out from a, in place.
func (e Exclude) Apply(a *archive.Archive) ExcludeStats {
	var st ExcludeStats
	if !e.Active() {
		return st
	}
	used := map[string]bool{}
	projectGlobs, sessions := compileGlobs(e.Projects), compileGlobs(e.Sessions)
	goneIDs := map[string]bool{} // ids of sessions left out, for their orphans
	var projects []*archive.Project
	for _, p := range a.Projects {
		if projectOut(projectGlobs, p, used) {
			st.Projects++
			for _, s := range p.Sessions {
				st.Sessions++
				st.Agents += len(s.Agents)
				goneIDs[s.ID], goneIDs[s.SessionID] = true, true
			}
			continue
		}
		var keep []*archive.SessionFile
		for _, s := range p.Sessions {
			out := sessions.matchAny(used, s.ID, s.SessionID)
			if !out && !e.inRange(s.FirstTime) {
				out = true
				if s.FirstTime.IsZero() {
					st.Undated++
				}
			}
			if out {
				st.Sessions++
				st.Agents += len(s.Agents)
				goneIDs[s.ID], goneIDs[s.SessionID] = true, true
				continue
			}
			keep = append(keep, s)
		}
		if len(keep) == 0 {
			st.Projects++
			continue
		}
		p.Sessions = keep
		projects = append(projects, p)
	}
	delete(goneIDs, "")
	var orphans []*archive.AgentFile
	for _, ag := range a.Orphans {
		out := goneIDs[ag.ParentID] || projectOut(projectGlobs, orphanProject(a, ag), used) ||
			(ag.ParentID != "" && sessions.matchAny(used, ag.ParentID)) || !e.inRange(ag.FirstTime)
		if out {
			st.Agents++
			continue
		}
		orphans = append(orphans, ag)
	}
	a.Projects, a.Orphans = projects, orphans
	// What is left to read.
	a.Files, a.Bytes = 0, 0
	for _, p := range a.Projects {
		for _, s := range p.Sessions {
			a.Files++
			a.Bytes += s.Size
			for _, ag := range s.Agents {
				a.Files++
				a.Bytes += ag.Size
			}
		}
	}
	for _, ag := range a.Orphans {
		a.Files++
		a.Bytes += ag.Size
	}
	for _, g := range append(append([]string(nil), e.Projects...), e.Sessions...) {
		if !used[g] {
			st.Unmatched = append(st.Unmatched, g)
		}
	}
	return st
}
