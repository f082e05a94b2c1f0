// Package atomicfile writes files that readers see whole or not at all:
// the data go to a hidden temporary file beside the target, which is
// synced and renamed over it once complete, or removed on any failure,
// leaving the old file as it was.
//
// A target that is not a regular file to replace is written as a stream,
// never replaced: a name of a descriptor the process holds open
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N) through that descriptor, so
// that output appended to by the shell (>>) keeps what it held; a
// character device such as /dev/null or a terminal, and a FIFO, opened for
// writing. Create documents the rule.
//
// It is the one atomic writer of the module: the data writers of package
// sparse and its format packages, the model files of package engine and
// the command's outputs all write through it. It lives under sparse, the
// package every other one already imports, because the module keeps no
// top-level internal folder; it imports nothing of the module, so any
// package may use it.
package atomicfile
