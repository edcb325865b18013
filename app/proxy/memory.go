package proxy

import (
	"runtime/debug"
	"sync"
	"time"
)

// Memory a large frame needed is given back to the operating system
// soon after the proxy lets go of it. Go's collector alone would keep it:
// with no new allocation no collection runs until the two-minute forced
// one, and freed pages return to the system slowly after that, so a
// proxy that relayed 8 frames of 50 MiB stayed at 600 MiB resident. The
// proxy instead counts the bytes of the large buffers it drops and, once
// they pass releaseAbove, asks the runtime for a collection that returns
// free memory at once (debug.FreeOSMemory), at most once per
// releaseDelay so that many connections dropping buffers together cost
// one.
const (
	releaseAbove = 8 << 20
	releaseDelay = 100 * time.Millisecond
)

// releaser is the process's: the memory it returns is the process's.
var releaser struct {
	mu      sync.Mutex
	dropped int64
	timer   *time.Timer
	runs    int // collections asked for, for tests
}

// letGo records that a buffer of n bytes is no longer used.
func letGo(n int) {
	if n <= 1<<20 {
		return // small buffers are the collector's ordinary business
	}
	releaser.mu.Lock()
	defer releaser.mu.Unlock()
	releaser.dropped += int64(n)
	if releaser.dropped >= releaseAbove && releaser.timer == nil {
		releaser.timer = time.AfterFunc(releaseDelay, release)
	}
}

func release() {
	releaser.mu.Lock()
	releaser.dropped, releaser.timer = 0, nil
	releaser.runs++
	releaser.mu.Unlock()
	debug.FreeOSMemory()
}
