// Package bench holds hyperplane's comparative benchmarks: every kernel on
// every SIMD tier this CPU runs, at several sizes, next to viterin/vek,
// gonum and a plain Go loop measured in the same run. Run them with
//
//	go test -run '^$' -bench . -count 6 ./bench/ | tee new.txt
//	benchstat new.txt
package bench
