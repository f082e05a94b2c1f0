// Package iox holds the small io wrappers and checks that the command
// line, the text readers and the Beam driver share: reads and writes that
// stop when a context ends, byte counts, and what an *os.File stands for.
package iox

import (
	"context"
	"io"
	"os"
)

// Reader returns a reader of r whose reads fail with ctx.Err() once ctx
// is done, so that a long read stops within a buffer of ctx's end.
func Reader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

// Writer returns a writer to w whose writes fail with ctx.Err() once ctx
// is done.
func Writer(ctx context.Context, w io.Writer) io.Writer { return ctxWriter{ctx, w} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// CountReader reads from R and adds the bytes it read to N.
type CountReader struct {
	R io.Reader
	N int64
}

func (c *CountReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

// CountWriter writes to W and adds the bytes it wrote to N.
type CountWriter struct {
	W io.Writer
	N int64
}

func (c *CountWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}

// IsTerminal reports whether w is a character device (a terminal), not a
// file, a pipe or a buffer.
func IsTerminal(w io.Writer) bool {
	fi, ok := stat(w)
	return ok && fi.Mode()&os.ModeCharDevice != 0
}

// IsFile reports whether w is an *os.File and path names the file it is
// (by device and inode: /dev/stdout, /dev/fd/1, the regular file, FIFO or
// terminal it writes to). A command whose output path is where its
// standard output goes sends its report to standard error instead.
func IsFile(w io.Writer, path string) bool {
	fw, ok := stat(w)
	if !ok {
		return false
	}
	fp, err := os.Stat(path)
	return err == nil && os.SameFile(fw, fp)
}

// stat returns what w's Stat says when w is an *os.File.
func stat(w io.Writer) (os.FileInfo, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, false
	}
	fi, err := f.Stat()
	return fi, err == nil
}
