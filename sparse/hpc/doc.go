// Package hpc reads and writes HPSC files, hyperplane's binary form of a
// parsed data set, and registers the format with package sparse (as
// "hpsc", for names ending in ".hpc") for sparse.ReadFile and
// sparse.WriteFile.
//
// An HPSC file (magic "HPSC"; hpc.go gives the layout) holds a data set as
// checksummed blocks of the raw sparse.CSR arrays, so that later passes cost no
// parsing. Write, sparse.WriteFile or ConvertLIBSVMFile (row by row from
// LIBSVM, in bounded memory) write one, Writer row by row. Open reads a
// file's index and returns a File, whose ReadBlock and Scanner stream the
// blocks (memory-mapped with Options.Map) and whose Load reads it whole;
// engine.FitCache trains from a File out of core. Read and NewScanner read
// a file from a stream.
//
// A cache may instead hold the rows of a multi-label data set, each with
// a list of labels (libsvm.MultiLabelDataset): WriteMultiLabel,
// ConvertLIBSVM with WriterOptions.LabelLists, or a Writer with it
// (AddLabels) write one, as format version 2; ReadMultiLabelFile,
// File.LoadMultiLabel and ReadMultiLabel read one back as it was
// written, and Options.LabelLists lets ReadBlock and Scanner hand out
// its blocks (Block.Lists). The readers of one label per row (Open
// without it, Load, ReadFile, Read, NewScanner) refuse such a file with
// a *Error wrapping ErrLabelLists, and a reader older than version 2
// refuses it as a newer version. A file without label lists is version
// 1, byte for byte what it always was.
//
// Every block is checked when read, in memory of its own: a block
// handed out is never a view of the file, so a process that writes to
// the file cannot change data already checked. A file that is not HPSC,
// is truncated, corrupt or of a newer version gives a *Error wrapping
// ErrFormat; one beyond a limit of sparse.ReadOptions wraps that limit's
// sentinel; one that changes while a File has it open wraps ErrChanged
// too.
package hpc
