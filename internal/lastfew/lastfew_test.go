package lastfew

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A Cache finds the last Size keys put in it, with their values, and
// forgets the oldest beyond them; the zero value finds nothing, not even
// the zero key.
func TestCache(t *testing.T) {
	var c Cache[string, int]
	_, ok := c.Get("")
	assert.False(t, ok, "an empty cache holds no zero key")
	for i := range Size + 3 {
		c.Put(string(rune('a'+i)), i)
	}
	for i := range Size + 3 {
		v, ok := c.Get(string(rune('a' + i)))
		if i < 3 {
			assert.False(t, ok, "key %d was put longest ago", i)
			continue
		}
		assert.True(t, ok, "key %d", i)
		assert.Equal(t, i, v)
	}
	c.Put("", -1)
	v, ok := c.Get("")
	assert.True(t, ok, "the zero key once put")
	assert.Equal(t, -1, v)
	c.Put("", -2)
	v, _ = c.Get("")
	assert.Equal(t, -2, v, "a key put again holds the last value")
	for i := range Size - 1 {
		_, ok := c.Get(string(rune('a' + Size + 3 - 1 - i)))
		assert.True(t, ok, "a key put again takes no other key's place")
	}
}
