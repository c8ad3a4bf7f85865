package render

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"ccsite/build/markup"
	"ccsite/build/session"
	"ccsite/build/transcript"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

var (
	reIDE      = regexp.MustCompile(`(?s)<(ide_opened_file|ide_selection)>(.*?)</(?:ide_opened_file|ide_selection)>`)
	reReminder = regexp.MustCompile(`(?s)<(system-reminder)>(.*?)</system-reminder>`)
)

// extract removes re's matches from s, handing each (tag, body) to fn.
func extract(s string, re *regexp.Regexp, fn func(tag, body string)) string {
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		fn(sub[1], sub[2])
		return ""
	})
}

// rawJSON pretty-prints JSON and highlights it.
func (c *viewCtx) rawJSON(v jsontext.Value) template.HTML {
	pretty := append(jsontext.Value(nil), v...)
	if err := pretty.Indent(jsontext.WithIndent("  ")); err != nil {
		return c.b.MD.Highlighter().Block("", "", string(v))
	}
	return c.b.MD.Highlighter().Block("json", "", string(pretty))
}

func (c *viewCtx) rawBlock(b transcript.Block) template.HTML {
	v, err := json.Marshal(b, jsontext.AllowInvalidUTF8(true))
	if err != nil {
		return markup.Text(fmt.Sprint(b))
	}
	return c.rawJSON(v)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// prLink is a pull request's link record as an event.
func prLink(r *transcript.Record) Event {
	text := fmt.Sprintf("Pull request #%d", r.PRNumber)
	if r.PRRepository != "" {
		text += " · " + r.PRRepository
	}
	return Event{Icon: "pr", Text: text, URL: safeURL(r.PRURL)}
}

// system describes a system record.
func (c *viewCtx) system(m *session.Message) Event {
	r := m.Record()
	if r.Type == transcript.TypePRLink {
		return prLink(r)
	}
	if r.Type == transcript.TypeContinuedIn {
		text, _ := session.EventText(r)
		return Event{Icon: "info", Text: text}
	}
	if text, ok := session.EventText(r); ok {
		icon, level := newerLook(r.Type)
		e := Event{Icon: icon, Level: level, Text: text, Raw: c.rawJSON(r.Raw)}
		switch r.Subtype {
		case transcript.SubtypeModelRefusal, transcript.SubtypeModelConsent:
			e.Icon, e.Level = "model", "warn"
		case transcript.SubtypeAgentsKilled:
			e.Icon = "stop"
		case transcript.SubtypeScheduledTaskFire:
			e.Icon = "clock"
		}
		if content := r.ContentString(); strings.Contains(content, "\n") || len(content) >= 200 {
			e.Detail = c.b.MD.ANSI(content)
		}
		return e
	}
	// Well-known bookkeeping carries no raw JSON: it would double the page
	// for nothing the line does not say.
	raw := template.HTML("")
	switch r.Subtype {
	case transcript.SubtypeTurnDuration, transcript.SubtypeCompactBoundary, transcript.SubtypeMicrocompactBoundry:
	default:
		raw = c.rawJSON(r.Raw)
	}
	switch r.Subtype {
	case transcript.SubtypeCompactBoundary:
		e := Event{Icon: "compact", Text: "Conversation compacted", Raw: raw}
		if md := r.CompactMetadata; md != nil {
			e.Text = fmt.Sprintf("Conversation compacted (%s, %s tokens before)", orDefault(md.Trigger, "auto"), thousands(md.PreTokens))
		}
		return e
	case transcript.SubtypeMicrocompactBoundry:
		e := Event{Icon: "compact", Text: "Older tool outputs cleared from context", Raw: raw}
		if md := r.MicrocompactMetadata; md != nil {
			e.Text = fmt.Sprintf("Older tool outputs cleared from context (%s tokens saved, %d tool results)", thousands(md.TokensSaved), len(md.CompactedToolIDs))
		}
		return e
	case transcript.SubtypeAPIError:
		var apiErr struct {
			Status int `json:"status"`
			Error  struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
			Message string `json:"message"`
			Cause   struct {
				Code string `json:"code"`
			} `json:"cause"`
		}
		_ = transcript.Unmarshal(r.Error, &apiErr)
		what := strings.TrimSpace(fmt.Sprintf("%s %s", apiErr.Error.Type, apiErr.Error.Message))
		if what == "" {
			what = apiErr.Message
		}
		if apiErr.Cause.Code != "" {
			what = strings.TrimSpace(what + " (" + apiErr.Cause.Code + ")")
		}
		if apiErr.Status != 0 {
			what = fmt.Sprintf("%d %s", apiErr.Status, what)
		}
		text := "API error " + strings.TrimSpace(what)
		if r.MaxRetries > 0 {
			text += fmt.Sprintf(" — retry %d of %d in %s", r.RetryAttempt, r.MaxRetries, ms(r.RetryInMs))
		}
		return Event{Icon: "error", Text: text, Level: "error", Raw: raw}
	case transcript.SubtypeStopHookSummary:
		text := fmt.Sprintf("Stop hooks: %d ran", r.HookCount)
		level := ""
		if len(r.HookErrors) > 2 && string(r.HookErrors) != "[]" {
			text += ", with errors"
			level = "warn"
		}
		if r.PreventedContinue {
			text += ", stopped the turn"
		}
		if level == "" {
			raw = ""
		}
		return Event{Icon: "hook", Text: text, Level: level, Raw: raw}
	case transcript.SubtypeTurnDuration:
		return Event{Icon: "clock", Text: "Turn took " + ms(r.DurationMs), Raw: raw}
	case transcript.SubtypeLocalCommand:
		content := r.ContentString()
		text := "Local command"
		if name := tagValue(content, "command-name"); name != "" {
			text += ": " + strings.TrimSpace(name+" "+tagValue(content, "command-args"))
		} else if out := tagValue(content, "local-command-stdout"); out != "" && len(out) < 160 && !strings.Contains(out, "\n") {
			text += " output: " + session.StripANSI(out)
		}
		return Event{Icon: "command", Text: text, Detail: c.b.MD.ANSI(stripTags(content)), Raw: raw}
	}
	text := r.ContentString()
	level := ""
	if r.Level == "error" {
		level = "error"
	} else if r.Level == "warning" {
		level = "warn"
	}
	label := "System"
	if r.Subtype != "" {
		label = strings.ReplaceAll(r.Subtype, "_", " ")
	}
	if text == "" {
		return Event{Icon: "info", Text: label, Level: level, Raw: raw}
	}
	if len(text) < 200 && !strings.Contains(text, "\n") {
		return Event{Icon: "info", Text: label + ": " + strings.TrimSpace(session.StripANSI(text)), Level: level, Raw: raw}
	}
	return Event{Icon: "info", Text: label, Detail: c.b.MD.ANSI(text), Level: level, Raw: raw}
}

// newerLook is the icon and level of a record kind newer than 2.1.237:
// the model ending the conversation stops it, context collapses compact
// it.
func newerLook(t string) (icon, level string) {
	switch t {
	case transcript.TypeEndedByModel:
		return "stop", "warn"
	case transcript.TypeContextCollapseCommit, transcript.TypeContextCollapseSnap, transcript.TypeContextCollapseReset:
		return "compact", ""
	}
	return "info", ""
}

// tagValue returns the body of <name>…</name> in s, trimmed.
func tagValue(s, name string) string {
	i := strings.Index(s, "<"+name+">")
	if i < 0 {
		return ""
	}
	rest := s[i+len(name)+2:]
	j := strings.Index(rest, "</"+name+">")
	if j < 0 {
		return ""
	}
	return strings.TrimSpace(rest[:j])
}

var reTags = regexp.MustCompile(`</?[a-z][a-z-]*>`)

func stripTags(s string) string { return strings.TrimSpace(reTags.ReplaceAllString(s, "")) }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func ms(v float64) string {
	switch {
	case v < 1000:
		return fmt.Sprintf("%dms", int(v))
	case v < 60000:
		return fmt.Sprintf("%.1fs", v/1000)
	}
	return duration(msDuration(v))
}

// attachment describes an attachment record.
func (c *viewCtx) attachment(m *session.Message) Event {
	r := m.Record()
	a := r.Attachment
	raw := c.rawJSON(r.Raw)
	if a == nil {
		return Event{Icon: "info", Text: "Attachment", Raw: raw}
	}
	label := strings.ReplaceAll(a.Type, "_", " ")
	e := Event{Icon: "attach", Text: label, Raw: raw}
	if text, ok := session.EventText(r); ok {
		e.Text = text
		if body := strings.TrimSpace(session.AttachmentBody(a)); body != "" {
			e.Detail = c.b.MD.ANSI(body)
		}
		return e
	}
	switch a.Type {
	case transcript.AttachmentHookSuccess, transcript.AttachmentHookAdditionalContext, transcript.AttachmentHookSystemMessage:
		e.Icon = "hook"
		if a.HookName != "" {
			e.Text = label + ": " + a.HookName
		}
	case transcript.AttachmentHookBlockingError, transcript.AttachmentHookNonBlockingError:
		e.Icon, e.Level = "hook", "warn"
		if a.HookName != "" {
			e.Text = label + ": " + a.HookName
		}
	}
	if s := strings.TrimSpace(session.RawString(a.Content)); s != "" {
		e.Detail = c.b.MD.ANSI(s)
	}
	return e
}

// ProgressGroup is a run of progress records not tied to a tool call.
type ProgressGroup struct {
	Count int
	Kinds []NameCount
	Raw   template.HTML
}

func (c *viewCtx) progressGroup(ms []*session.Message) ProgressGroup {
	kinds := map[string]int{}
	var buf bytes.Buffer
	for i, m := range ms {
		r := m.Record()
		kinds[r.KindLabel()]++
		if i < 50 {
			buf.Write(r.Raw)
			buf.WriteByte('\n')
		}
	}
	if len(ms) > 50 {
		fmt.Fprintf(&buf, "… and %d more\n", len(ms)-50)
	}
	return ProgressGroup{Count: len(ms), Kinds: sortedCounts(kinds), Raw: c.b.MD.Highlighter().Block("", "", buf.String())}
}
