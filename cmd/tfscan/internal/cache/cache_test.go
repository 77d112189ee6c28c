package cache

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPutGet(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "new", "cache"))
	require.NoError(t, err, "the directory is created")
	key := Key([]byte("model"), []byte("options"))
	require.NotEqual(t, key, Key([]byte("mode"), []byte("loptions")), "parts do not run into each other")
	_, ok := d.Get(key)
	require.False(t, ok)
	require.NoError(t, d.Put(key, []byte(`{"x":1}`)))
	got, ok := d.Get(key)
	require.True(t, ok)
	require.Equal(t, `{"x":1}`, string(got))
	require.NoError(t, d.Put(key, []byte(`{"x":2}`)), "an entry is replaced")
	got, _ = d.Get(key)
	require.Equal(t, `{"x":2}`, string(got))
	tmps, _ := filepath.Glob(filepath.Join(d.root, "*", ".tmp*"))
	require.Empty(t, tmps, "no temporary file is left behind")
}

// An entry that is not exactly what Put wrote under this key is never
// trusted.
func TestCorruptEntriesMiss(t *testing.T) {
	d, err := Open(t.TempDir())
	require.NoError(t, err)
	key, other := Key([]byte("a")), Key([]byte("b"))
	payload := []byte(`{"model":"results"}`)
	for name, corrupt := range map[string]func(b []byte) []byte{
		"truncated":      func(b []byte) []byte { return b[:len(b)-3] },
		"flipped byte":   func(b []byte) []byte { b[len(b)-2] ^= 1; return b },
		"no header":      func(b []byte) []byte { return payload },
		"empty":          func(b []byte) []byte { return nil },
		"longer":         func(b []byte) []byte { return append(b, ' ') },
		"another format": func(b []byte) []byte { b[13] = '9'; return b },
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, d.Put(key, payload))
			b, err := os.ReadFile(d.path(key))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(d.path(key), corrupt(b), 0o644))
			_, ok := d.Get(key)
			require.False(t, ok)
		})
	}
	t.Run("another key's entry", func(t *testing.T) {
		require.NoError(t, d.Put(other, payload))
		b, err := os.ReadFile(d.path(other))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(d.path(key)), 0o755))
		require.NoError(t, os.WriteFile(d.path(key), b, 0o644))
		_, ok := d.Get(key)
		require.False(t, ok)
	})
}

func TestOpenRefusesWhatCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Open(file)
	require.ErrorContains(t, err, "--cache "+file+": cannot create the cache directory")
	_, err = Open(filepath.Join(file, "sub"))
	require.Error(t, err)

	ro := filepath.Join(dir, "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories")
	}
	_, err = Open(ro)
	require.ErrorContains(t, err, "the cache directory is not writable: permission denied")
}
