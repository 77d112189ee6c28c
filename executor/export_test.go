package executor

// DisableBufferReuse makes e allocate every output and recycle nothing.
func DisableBufferReuse(e *Executor) { e.pool = nil }

// PoisonFreed sets poisonFreed and returns a function restoring it.
func PoisonFreed(on bool) func() {
	old := poisonFreed
	poisonFreed = on
	return func() { poisonFreed = old }
}

// BuffersReused reports how many buffers e's pool handed back out and
// how many it took back.
func BuffersReused(e *Executor) (reused, freed int) {
	if e.pool == nil {
		return 0, 0
	}
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return e.pool.reused, e.pool.freed
}

// DisablePackCache makes e's kernels pack their stable operands on every
// call.
func DisablePackCache(e *Executor) { e.packs = nil }

// PackCacheStats reports the lookups of e's pack cache that found panels
// and those that packed them.
func PackCacheStats(e *Executor) (hits, misses int) {
	if e.packs == nil {
		return 0, 0
	}
	return e.packs.Stats()
}
