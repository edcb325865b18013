package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
)

func TestMain(m *testing.M) {
	if v := os.Getenv(brokerEnv); v != "" {
		serveBroker(v) // this test binary, started again as the broker
		return
	}
	os.Exit(m.Run())
}

// TestBrokerOutage is faultload's short run: 10 s of producing, directly
// and through `kwire proxy`, with the broker killed at 3 s and back 4 s
// later. The proxy side must lose no acked record and fail no more
// records than the direct side. Records written twice are logged, not
// failed: the proxy side sometimes has some where the direct side has
// none (interop/README.md, #19), an interplay of kgo's reconnect and
// kfake's restart that a short run hits too rarely to test.
func TestBrokerOutage(t *testing.T) {
	dir := t.TempDir()
	bin := os.Getenv("FAULTLOAD_KWIRE") // an older kwire, to see the test fail
	if bin == "" {
		bin = filepath.Join(dir, "kwire")
		// Generous: a fresh clone's build cache is empty.
		build := proctest.Command(t, 15*time.Minute, "go", "build", "-o", bin, "github.com/kwirelabs/kwire/cmd/kwire")
		build.Dir = "../.." // the main module, whose go.sum covers the tool's dependencies
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building kwire: %v\n%s", err, out)
		}
	}
	cfg := config{
		Kwire: bin, Dir: dir, Signal: syscall.SIGKILL,
		Duration: 10 * time.Second, KillAt: 3 * time.Second, Outage: 4 * time.Second,
		Producers: 2, Rate: 300, Size: 256, Flush: 5 * time.Second,
		ProxyArgs: strings.Fields(os.Getenv("FAULTLOAD_PROXY_ARGS")),
		Logf:      t.Logf,
	}
	res, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", res)
	if err := res.check(); err != nil {
		t.Error(err)
	}
	if err := res.duplicated(); err != nil {
		t.Log(err)
	}
}
