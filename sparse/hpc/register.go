package hpc

import "github.com/hyperplane-ml/hyperplane/sparse"

// Name is the name the format is registered under with
// sparse.RegisterFormat (sparse.Sniff returns it). Files of the format
// start with the magic "HPSC"; sparse.WriteFile writes it for names ending
// in ".hpc".
const Name = "hpsc"

func init() {
	sparse.RegisterFormat(sparse.Format{Name: Name, Magic: cacheMagic, Ext: []string{".hpc"}, Read: Read, ReadFile: ReadFile, Write: Write})
}
