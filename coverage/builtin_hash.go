package coverage

import (
	"crypto/sha256"
	"encoding/hex"
)

// BuiltinHashes maps each built-in pack's name to the SHA-256 of its
// embedded file, without decoding any: what a result cache keys the
// built-in packs by.
func BuiltinHashes() (map[string]string, error) {
	names, err := builtinNames()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		data, err := builtinFile(name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		out[name] = hex.EncodeToString(sum[:])
	}
	return out, nil
}
