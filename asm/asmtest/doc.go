// Package asmtest holds the test helpers that package asm's tests and
// the engine's kernel tests (engine/internal/kern) share, as
// net/http/httptest does for HTTP: slices between
// guard elements or against pages the process may not touch, index
// patterns, rows with one bad index, and a check that a panic is a bounds
// check's. It imports only the standard library, so that asm's own tests
// can use it.
package asmtest
