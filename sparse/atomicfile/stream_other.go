//go:build !unix

package atomicfile

import (
	"errors"
	"os"
)

// descriptorOf reports false: names of descriptors (/dev/fd/N) are a Unix
// thing.
func descriptorOf(string) (int, bool) { return 0, false }

// dupForWriting is never called where descriptorOf reports false.
func dupForWriting(int, string) (*os.File, error) {
	return nil, errors.New("atomicfile: descriptors are not named on this system")
}
