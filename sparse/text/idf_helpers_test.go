package text

// dfs returns f's document frequencies as one per feature.
func (f *Featurizer) dfs() []int32 {
	if !f.cfg.IDF {
		return nil
	}
	out := make([]int32, f.dim)
	for j := range out {
		out[j] = f.df.at(int32(j))
	}
	return out
}

// idfs returns f's idf weights as one per feature.
func (f *Featurizer) idfs() []float32 {
	if !f.cfg.IDF {
		return nil
	}
	out := make([]float32, f.dim)
	for j := range out {
		out[j] = f.idf.at(int32(j))
	}
	return out
}
