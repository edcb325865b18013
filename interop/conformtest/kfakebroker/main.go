// Command kfakebroker runs franz-go's kfake, a one-broker fake Kafka
// cluster, in a process of its own (a request that makes kfake panic
// ends this process, not the checker's) and prints its address on
// standard output; it stops when standard input closes, or when its
// heap passes -max-heap (kfake builds whatever a request asks for: the
// machine is shared).
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 0, "the port to listen on (0: any free one)")
	maxHeap := flag.Uint64("max-heap", 1<<30, "exit when the heap passes this many bytes")
	flag.Parse()
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, "seeded")}
	if *port != 0 {
		opts = append(opts, kfake.Ports(*port))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer cluster.Close()
	go func() {
		var m runtime.MemStats
		for range time.Tick(50 * time.Millisecond) {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > *maxHeap {
				fmt.Fprintf(os.Stderr, "kfakebroker: heap %d bytes, past -max-heap %d: exiting\n", m.HeapAlloc, *maxHeap)
				os.Exit(3)
			}
		}
	}()
	fmt.Println(cluster.ListenAddrs()[0])
	io.Copy(io.Discard, os.Stdin)
}
