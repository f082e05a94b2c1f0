package textmodel

import "github.com/hyperplane-ml/hyperplane/sparse/text"

// featForm is a featurizer's binary form (text.Featurizer.MarshalBinary),
// being made or made. A featurizer does not change once fitted, so the
// form can be encoded while the learner trains on the rows: with a large
// vocabulary, compressing its terms takes about as long as the epochs,
// and on a machine of two cores or more the learner leaves one free.
type featForm struct {
	f    *text.Featurizer
	done chan struct{}
	b    []byte
	err  error
}

// encodeAhead starts encoding f's binary form on a goroutine of its own.
func encodeAhead(f *text.Featurizer) *featForm {
	ff := &featForm{f: f, done: make(chan struct{})}
	go func() {
		defer close(ff.done)
		ff.b, ff.err = f.MarshalBinary()
	}()
	return ff
}

// featurizerForm returns the binary form of m's featurizer: the one made
// while m trained, once it is done, else a new one.
func (m *Model) featurizerForm() ([]byte, error) {
	if ff := m.featForm; ff != nil && ff.f == m.featurizer {
		<-ff.done
		return ff.b, ff.err
	}
	return m.featurizer.MarshalBinary()
}
