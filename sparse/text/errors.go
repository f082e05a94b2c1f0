package text

import "errors"

// Sentinel errors. Problems with the content of a text input are returned
// as a *sparse.ParseError (file, line, column, message) whose Err is one of
// them; other errors wrap one of them. Test with errors.Is. Errors of the
// reader underneath, such as an I/O error or a corrupt or truncated gzip
// stream, are returned wrapped with their own cause instead.
var (
	// ErrSyntax reports a line that is not one well-formed JSON object
	// (JSONL), or a line holding a NUL byte, the mark of a binary file
	// (TSV).
	ErrSyntax = errors.New("text: syntax error")
	// ErrMissingField reports a JSONL object without the label or the text
	// field, or a TSV line without a tab.
	ErrMissingField = errors.New("text: missing field")
	// ErrFieldType reports a label that is not a JSON string or number, or
	// a text that is not a JSON string.
	ErrFieldType = errors.New("text: field has the wrong type")
	// ErrLabel reports an empty label, or a label the fitted Featurizer
	// does not know (a name not seen in training, or a non-number where
	// the training labels were numbers).
	ErrLabel = errors.New("text: bad label")
	// ErrLineTooLong reports a line longer than ReadOptions.MaxLineBytes.
	ErrLineTooLong = errors.New("text: line too long")
	// ErrNotText reports an input of numbered features, LIBSVM or a cache
	// file, where text was expected (ReadOptions, Format Auto): reading
	// its columns as words would give meaningless results.
	ErrNotText = errors.New("text: not text")
	// ErrConfig reports an invalid Config or ReadOptions field.
	ErrConfig = errors.New("text: invalid option")
	// ErrEmpty reports a Fit on a corpus without documents.
	ErrEmpty = errors.New("text: no documents")
	// ErrFormat reports a saved featurizer, or encoded feature names
	// (Names.UnmarshalBinary), that is not one, is corrupt or
	// inconsistent, or has a version this build cannot read.
	ErrFormat = errors.New("text: bad featurizer file")
)
