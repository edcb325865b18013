// Command proxyrss measures the resident memory of `kwire proxy` holding
// idle client connections: it opens N connections through the proxy to
// an in-process kfake broker, each sending one ApiVersions request and
// reading its answer (so both sides of the relay exist), then reads the
// proxy's VmRSS from /proc, before and after, and with the log off and
// on.
//
//	go run ./proxyrss -conns 1000
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func main() {
	n := flag.Int("conns", 1000, "idle client connections")
	flag.Parse()
	dir, err := os.MkdirTemp("", "proxyrss")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "kwire")
	build := exec.Command("go", "build", "-o", bin, "github.com/kwirelabs/kwire/cmd/kwire")
	build.Dir = ".."
	build.Stderr = os.Stderr
	check(build.Run())
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	check(err)
	defer cluster.Close()

	for _, logArgs := range [][]string{{"-log", "off"}, {"-log", filepath.Join(dir, "proxy.log"), "-json"}} {
		cmd := exec.Command(bin, append([]string{"proxy", "-listen", "127.0.0.1:0", "-upstream", cluster.ListenAddrs()[0]}, logArgs...)...)
		errs, err := cmd.StderrPipe()
		check(err)
		check(cmd.Start())
		sc := bufio.NewScanner(errs)
		addr := ""
		re := regexp.MustCompile(`^kwire proxy: (\S+) -> `)
		for addr == "" && sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr = m[1]
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
		before := rss(cmd.Process.Pid)
		var conns []net.Conn
		for i := range *n {
			c, err := net.Dial("tcp", addr)
			check(err)
			_, err = c.Write(must(kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 3, int32(i), nil)))
			check(err)
			_, err = kwire.NewFrameReader(c, 0).Next()
			check(err)
			conns = append(conns, c)
		}
		time.Sleep(2 * time.Second) // let the proxy's heap settle
		after := rss(cmd.Process.Pid)
		fmt.Printf("log %-28s VmRSS %6.1f MiB with no clients, %6.1f MiB with %d idle clients (%.1f KiB each)\n",
			strings.Join(logArgs, " "), float64(before)/1024, float64(after)/1024, *n, float64(after-before)/float64(*n))
		for _, c := range conns {
			c.Close()
		}
		cmd.Process.Signal(os.Interrupt)
		check(cmd.Wait())
	}
}

// rss is a process's VmRSS in KiB.
func rss(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, line := range bytes.Split(b, []byte("\n")) {
		if f := strings.Fields(string(line)); len(f) >= 2 && f[0] == "VmRSS:" {
			v, err := strconv.Atoi(f[1])
			check(err)
			return v
		}
	}
	log.Fatal("no VmRSS")
	return 0
}

func must(b []byte, err error) []byte {
	check(err)
	return b
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
