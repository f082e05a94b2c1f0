package main

import (
	"io"
	"os"

	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/textmodel"
)

// loadModel loads any model file: a linear or kernel model, or a text
// model (featurizer and model in one file, as train writes from raw
// text), told apart by the file's magic. tm is nil but for a text model,
// whose classifier c is then.
func loadModel(path string) (c engine.Classifier, tm *textmodel.Model, err error) {
	if isTextModel(path) {
		if tm, err = textmodel.Load(path); err != nil {
			return nil, nil, err
		}
		return tm.Classifier(), tm, nil
	}
	c, err = engine.LoadClassifier(path)
	return c, nil, err
}

// isTextModel reports whether the file at path starts with a text
// model's magic.
func isTextModel(path string) bool { return startsWith(path, "HPTM") }

// startsWith reports whether the file at path opens and starts with the
// bytes of magic, as a model file starts with its format's.
func startsWith(path, magic string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(magic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == magic
}
