package reports

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIsCPUDevice(t *testing.T) {
	for dev, want := range map[string]bool{
		"CPU": true, "CPU:0": true, "/device:CPU:0": true, "/job:localhost/replica:0/task:0/device:CPU:0": true,
		"/cpu:0": true, "GPU:0": false, "/device:NPU:0": false, "XLA_CPU:0": false, "": false,
	} {
		require.Equal(t, want, IsCPUDevice(dev), dev)
	}
}
