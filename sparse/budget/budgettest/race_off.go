//go:build !race

package budgettest

// raceOn: see race_on.go.
const raceOn = false
