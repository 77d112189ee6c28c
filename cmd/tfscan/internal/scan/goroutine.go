package scan

// started runs fn on a goroutine of its own. The wait it returns blocks
// until fn has returned, then raises again, on the waiting goroutine, what
// fn panicked with: a scan's work on another goroutine fails as it would
// on the scan's own.
func started(fn func()) (wait func()) {
	done := make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		fn()
	}()
	return func() {
		<-done
		if panicked != nil {
			panic(panicked)
		}
	}
}
