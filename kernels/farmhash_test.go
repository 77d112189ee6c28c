package kernels

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFingerprint64Frozen checks the values TensorFlow's own tests pin
// (tsl/platform/fingerprint_test.cc and
// python/kernel_tests/strings_ops/string_to_hash_bucket_op_test.py).
func TestFingerprint64Frozen(t *testing.T) {
	for s, want := range map[string]uint64{
		"Hello": 15404698994557526151,
		"World": 18308117990299812472,
		"a":     12917804110809363939,
		"b":     11795596070477164822,
		"c":     11430444447143000872,
		"d":     4470636696479570465,
	} {
		assert.Equal(t, want, Fingerprint64([]byte(s)), s)
	}
}

// TestFingerprint64Goldens compares every length 0..200 with Google's C++
// FarmHash and TensorFlow's own Hash64 compiled from its source
// (testdata/kernels/extra/fingerprint64.json, see
// tools/goldens/fingerprint64_goldens.sh).
func TestFingerprint64Goldens(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "kernels", "extra", "fingerprint64.json"))
	require.NoError(t, err)
	var g struct {
		Cases []struct{ Hex, Fp, H64 string }
	}
	require.NoError(t, json.Unmarshal(raw, &g))
	require.Greater(t, len(g.Cases), 200)
	for _, c := range g.Cases {
		b, err := hex.DecodeString(c.Hex)
		require.NoError(t, err)
		want, err := strconv.ParseUint(c.Fp, 10, 64)
		require.NoError(t, err)
		assert.Equal(t, want, Fingerprint64(b), "len %d", len(b))
		h, err := strconv.ParseUint(c.H64, 10, 64)
		require.NoError(t, err)
		assert.Equal(t, h, Hash64(b), "Hash64 len %d", len(b))
	}
}

// TestSipHash24Vectors checks the reference vectors of the SipHash paper
// (key 00..0f, messages 00, 00 01, ...; first entries of vectors.h).
func TestSipHash24Vectors(t *testing.T) {
	k0, k1 := uint64(0x0706050403020100), uint64(0x0f0e0d0c0b0a0908)
	want := []uint64{
		0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
		0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
		0x93f5f5799a932462, 0x9e0082df0ba9e4b0,
	}
	msg := make([]byte, 0, len(want))
	for i, w := range want {
		assert.Equal(t, w, SipHash24(k0, k1, msg), "len %d", i)
		msg = append(msg, byte(i))
	}
}
