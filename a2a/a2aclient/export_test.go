package a2aclient

import "time"

// WithPollInterval is cfg polling a non-streaming agent's task at most
// every d, for the tests of package a2aclient_test.
func WithPollInterval(cfg Config, d time.Duration) Config {
	cfg.pollInterval = d
	return cfg
}

// WithRetryWait is cfg waiting d before a unary call's second attempt,
// for the tests of package a2aclient_test.
func WithRetryWait(cfg Config, d time.Duration) Config {
	cfg.retryWait = d
	return cfg
}
