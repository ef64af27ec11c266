package main

// The figures' arithmetic and units: percentiles, medians, ms, µs, MiB, seconds.

import (
	"fmt"
	"slices"
	"time"
)

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s)-1)*p/100 + 0.5)
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }
func mib(kb int64) string       { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }
