package render

import "ccsite/build/session"

// CommitView is a git commit shown on a page: its short hash, subject and
// where it is seen on the web ("" when the repository's address is not
// known); Turn links the turn that made it ("" for none), TurnLabel names
// that turn.
type CommitView struct {
	Hash, Short, Subject string
	URL                  string
	Turn, TurnLabel      string
}

// HistoryView is a project's history page: its sessions and the
// repository's commits in one timeline, newest first, with filters by
// branch and by file, and the files with the turns that touched them.
type HistoryView struct {
	Name, Path string
	ProjectURL string
	// Repo is the repository's web address, "" when unknown.
	Repo string
	// Branches and Files are the filters' choices; an entry names its own
	// by their index (Entry.B, Entry.F: " 0 3 ").
	Branches []string
	Files    []HistoryFile
	Entries  []HistoryEntry
	// Commits and Sessions count the entries; Linked the commits made in
	// a session.
	Commits, Sessions, Linked int
}

// HistoryFile is a file some session changed, with the turns that did.
type HistoryFile struct {
	ID    int
	Path  string
	Turns []HistoryTurn
}

// HistoryTurn links a turn of a session.
type HistoryTurn struct {
	Label, URL string
}

// HistoryEntry is one line of the timeline: a commit, a session, or a run
// of commits no session made (shown folded).
type HistoryEntry struct {
	Commit  *HistoryCommit
	Session *HistorySession
	Run     []HistoryCommit
	// B and F are the indexes of its branches and files, spaced, for the
	// page's filters.
	B, F string
}

// HistoryCommit is a commit on the history page.
type HistoryCommit struct {
	CommitView
	Anchor   string
	Author   string
	When     Time
	Branches []string
	// Session names the session that made it ("" for none); SessionURL
	// links it.
	Session, SessionURL string
	B, F                string
}

// HistorySession is a session on the history page.
type HistorySession struct {
	Anchor, Title, URL string
	Start              Time
	Active, Cost       string
	Branches           []string
	Files              int
	PRs                []session.PRLink
	Commits            []CommitView
}
