// Package conformance checks tfscan against TensorFlow itself: the pinned
// TensorFlow 2.15 of tools/tf (internal/tfenv) is asked the same questions
// tfscan answers (which kernels a build registers, which graphs it refuses,
// what its logs say, where it places nodes, what its kernels compute), and
// the tests fail when the answers stop agreeing outside the documented
// differences. Each area writes its section of docs/conformance.md; the
// whole file is compared with the committed one when every area ran
// (`go test ./conformance -update` rewrites it).
package conformance
