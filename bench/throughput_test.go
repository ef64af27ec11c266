package main

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// procWakes counts a process's read calls and the voluntary context
// switches of all its threads: ten reads of /dev/zero and a nanosleep (a
// thread that sleeps always switches out) are seen.
func TestProcWakes(t *testing.T) {
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Skip("no /proc/self/io here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	w0 := procWakes(os.Getpid())
	buf := make([]byte, 16)
	for range 10 {
		if _, err := f.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	ts := syscall.NsecToTimespec(1e6)
	if err := syscall.Nanosleep(&ts, nil); err != nil {
		t.Fatal(err)
	}
	w := procWakes(os.Getpid()).minus(w0)
	if w.reads < 10 {
		t.Errorf("reads = %d after ten reads", w.reads)
	}
	if w.switches < 1 {
		t.Errorf("voluntary context switches = %d after a sleep", w.switches)
	}
}
