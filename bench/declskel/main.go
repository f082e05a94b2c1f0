// Command declskel rewrites Go files in place with every function body
// emptied and every comment dropped, leaving what the files declare:
// imports, types, constants, variables and signatures. bench/dupcount.sh
// runs it over a copy of the tree to count the duplicate pairs that
// declarations alone make, which no change to code can remove.
//
// Usage: go run ./bench/declskel FILE.go ...
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
)

func main() {
	for _, p := range os.Args[1:] {
		if err := strip(p); err != nil {
			fmt.Fprintln(os.Stderr, "declskel:", err)
			os.Exit(1)
		}
	}
}

// strip empties the bodies of the functions and function literals of the
// file at path and writes it back.
func strip(path string) error {
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.FuncDecl:
			if d.Body != nil {
				d.Body.List = nil
			}
		case *ast.FuncLit:
			d.Body.List = nil
		}
		return true
	})
	// The comments are read and then dropped, rather than not read, so
	// that the declarations keep the lines they had: the tool passes over
	// comments, and the rows then name the source's own line numbers.
	f.Comments = nil
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := printer.Fprint(out, fs, f); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
