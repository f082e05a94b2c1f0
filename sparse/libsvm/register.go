package libsvm

import "github.com/hyperplane-ml/hyperplane/sparse"

// Name is the name the format is registered under with sparse.RegisterFormat
// (sparse.Sniff returns it); GzipName is the name of its gzip-compressed
// form, told by the gzip magic and written for names ending in ".gz".
const (
	Name     = "libsvm"
	GzipName = "libsvm.gz"
)

func init() {
	// LIBSVM has no magic: it reads what no other format claims, and is
	// written for the names no other format claims. Read takes gzip input
	// either way; the gzip form is registered apart so that a name ending
	// in ".gz" is written compressed.
	sparse.RegisterFormat(sparse.Format{Name: Name, Read: Read, ReadFile: ReadFile, Write: Write})
	sparse.RegisterFormat(sparse.Format{Name: GzipName, Magic: "\x1f\x8b", Ext: []string{".gz"}, Read: Read, ReadFile: ReadFile, Write: writeGzip})
}
