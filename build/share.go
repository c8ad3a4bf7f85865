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
	st, err := os.Stat(cfg.File)
	if err != nil {
		return 0, err
	}
	if st.IsDir() {
		return 0, fmt.Errorf("%s is a folder: share takes one session's .jsonl file", cfg.File)
	}
	// The session, its <session>/ folder (2.1.x sub-agents) and the agent
	// files beside it (2.0.x): Discover attaches the ones that are its.
	paths := []string{cfg.File}
	if dir := strings.TrimSuffix(cfg.File, ".jsonl"); dir != cfg.File {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			paths = append(paths, dir)
		}
	}
	siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg.File), "agent-*.jsonl"))
	paths = append(paths, siblings...)
	a, err := archive.Discover(ctx, paths)
	if err != nil {
		return 0, err
	}
	th, err := theme.Open(cfg.Theme, cfg.ThemeDir)
	if err != nil {
		return 0, err
	}
	ts, err := loadTemplates(th)
	if err != nil {
		return 0, err
	}
	labelProjects(a, nil, cfg.Home)
	redactNames(a, cfg.Redact)
	abs, _ := filepath.Abs(cfg.File)
	var target *Loaded
	err = Load(ctx, a, LoadOptions{Redact: cfg.Redact, Omit: cfg.Omit}, func(l Loaded) error {
		if l.File != nil && l.File.Path == abs {
			lc := l
			target = &lc
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if target == nil || target.Session == nil {
		if target != nil && target.Err != nil {
			return 0, target.Err
		}
		if strings.HasPrefix(filepath.Base(cfg.File), "agent-") {
			return 0, fmt.Errorf("%s is a sub-agent's transcript: share the session that ran it (its page includes the sub-agent)", cfg.File)
		}
		return 0, fmt.Errorf("%s: no session found in it", cfg.File)
	}
	s := target.Session
	anonymizeSources(s, cfg.Redact, nil, cfg.Home)
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
