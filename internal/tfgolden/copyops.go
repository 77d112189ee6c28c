package tfgolden

// The shape, layout, matrix, scatter and image ops whose CPU kernels copy
// elements without arithmetic, so that TensorFlow's FTZ and DAZ never touch
// a subnormal they move (movesBits).
func init() {
	for _, op := range []string{"Concat", "Gather", "Reverse", "ConjugateTranspose", "SpaceToBatch", "SpaceToBatchND",
		"BatchToSpace", "BatchToSpaceND", "MatrixBandPart", "MatrixDiag", "MatrixDiagV2", "MatrixDiagV3",
		"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3", "MatrixSetDiag", "MatrixSetDiagV2",
		"MatrixSetDiagV3", "TensorScatterUpdate", "SparseToDense", "ExtractImagePatches", "ResizeNearestNeighbor",
		"Shape", "ShapeN", "Size", "Rank", "Empty"} {
		arrayOps[op] = true
	}
}
