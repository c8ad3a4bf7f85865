// Package publish is ccsite's publishing kit: files for the user's own
// repositories, kept here with tests that they work.
//
// github-pages.yml is a GitHub Actions workflow that builds ccsite from its
// source (CCSITE_REPO at CCSITE_REF, make build), fetches the transcripts
// Entire keeps in the repository (the refs/entire/checkpoints/* refs, the
// entire/checkpoints/v1 branch, the commits naming their checkpoints),
// builds a site from them with ccsite build --git . and deploys it to
// GitHub Pages, keeping the build's state and highlight cache between runs
// with actions/cache. It is a template: it lives here, not in
// .github/workflows (where GitHub would run it on ccsite's own
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
// its structure; actionlint_test.go runs actionlint on it;
// workflowrun_test.go runs its build job's own run: steps as GitHub's
// runner would (the uses: steps replaced by local equivalents), twice, on
// repositories made by fixture_test.go in both of Entire's layouts.
package publish
