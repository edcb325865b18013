// Command proxybench measures what `kwire proxy` costs a producer: kgo
// producing records to an in-process kfake broker directly and through
// the proxy (built with go build and run as a subprocess, logging every
// message to a file), side by side in one run, the two interleaved pass
// by pass. Per pass and side it reports throughput (N records of S bytes,
// produced asynchronously) and the latency of sequential one-record
// ProduceSync calls, and the CPU time the proxy process used; at the end,
// the medians and the added latency. On a shared machine the throughput
// swings with other load; the added latency and the proxy's CPU per GiB
// are the steadier figures.
//
//	go run ./proxybench -passes 6 -records 100000 -size 1024
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	passes := flag.Int("passes", 6, "passes per side (direct, proxy), interleaved")
	records := flag.Int("records", 100000, "records per throughput run")
	size := flag.Int("size", 1024, "value size in bytes")
	pings := flag.Int("pings", 1000, "sequential one-record produces per latency run")
	flag.Parse()

	dir, err := os.MkdirTemp("", "proxybench")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kwire")
	build := exec.Command("go", "build", "-o", bin, "github.com/kwirelabs/kwire/cmd/kwire")
	build.Dir = ".." // run from interop/: the main module, whose go.sum covers the tool's dependencies
	build.Stderr = os.Stderr
	check(build.Run())

	var lat = map[string][]time.Duration{}
	var tput = map[string][]float64{}     // sorted at the end
	var passRate = map[string][]float64{} // in pass order
	var proxyCPU []float64                // seconds per GiB, by pass
	var cpuPerGiB = map[string][]float64{}
	fmt.Printf("%-5s %-6s %12s %10s %10s %10s\n", "pass", "side", "records/s", "MiB/s", "p50 ms", "p99 ms")
	for pass := range *passes {
		cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "bench"))
		check(err)
		proxy, addr := startProxy(bin, cluster.ListenAddrs()[0], filepath.Join(dir, "proxy.log"))
		sides := []struct{ name, addr string }{{"direct", cluster.ListenAddrs()[0]}, {"proxy", addr}}
		if pass%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0] // alternate which goes first
		}
		for _, s := range sides {
			var extra func() time.Duration // the proxy process's CPU, for the proxy side
			if s.name == "proxy" {
				extra = func() time.Duration { return procCPU(proxy.Process.Pid) }
			}
			rate, cpu, l := runSide(s.addr, *records, *size, *pings, extra)
			cpuPerGiB[s.name] = append(cpuPerGiB[s.name], cpu.Seconds()/(float64(*records)*float64(*size)/(1<<30)))
			tput[s.name] = append(tput[s.name], rate)
			passRate[s.name] = append(passRate[s.name], rate)
			lat[s.name] = append(lat[s.name], l...)
			slices.Sort(l)
			fmt.Printf("%-5d %-6s %12.0f %10.1f %10.3f %10.3f\n", pass+1, s.name, rate, rate*float64(*size)/(1<<20), ms(pct(l, 50)), ms(pct(l, 99)))
		}
		proxy.Process.Signal(os.Interrupt)
		check(proxy.Wait())
		cpu := proxy.ProcessState.UserTime() + proxy.ProcessState.SystemTime()
		relayed := float64((*records+*pings+1)*(*size)) / (1 << 30)
		proxyCPU = append(proxyCPU, cpu.Seconds()/relayed)
		fmt.Printf("%-5d proxy process CPU %.2f s (user+sys), %.2f s per GiB produced\n", pass+1, cpu.Seconds(), cpu.Seconds()/relayed)
		cluster.Close()
	}
	fmt.Println()
	for _, side := range []string{"direct", "proxy"} {
		slices.Sort(lat[side])
		slices.Sort(tput[side])
		fmt.Printf("%-6s median throughput %8.0f records/s (%.1f MiB/s); latency p50 %.3f ms, p99 %.3f ms (%d samples)\n",
			side, pct64(tput[side], 50), pct64(tput[side], 50)*float64(*size)/(1<<20), ms(pct(lat[side], 50)), ms(pct(lat[side], 99)), len(lat[side]))
	}
	var ratios []float64 // proxy over direct within a pass: drift in the machine's load cancels
	for i := range tput["proxy"] {
		ratios = append(ratios, passRate["proxy"][i]/passRate["direct"][i])
	}
	slices.Sort(ratios)
	for _, side := range []string{"direct", "proxy"} {
		slices.Sort(cpuPerGiB[side])
	}
	fmt.Printf("CPU per GiB produced (client + broker, + proxy on the proxy side): direct %.2f s, proxy %.2f s (%.2fx)\n",
		pct64(cpuPerGiB["direct"], 50), pct64(cpuPerGiB["proxy"], 50), pct64(cpuPerGiB["proxy"], 50)/pct64(cpuPerGiB["direct"], 50))
	slices.Sort(proxyCPU)
	fmt.Printf("proxy process CPU: median %.2f s per GiB produced (%.2f-%.2f)\n", pct64(proxyCPU, 50), proxyCPU[0], proxyCPU[len(proxyCPU)-1])
	fmt.Printf("through the proxy: throughput %.2fx direct (median of per-pass ratios; %.2f-%.2f); added latency p50 %+.3f ms, p99 %+.3f ms\n",
		pct64(ratios, 50), ratios[0], ratios[len(ratios)-1],
		ms(pct(lat["proxy"], 50)-pct(lat["direct"], 50)), ms(pct(lat["proxy"], 99)-pct(lat["direct"], 99)))
}

