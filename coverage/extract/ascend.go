package extract

import "errors"

// ExtractAscend reads CANN TensorFlow parser plugins.
func ExtractAscend(o Options) (*Result, error) {
	return nil, errors.New("ascend style: not built yet")
}
