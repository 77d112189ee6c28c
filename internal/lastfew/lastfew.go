// Package lastfew remembers the values of the last few keys looked up, to
// be tried before a map or a computation: a graph's nodes come a layer's
// few ops, attr maps or classes at a time, so that most of them are found
// among the last few without hashing a key.
package lastfew

// Size is how many keys a Cache holds.
const Size = 8

// Cache holds the values of the last Size keys put in it; the zero value
// is empty and ready.
type Cache[K comparable, V any] struct {
	keys    [Size]K
	vals    [Size]V
	n, next int
}

// Get is the value held for k, and whether k is held.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	for i := range c.n {
		if c.keys[i] == k {
			return c.vals[i], true
		}
	}
	var zero V
	return zero, false
}

// Put holds v for k: in place of what k held, else of the key put longest
// ago (a caller whose values are answers to more than the key keeps the
// last one found).
func (c *Cache[K, V]) Put(k K, v V) {
	for i := range c.n {
		if c.keys[i] == k {
			c.vals[i] = v
			return
		}
	}
	c.keys[c.next], c.vals[c.next] = k, v
	c.next = (c.next + 1) % Size
	c.n = min(c.n+1, Size)
}