// runSide produces n records asynchronously and reports records per
// second and the CPU time spent on them (this process, which holds the
// client and the broker, plus extra), then pings sequential one-record
// produces and returns their latencies.
func runSide(addr string, n, size, pings int, extra func() time.Duration) (float64, time.Duration, []time.Duration) {
	ctx := context.Background()
	var batches batchCount
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("bench"), kgo.WithHooks(&batches),
		kgo.ProducerBatchCompression(kgo.NoCompression()), // every byte crosses the proxy
		// Full batches on both sides: without a linger a low-latency
		// connection sends many small batches, and kfake's cost per
		// request then dominates, making direct look slower.
		kgo.ProducerLinger(20*time.Millisecond),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(1<<16))
	check(err)
	defer cl.Close()
	check(cl.ProduceSync(ctx, &kgo.Record{Value: []byte("warm up")}).FirstErr())

	value := make([]byte, size)
	rand.Read(value)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	cpu0 := selfCPU()
	if extra != nil {
		cpu0 += extra()
	}
	start := time.Now()
	for range n {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	rate := float64(n) / time.Since(start).Seconds()
	cpu := selfCPU()
	if extra != nil {
		cpu += extra()
	}
	cpu -= cpu0
	check(firstErr)
	fmt.Printf("      %d records in %d batches\n", n, batches.n.Load()-1) // less the warm-up record's

	lat := make([]time.Duration, 0, pings)
	for range pings {
		t := time.Now()
		check(cl.ProduceSync(ctx, &kgo.Record{Value: value}).FirstErr())
		lat = append(lat, time.Since(t))
	}
	return rate, cpu, lat
}

// batchCount counts the record batches the client wrote.
type batchCount struct{ n atomic.Int64 }

func (b *batchCount) OnProduceBatchWritten(kgo.BrokerMetadata, string, int32, kgo.ProduceBatchMetrics) {
	b.n.Add(1)
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is another process's user+sys time from /proc (Linux; clock
// ticks of 10 ms).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	check(err)
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:])) // fields after the command name
	ut, err := strconv.ParseInt(f[11], 10, 64)                     // utime is field 14 of the line
	check(err)
	st, err := strconv.ParseInt(f[12], 10, 64)
	check(err)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

var listening = regexp.MustCompile(`^kwire proxy: (\S+) -> `)

func startProxy(bin, upstream, logPath string) (*exec.Cmd, string) {
	cmd := exec.Command(bin, "proxy", "-listen", "127.0.0.1:0", "-upstream", upstream, "-log", logPath)
	errs, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	sc := bufio.NewScanner(errs)
	if !sc.Scan() {
		log.Fatal("the proxy did not start")
	}
	m := listening.FindStringSubmatch(sc.Text())
	if m == nil {
		log.Fatalf("the proxy said %q", sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return cmd, m[1]
}

func pct(s []time.Duration, p int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func pct64(s []float64, p int) float64 {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
