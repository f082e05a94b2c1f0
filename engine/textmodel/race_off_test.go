//go:build !race

package textmodel

const raceOn = false
