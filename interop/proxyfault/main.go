// Command proxyfault runs a producer load through `kwire proxy` and, side
// by side, straight to the same broker, kills the broker's network in the
// middle (every connection closed, the port refusing connections) and
// brings it back, then reads everything back and reports, per side, the
// records acknowledged, failed (by error) and acknowledged but not read
// back. The broker is an in-process kfake whose data outlives the
// outage, as a restarted Kafka broker's does.
//
//	go run ./proxyfault -duration 60s -outage 5s -at 25s
//	go run ./proxyfault -kwire /tmp/kwire-2bccccc   # the proxy as it was
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	duration := flag.Duration("duration", 60*time.Second, "how long the producers run")
	outage := flag.Duration("outage", 5*time.Second, "how long the broker is down")
	at := flag.Duration("at", 25*time.Second, "when the outage starts")
	rate := flag.Int("rate", 2000, "records per second per side")
	bin := flag.String("kwire", "", "a kwire binary to run (default: build this tree's), to compare with an older one")
	flag.Parse()

	dir, err := os.MkdirTemp("", "proxyfault")
	check(err)
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "kwire")
		build := exec.Command("go", "build", "-o", *bin, "github.com/kwirelabs/kwire/cmd/kwire")
		build.Dir = ".." // run from interop/: the main module
		build.Stderr = os.Stderr
		check(build.Run())
	}

	gate := &gateListener{}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "direct", "proxy"),
		kfake.ListenFn(gate.listen))
	check(err)
	defer cluster.Close()
	broker := cluster.ListenAddrs()[0]

	proxy := exec.Command(*bin, "proxy", "-listen", "127.0.0.1:0", "-upstream", broker, "-log", filepath.Join(dir, "proxy.log"))
	errs, err := proxy.StderrPipe()
	check(err)
	check(proxy.Start())
	sc := bufio.NewScanner(errs)
	var proxyAddr string
	listening := regexp.MustCompile(`^kwire proxy: (\S+) -> `)
	for proxyAddr == "" && sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			proxyAddr = m[1]
		}
	}
	go func() {
		for sc.Scan() {
			fmt.Println("  [proxy stderr]", sc.Text())
		}
	}()

	sides := []*side{{name: "direct", addr: broker, failed: map[string]int{}}, {name: "proxy", addr: proxyAddr, failed: map[string]int{}}}
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Add(1)
		go func() { defer wg.Done(); s.produce(ctx, *rate) }()
	}
	go func() {
		time.Sleep(*at)
		fmt.Printf("%s outage: every broker connection closed, the port refusing\n", time.Now().Format("15:04:05"))
		gate.down()
		time.Sleep(*outage)
		check(gate.up())
		fmt.Printf("%s broker back\n", time.Now().Format("15:04:05"))
	}()
	wg.Wait()

	for _, s := range sides {
		s.readBack(broker)
	}
	proxy.Process.Signal(os.Interrupt)
	proxyErr := proxy.Wait()
	fmt.Printf("\nload %v at %d records/s per side, outage %v at %v\n", *duration, *rate, *outage, *at)
	for _, s := range sides {
		var reasons []string
		for r, n := range s.failed {
			reasons = append(reasons, fmt.Sprintf("%d × %s", n, r))
		}
		sort.Strings(reasons)
		fmt.Printf("%-6s produced %d, acknowledged %d, failed %d %v; read back %d; acknowledged but missing %d; read twice %d\n",
			s.name, s.produced.Load(), len(s.acked), s.failedTotal(), reasons, s.read, s.missing, s.dups)
	}
	fmt.Printf("proxy exit: %v\n", proxyErr)
}

type side struct {
	name, addr string
	produced   atomic.Int64

	mu     sync.Mutex
	acked  map[string]bool
	failed map[string]int

	read, missing, dups int
}

func (s *side) failedTotal() int {
	n := 0
	for _, c := range s.failed {
		n += c
	}
	return n
}

// produce sends rate records a second, each with a unique key, until ctx
// is done, then waits for every outstanding record.
func (s *side) produce(ctx context.Context, rate int) {
	s.acked = map[string]bool{}
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.addr), kgo.DefaultProduceTopic(s.name), kgo.ProducerLinger(5*time.Millisecond))
	check(err)
	defer cl.Close()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	per := max(rate/100, 1)
	i := 0
	var wg sync.WaitGroup
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
		}
		for range per {
			key := strconv.Itoa(i)
			i++
			s.produced.Add(1)
			wg.Add(1)
			cl.Produce(context.Background(), &kgo.Record{Key: []byte(key), Value: []byte("proxyfault " + key)}, func(r *kgo.Record, err error) {
				defer wg.Done()
				s.mu.Lock()
				defer s.mu.Unlock()
				if err != nil {
					s.failed[reason(err)]++
					return
				}
				s.acked[key] = true
			})
		}
	}
}

func reason(err error) string {
	var ne net.Error
	if errors.As(err, &ne) {
		return "network: " + err.Error()
	}
	return err.Error()
}

// readBack reads the side's topic from the start, straight from the
// broker.
func (s *side) readBack(broker string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics(s.name), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	check(err)
	defer cl.Close()
	seen := map[string]int{}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			break
		}
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Key)]++ })
	}
	for k, n := range seen {
		s.read += n
		if n > 1 {
			s.dups += n - 1
		}
		_ = k
	}
	for k := range s.acked {
		if seen[k] == 0 {
			s.missing++
		}
	}
}

// gateListener is the broker's listener, which the test can take down
// (closing it and every connection it accepted, so the port refuses
// connections) and bring back on the same address.
type gateListener struct {
	mu    sync.Mutex
	addr  string
	ln    net.Listener
	conns []net.Conn
	back  chan struct{} // closed when the listener is up again
}

func (g *gateListener) listen(network, address string) (net.Listener, error) {
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	g.ln, g.addr = ln, ln.Addr().String()
	return gateAccept{g}, nil
}

func (g *gateListener) down() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.back = make(chan struct{})
	g.ln.Close()
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}

func (g *gateListener) up() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		return err
	}
	g.ln = ln
	close(g.back)
	return nil
}

type gateAccept struct{ g *gateListener }

func (a gateAccept) Accept() (net.Conn, error) {
	for {
		a.g.mu.Lock()
		ln, back := a.g.ln, a.g.back
		a.g.mu.Unlock()
		c, err := ln.Accept()
		if err == nil {
			a.g.mu.Lock()
			a.g.conns = append(a.g.conns, c)
			a.g.mu.Unlock()
			return c, nil
		}
		if back == nil {
			a.g.mu.Lock()
			back = a.g.back
			a.g.mu.Unlock()
		}
		if back == nil {
			return nil, err // closed for good
		}
		<-back
		a.g.mu.Lock()
		if a.g.back == back {
			a.g.back = nil
		}
		a.g.mu.Unlock()
	}
}

func (a gateAccept) Close() error   { return a.g.ln.Close() }
func (a gateAccept) Addr() net.Addr { return a.g.ln.Addr() }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
