package engine

// pegasosSpec is the rule Pegasos: the hinge loss, whose gain is
// hingeGain (the spec's nil gain), by the SGD rules' steps (see the
// rule's documentation).
var pegasosSpec = ruleSpec{sgd: true, alpha: DefaultAlpha}

// hingeGain is −ℓ'(z) of the hinge loss at z = m/d: 1 when z ≤ 1, 0
// otherwise. The test is m ≤ d, in v's units, rounded as the learner has
// always rounded it: d is made float32 first.
func hingeGain(m float32, d float64) float32 {
	if m <= float32(d) {
		return 1
	}
	return 0
}
