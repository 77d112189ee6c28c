package placement

// Flattened is the flattened graph sc holds, nil when none: a test checks
// that simulations share it.
func Flattened(sc *Scratch) any {
	if sc.flat == nil {
		return nil
	}
	return sc.flat
}

// CPULookups are the CPU's kernel lookups sc holds, nil when none.
func CPULookups(sc *Scratch) any {
	if sc.cpu == nil {
		return nil
	}
	return sc.cpu
}
