package build

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"ccsite/build/archive"
	"ccsite/build/link"
	"ccsite/build/markup"
	"ccsite/build/omit"
	"ccsite/build/redact"
	"ccsite/build/render"
	"ccsite/build/session"
	"ccsite/theme"
)

// ShareConfig configures a single-file export of one session.
type ShareConfig struct {
	// File is the session's .jsonl; its sub-agent files are found beside
	// it in any layout.
	File     string
	Out      string
	Theme    string
	ThemeDir string
	// Redact, when set, rewrites every line before it is parsed.
	Redact *redact.Redactor
	// Omit leaves out thinking or tool output.
	Omit omit.Options
	// Home is the home folder of whoever shares ("" for none): paths under
	// it are shown as ~/… (Config.Home).
	Home string
	// Turns, when set, keeps only those turns (share --turns 3-7).
	Turns *TurnRange
}

// Share writes one session as one self-contained HTML file: styles, script
// and images inlined, sub-agents as sections of the same page, no link that
// needs another file. It opens offline and can be attached or pasted
// anywhere. It returns the number of sub-agents included.
func Share(ctx context.Context, cfg ShareConfig) (int, error) {
	th, err := theme.Open(cfg.Theme, cfg.ThemeDir)
	if err != nil {
		return 0, err
	}
	ts, err := loadTemplates(th)
	if err != nil {
		return 0, err
	}
	target, err := loadOne(ctx, "share", cfg.File, cfg.Redact, cfg.Omit, cfg.Home)
	if err != nil {
		return 0, err
	}
	s := target.Session
	rb := &render.Builder{MD: markup.New(markup.NewHighlighter()), Home: cfg.Home} // no Media: images inline
	page := "session.html"
	agentAnchor := func(a *session.Session) string { return "agent-" + link.File(a.Agent.AgentID) }
	body := rb.Session(s, target.Project.Path, render.Links{Page: page, Agent: func(*session.Session) string { return "" },
		AgentAnchor: func(a *session.Session) string {
			if a.Agent == nil || a.Agent.Warmup {
				return ""
			}
			return agentAnchor(a)
		}})
	body.ProjectURL = ""
	n := 0
	for _, ag := range s.Agents {
		if ag.Agent == nil || ag.Agent.Warmup {
			continue
		}
		anchor := agentAnchor(ag)
		ab := rb.Session(ag, target.Project.Path, render.Links{Page: page, Agent: func(*session.Session) string { return "" },
			AnchorPrefix: anchor + "-", Embedded: true})
		ab.ProjectURL = ""
		if ag.Agent.ToolUseID != "" {
			ab.Parent = &render.Nav{Title: s.Title, URL: "#" + link.Tool(ag.Agent.ToolUseID)}
			ab.ParentCall = "#" + link.Tool(ag.Agent.ToolUseID)
		}
		body.Embeds = append(body.Embeds, render.Embed{Anchor: anchor, Body: ab})
		n++
	}
	title := s.Title
	if cfg.Turns != nil {
		if err := keepTurns(body, s, *cfg.Turns); err != nil {
			return 0, fmt.Errorf("%s: %w", cfg.File, err)
		}
		title, n = body.Title, len(body.Embeds)
	}
	css, err := th.Asset("style.css")
	if err != nil {
		return 0, err
	}
	themeCSS, _ := th.Asset("theme.css")
	js, err := th.Asset("app.js")
	if err != nil {
		return 0, err
	}
	p := &render.Page{Path: page, Title: title, Kind: "session", Body: body, Single: true,
		InlineCSS: template.CSS(string(withCodeStyles(css)) + "\n" + string(themeCSS)),
		InlineJS:  template.JS(strings.ReplaceAll(string(js), "</script", `<\/script`))}
	var buf bytes.Buffer
	if err := ts.Page(&buf, p); err != nil {
		return 0, fmt.Errorf("render %s: %w", cfg.File, err)
	}
	if dir := filepath.Dir(cfg.Out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
	}
	return n, WriteFile(cfg.Out, buf.Bytes())
}

// loadOne loads the session of a .jsonl file with its sub-agents, redacted
// and with its sources anonymized, for a command (verb: share, compare)
// that writes one file of it.
func loadOne(ctx context.Context, verb, file string, red *redact.Redactor, om omit.Options, home string) (*Loaded, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: %s takes one session's .jsonl file", file, verb)
	}
	// The session, its <session>/ folder (2.1.x sub-agents) and the agent
	// files beside it (2.0.x): Discover attaches the ones that are its.
	paths := []string{file}
	if dir := strings.TrimSuffix(file, ".jsonl"); dir != file {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			paths = append(paths, dir)
		}
	}
	siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "agent-*.jsonl"))
	a, err := archive.Discover(ctx, append(paths, siblings...))
	if err != nil {
		return nil, err
	}
	labelProjects(a, nil, home)
	redactNames(a, red)
	abs, _ := filepath.Abs(file)
	var target *Loaded
	err = Load(ctx, a, LoadOptions{Redact: red, Omit: om}, func(l Loaded) error {
		if l.File != nil && l.File.Path == abs {
			lc := l
			target = &lc
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if target == nil || target.Session == nil {
		if target != nil && target.Err != nil {
			return nil, target.Err
		}
		if strings.HasPrefix(filepath.Base(file), "agent-") {
			return nil, fmt.Errorf("%s is a sub-agent's transcript: %s the session that ran it (its page includes the sub-agent)", file, verb)
		}
		return nil, fmt.Errorf("%s: no session found in it", file)
	}
	anonymizeSources(target.Session, red, nil, home)
	return target, nil
}
