package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"ccsite/build"
	"ccsite/build/archive"
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
	Skipped    []archive.Skip      `json:"skipped"`
	Excluded   build.ExcludeStats  `json:"excluded"`
	Redactions *reportRedactionSet `json:"redactions,omitempty"`
	Archive    reportArchive       `json:"archive"`
}

// reportArchive is the archive of kept transcripts: sessions built from it
// because their file is gone, and its size.
type reportArchive struct {
	SessionsOnlyInArchive int   `json:"sessionsOnlyInArchive"`
	Files                 int   `json:"files"`
	SourceBytes           int64 `json:"sourceBytes"`
	StoredBytes           int64 `json:"storedBytes"`
}

type reportRedactionSet struct {
	Total    int                       `json:"total"`
	ByRule   map[string]int            `json:"byRule"`
	Sessions []build.SessionRedactions `json:"sessions"`
}

func writeReport(path string, inputs []string, sum build.Summary) error {
	r := buildReport{Version: version(), Inputs: inputs, Projects: sum.Projects, Sessions: sum.Sessions,
		Agents: sum.Agents, Orphans: sum.Orphans, Pages: sum.Pages, InputBytes: sum.Bytes,
		ElapsedMs: sum.Elapsed.Milliseconds(), Phases: sum.Phases, Rendered: sum.Rendered, Kept: sum.Kept, Recovered: sum.Recovered, Problems: sum.ProblemList, Unreadable: sum.Unreadable, Skipped: sum.Skipped, Excluded: sum.Excluded}
	r.Archive = reportArchive{SessionsOnlyInArchive: sum.Archived, Files: sum.Archive.Files,
		SourceBytes: sum.Archive.SourceBytes, StoredBytes: sum.Archive.StoredBytes}
	if r.Problems == nil {
		r.Problems = []session.Problem{}
	}
	if r.Skipped == nil {
		r.Skipped = []archive.Skip{}
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
	return writeJSONFile(path, r, false)
}

// writeJSONFile writes v as indented JSON through a temporary file; a
// private one is the user's alone (0600).
func writeJSONFile(path string, v any, private bool) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// Atomically, as every file ccsite writes (a report inside the site
	// leaves no half file or stray temporary one the next build keeps).
	if private {
		return build.WritePrivateFile(path, append(data, '\n'))
	}
	return build.WriteFile(path, append(data, '\n'))
}

// BuildRecord is how a site was last built, so `ccsite serve --watch` can
// build it again the same way. It is kept in the cache folder, not in the
// site: its arguments may hold the user's own secret patterns, and its
// folder the user's name.
type BuildRecord struct {
	// Dir is the working folder the build ran in; Args its arguments
	// after "build", as given.
	Dir  string   `json:"dir"`
	Args []string `json:"args"`
}

// recordPath is where the build record of the site in out is kept:
// <cache>/sites/<hash of the site's absolute path>.json.
func recordPath(out string, getenv func(string) string) (string, error) {
	cache := build.DefaultCacheDir(getenv)
	if cache == "" {
		return "", errors.New("no cache folder for the build record (set CCSITE_CACHE_DIR)")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "sites", hex.EncodeToString(sum[:12])+".json"), nil
}

// recordBuild writes the site's build record.
func recordBuild(out string, args []string, getenv func(string) string) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	p, err := recordPath(out, getenv)
	if err != nil {
		return err
	}
	// --quiet changes no page, and serve --watch adds its own.
	kept := []string{}
	for i, a := range args {
		if a == "--" {
			kept = append(kept, args[i:]...)
			break
		}
		if a != "--quiet" && a != "-quiet" && a != "-q" && a != "--quiet=true" && a != "-quiet=true" {
			kept = append(kept, a)
		}
	}
	return writeJSONFile(p, BuildRecord{Dir: dir, Args: kept}, true) // its arguments may hold secret patterns
}
