package gitsrc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// catFile is one git cat-file --batch process: object names in, contents
// out, in order. Requests are written ahead while answers are read, so a
// whole list streams through one pipe.
type catFile struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	cancel context.CancelFunc
}

func (r *repo) catFile(ctx context.Context) (*catFile, error) {
	ctx, cancel := context.WithCancel(ctx)
	c := &catFile{cancel: cancel}
	c.cmd = r.command(ctx, "cat-file", "--batch")
	c.cmd.Stderr = &c.stderr
	in, err := c.cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	c.in, c.out = in, bufio.NewReaderSize(out, 1<<16)
	return c, nil
}

// close ends the process; after an error it is killed.
func (c *catFile) close(failed bool) error {
	if failed {
		c.cancel()
	}
	c.in.Close()
	err := c.cmd.Wait()
	c.cancel()
	if failed {
		return nil
	}
	if err != nil && c.stderr.Len() > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(c.stderr.String()))
	}
	return err
}

// fetch asks for every object in oids and calls each with the i-th one's
// contents (exactly size bytes; what each leaves unread is skipped).
func (c *catFile) fetch(oids []string, each func(i int, typ string, size int64, body io.Reader) error) error {
	if len(oids) == 0 {
		return nil
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(c.in)
		for _, o := range oids {
			if _, err := w.WriteString(o + "\n"); err != nil {
				werr <- err
				return
			}
		}
		werr <- w.Flush()
	}()
	for i, o := range oids {
		header, err := c.out.ReadString('\n')
		if err != nil {
			return c.failure(err)
		}
		fields := strings.Fields(header)
		if len(fields) == 2 && fields[1] == "missing" {
			return fmt.Errorf("object %s is missing (a partial clone? fetch it first)", o)
		}
		if len(fields) != 3 {
			return fmt.Errorf("git cat-file: unexpected answer %q", strings.TrimSpace(header))
		}
		size, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			return fmt.Errorf("git cat-file: unexpected answer %q", strings.TrimSpace(header))
		}
		body := io.LimitReader(c.out, size)
		if err := each(i, fields[1], size, body); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			return c.failure(err)
		}
		if b, err := c.out.ReadByte(); err != nil || b != '\n' {
			return c.failure(errors.New("object not followed by a newline"))
		}
	}
	if err := <-werr; err != nil {
		return c.failure(err)
	}
	return nil
}

// failure wraps a broken exchange (git's own words come from close).
func (c *catFile) failure(err error) error {
	return fmt.Errorf("git cat-file: %v", err)
}
