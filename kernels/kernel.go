// Package kernels executes TensorFlow graphs in Go with TensorFlow's op
// semantics: tensors and dtypes (float16 and bfloat16 included), one file of
// reference kernels per op family, and the executor that runs signatures,
// functions and control flow.
package kernels
