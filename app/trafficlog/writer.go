package trafficlog

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Writer.
type Options struct {
	JSON bool // one JSON object a line (AppendJSON) rather than text (AppendText)

	// Queue is how many formatted lines may wait for the writer; a line
	// that finds the queue full is dropped and counted. 0 means 4096.
	Queue int

	// Notice, when set, hears about trouble as it happens, once per kind:
	// the first line dropped and the first write error.
	Notice func(msg string)

	// OnDrop, when set, is called for every line dropped (a metric, say).
	OnDrop func()

	// OnLost, when set, is called with the number of lines each failed
	// write lost.
	OnLost func(lines int)

	// FlushTimeout bounds how long Close waits for the queue to drain
	// into a writer that has stopped taking bytes. 0 means 5 s.
	FlushTimeout time.Duration
}

// Writer formats Events and writes them from a goroutine of its own.
// Write never blocks: a line the queue has no room for is dropped and
// counted, so a log nobody reads cannot stall the traffic it describes.
type Writer struct {
	opts  Options
	lines chan []byte
	done  chan struct{}

	closeOnce sync.Once
	closeErr  error

	dropped  atomic.Uint64
	lost     atomic.Uint64 // lines a write error lost
	mu       sync.Mutex
	writeErr error
}

// NewWriter starts a Writer onto w.
func NewWriter(w io.Writer, opts Options) *Writer {
	if opts.Queue <= 0 {
		opts.Queue = 4096
	}
	if opts.FlushTimeout <= 0 {
		opts.FlushTimeout = 5 * time.Second
	}
	l := &Writer{opts: opts, lines: make(chan []byte, opts.Queue), done: make(chan struct{})}
	go l.run(w)
	return l
}

func (l *Writer) run(w io.Writer) {
	defer close(l.done)
	bw := bufio.NewWriterSize(w, 64<<10)
	pending := 0 // lines in bw not yet flushed
	flush := func() {
		if err := bw.Flush(); err != nil {
			l.failed(err, pending)
			bw.Reset(w) // keep trying later lines: a full disk may empty
		}
		pending = 0
	}
	for line := range l.lines {
		bw.Write(line)
		pending++
		if len(l.lines) == 0 {
			flush()
		}
	}
	flush()
}

func (l *Writer) failed(err error, lines int) {
	l.lost.Add(uint64(lines))
	if l.opts.OnLost != nil && lines > 0 {
		l.opts.OnLost(lines)
	}
	l.mu.Lock()
	first := l.writeErr == nil
	if first {
		l.writeErr = err
	}
	l.mu.Unlock()
	if first && l.opts.Notice != nil {
		l.opts.Notice(fmt.Sprintf("log: %v; lines are being lost", err))
	}
}

// Write formats e now (a decoded body may alias a buffer the caller
// reuses) and queues the line, or drops it when the queue is full.
func (l *Writer) Write(e Event) {
	var line []byte
	if l.opts.JSON {
		line = AppendJSON(nil, e)
	} else {
		line = AppendText(nil, e)
	}
	select {
	case l.lines <- line:
	default:
		if l.dropped.Add(1) == 1 && l.opts.Notice != nil {
			l.opts.Notice("log: falling behind; dropping lines (counted at exit)")
		}
		if l.opts.OnDrop != nil {
			l.opts.OnDrop()
		}
	}
}

// Dropped is how many lines found the queue full.
func (l *Writer) Dropped() uint64 { return l.dropped.Load() }

// Close writes what is queued (waiting at most FlushTimeout) and reports
// every line lost: dropped, lost to write errors, or left in the queue.
// Write must not be called after Close.
func (l *Writer) Close() error {
	l.closeOnce.Do(func() {
		close(l.lines)
		timer := time.NewTimer(l.opts.FlushTimeout)
		defer timer.Stop()
		timedOut := false
		select {
		case <-l.done:
		case <-timer.C:
			timedOut = true
		}
		l.mu.Lock()
		werr := l.writeErr
		l.mu.Unlock()
		dropped, lost := l.dropped.Load(), l.lost.Load()
		switch {
		case werr != nil:
			l.closeErr = fmt.Errorf("log: %d lines lost to write errors (first: %v), %d dropped", lost, werr, dropped)
		case timedOut:
			l.closeErr = fmt.Errorf("log: the output stopped taking bytes; %d queued lines unwritten, %d dropped", len(l.lines), dropped)
		case dropped > 0:
			l.closeErr = fmt.Errorf("log: %d lines dropped (the log fell behind)", dropped)
		}
	})
	return l.closeErr
}
