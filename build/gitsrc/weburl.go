package gitsrc

import (
	"net/url"
	"strings"
)

// WebURL turns a remote's address (https://host/o/r.git, git@host:o/r.git,
// ssh://git@host/o/r) into the repository's web address (https://host/o/r),
// "" when it is not one (a local path, a file:// URL, credentials dropped
// either way).
func WebURL(remote string) string {
	remote = strings.TrimSpace(remote)
	var host, path string
	switch {
	case strings.Contains(remote, "://"):
		u, err := url.Parse(remote)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "ssh" && u.Scheme != "git") {
			return ""
		}
		host, path = u.Hostname(), u.Path
	case looksLikeURL(remote): // scp-like: git@host:owner/repo.git
		at := strings.IndexByte(remote, '@')
		rest := remote[at+1:]
		colon := strings.IndexByte(rest, ':')
		host, path = rest[:colon], rest[colon+1:]
	default:
		return ""
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" || strings.Contains(path, "..") {
		return ""
	}
	return "https://" + strings.ToLower(host) + "/" + path
}

// commitURL is the address of a commit in the repository at web.
func commitURL(web, hash string) string {
	host := web
	if u, err := url.Parse(web); err == nil {
		host = u.Hostname()
	}
	switch {
	case strings.Contains(host, "gitlab"):
		return web + "/-/commit/" + hash
	case strings.Contains(host, "bitbucket"):
		return web + "/commits/" + hash
	default: // GitHub, Gitea, Forgejo, Codeberg
		return web + "/commit/" + hash
	}
}
