package privfile

// failAt makes the next writes fail at step with err, until the test ends.
func failAt(t interface{ Cleanup(func()) }, step string, err error) {
	testFault = func(s string) error {
		if s == step {
			return err
		}
		return nil
	}
	t.Cleanup(func() { testFault = nil })
}
