package render

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFormatBytes(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"} {
		require.Equal(t, want, FormatBytes(in))
	}
}
