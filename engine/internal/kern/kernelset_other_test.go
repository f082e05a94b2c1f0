//go:build !amd64 || noasm

package kern

import "github.com/hyperplane-ml/hyperplane/asm"

func simdKernels(asm.Tier) *kernelSet { return nil }
