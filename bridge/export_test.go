package bridge

import "time"

// setBusyPoll makes the server poll a chat busy elsewhere every d (the
// tests' fastPoll) instead of every 2 s.
func setBusyPoll(o *Options, d time.Duration) { o.busyPoll = d }
