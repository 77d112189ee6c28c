//go:build !amd64

package kernels

// hasFMA: off x86-64 TensorFlow's wheel is another build; the plain one
// is the reference.
func hasFMA() bool { return false }
