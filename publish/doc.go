// Package publish is ccsite's publishing kit: files for the user's own
// repositories, kept here with a test that they say what they should.
//
// github-pages.yml is a GitHub Actions workflow that builds a site from
// the transcripts committed to a repository (Entire's
// entire/checkpoints/v1 branch, read with ccsite build --git) and deploys
// it to GitHub Pages, keeping the build's state and highlight cache
// between runs with actions/cache. It is a template: it lives here, not
// in .github/workflows (where GitHub would run it on ccsite's own
// repository); users copy it to .github/workflows/ in theirs.
//
// Any other static host takes the site folder as it is:
//
//	ccsite build --git . -o site --base-url https://example.org/sessions/
//	rsync -a --delete site/ host:/var/www/sessions/
//
// or, for S3, aws s3 sync site s3://bucket/sessions --delete.
//
// The package has no code: publish_test.go parses the workflow and checks
// its structure, and runs its fetch and build steps on a repository made
// for the test.
package publish
