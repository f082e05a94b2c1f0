package main

import (
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
func isTextModel(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	n, _ := f.Read(b[:])
	return n == 4 && string(b[:]) == "HPTM"
}
