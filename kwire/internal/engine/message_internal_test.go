package engine

import (
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

type rootCacheMsg struct {
	_ struct{} `kafka:"versions=0-63,flexible=8+"`
	A int32    `kafka:"v=0+"`
}

// rememberRootPlan replaces a type's rootPlans whole to add a plan: from
// many goroutines at once, each adding one version, none may be lost, and
// every version then runs on the fast path (run with -race too).
func TestRootPlansKeepEveryVersion(t *testing.T) {
	typ := reflect.TypeOf(&rootCacheMsg{})
	plans := make([]*plan, 64)
	for v := range plans {
		pl, err := rootPlan(typ.Elem(), int16(v), "marshal")
		if err != nil {
			t.Fatal(err)
		}
		plans[v] = pl
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for v := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rememberRootPlan(typ, int16(v), plans[v])
		}()
	}
	close(start)
	wg.Wait()
	for v := range plans {
		msg := &rootCacheMsg{}
		lookupRootPlan(msg, int16(v)) // puts the type's latest rootPlans in hotRoots
		if pl, p := cachedRootPlan(msg, int16(v)); pl != plans[v] || p.p != unsafe.Pointer(msg) {
			t.Errorf("v%d: not on the fast path: %p", v, pl)
		}
	}
	if pl, p := cachedRootPlan(nil, 0); pl != nil || !p.isNil() {
		t.Error("a nil interface found a plan")
	}
	if pl, _ := cachedRootPlan((*rootCacheMsg)(nil), 0); pl != nil {
		t.Error("a nil pointer found a plan")
	}
}
