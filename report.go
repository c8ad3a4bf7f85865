package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"ccsite/build"
	"ccsite/build/session"
)

// buildReport is what --report writes: everything the summary counts, in
// full. Redactions are counts, never the values.
type buildReport struct {
	Version    string              `json:"version"`
	Inputs     []string            `json:"inputs"`
	Projects   int                 `json:"projects"`
	Sessions   int                 `json:"sessions"`
	Agents     int                 `json:"subAgentPages"`
	Orphans    int                 `json:"orphanAgents"`
	Pages      int                 `json:"pages"`
	Rendered   int                 `json:"pagesWritten"`
	Kept       int                 `json:"sessionsKept"`
	Recovered  bool                `json:"recoveredFromInterruptedBuild"`
	InputBytes int64               `json:"inputBytes"`
	ElapsedMs  int64               `json:"elapsedMs"`
	Phases     []build.Phase       `json:"phases"`
	Problems   []session.Problem   `json:"problems"`
	Unreadable []string            `json:"unreadable"`
	Excluded   build.ExcludeStats  `json:"excluded"`
	Redactions *reportRedactionSet `json:"redactions,omitempty"`
}

type reportRedactionSet struct {
	Total    int                       `json:"total"`
	ByRule   map[string]int            `json:"byRule"`
	Sessions []build.SessionRedactions `json:"sessions"`
}

func writeReport(path string, inputs []string, sum build.SiteSummary) error {
	r := buildReport{Version: version(), Inputs: inputs, Projects: sum.Projects, Sessions: sum.Sessions,
		Agents: sum.Agents, Orphans: sum.Orphans, Pages: sum.Pages, InputBytes: sum.Bytes,
		ElapsedMs: sum.Elapsed.Milliseconds(), Phases: sum.Phases, Rendered: sum.Rendered, Kept: sum.Kept, Recovered: sum.Recovered, Problems: sum.ProblemList, Unreadable: sum.Unreadable, Excluded: sum.Excluded}
	if r.Problems == nil {
		r.Problems = []session.Problem{}
	}
	if r.Unreadable == nil {
		r.Unreadable = []string{}
	}
	if sum.Redacting {
		set := &reportRedactionSet{ByRule: map[string]int{}, Sessions: sum.Redactions}
		if set.Sessions == nil {
			set.Sessions = []build.SessionRedactions{}
		}
		for _, s := range sum.Redactions {
			set.Total += s.Total
			for k, v := range s.ByRule {
				set.ByRule[k] += v
			}
		}
		r.Redactions = set
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// BuildRecord is SITE/.ccsite/build.json: how the site was last built, so
// `ccsite serve --watch` can build it again the same way.
type BuildRecord struct {
	// Dir is the working folder the build ran in; Args its arguments
	// after "build", as given.
	Dir  string   `json:"dir"`
	Args []string `json:"args"`
}

// recordBuild writes the site's build record.
func recordBuild(out string, args []string) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(BuildRecord{Dir: dir, Args: append([]string{}, args...)}, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(out, ".ccsite", "build.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
