package gitsrc

import "time"

// History is what a repository says beside its transcripts: its commits
// and Entire's checkpoints, for linking each commit to the turn that made
// it and for the project's history page. Materialize fills it (Result's
// History); the build reads it through build.Config.History. It is
// deterministic: the same repository gives the same History.
type History struct {
	Name   string // the repository's name (its folder, or the URL's last part)
	WebURL string // its web address, such as https://github.com/OWNER/REPO; "" when unknown
	// Commits are the commits of the repository's branches (local heads,
	// else origin's), newest first by committer date, then by hash.
	Commits []Commit
	// Checkpoints are Entire's checkpoints found, by ID.
	Checkpoints []Checkpoint
}

// Commit is one commit of a branch.
type Commit struct {
	Hash     string    // the full hash
	Subject  string    // the first line of its message
	Author   string    // the author's name (never the e-mail address)
	When     time.Time // the committer's date
	Branches []string  // the branches whose history holds it, sorted
	// Checkpoints are the ids its Entire-Checkpoint trailers name, in
	// their order (a commit may name several).
	Checkpoints []string
}

// Checkpoint is one of Entire's checkpoints: one session's state when a
// commit was made (a checkpoint may hold several sessions: one Checkpoint
// each).
type Checkpoint struct {
	ID           string    // 12 hex characters, or a 26-character ULID
	Ref          string    // where it was read, e.g. refs/entire/checkpoints/8E/01M0…8E or entire/checkpoints/v1:ab/cdef…/0
	SessionID    string    // the session (Claude Code's session id)
	TurnID       string    // Entire's turn id, as metadata.json writes it
	Branch       string    // the branch the session worked on
	Created      time.Time // created_at
	FilesTouched []string  // files_touched, sorted
	// LastUUID is the uuid of the last record (with a uuid) of the
	// session's transcript as this checkpoint kept it: the turn holding
	// it is the turn the checkpoint's commit came from.
	LastUUID string
}

// CommitURL is the web address of the commit with the given hash, "" when
// the repository's web address is unknown. The forms of GitHub, GitLab,
// Gitea (and Forgejo, Codeberg) and Bitbucket are known by host; another
// host gets GitHub's form.
func (h *History) CommitURL(hash string) string {
	if h == nil || h.WebURL == "" || hash == "" {
		return ""
	}
	return commitURL(h.WebURL, hash)
}
