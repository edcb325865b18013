package kwire

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

type rootCacheMsg struct {
	_ struct{} `kafka:"versions=0-99,flexible=8+"`
	A int32    `kafka:"v=0+"`
}

// Plans built from many goroutines at once, each version by its own, are
// all kept: each version then runs on the hot front (below 64) or from
// the store (64 and up), always the same plan (run with -race too).
func TestPlanCacheKeepsEveryVersion(t *testing.T) {
	const versions = 100
	plans := make([]*plan, versions)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for v := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			pl, _, err := messagePlan(&rootCacheMsg{}, int16(v), "marshal", readValue)
			if err != nil {
				t.Error(err)
			}
			plans[v] = pl
		}()
	}
	close(start)
	wg.Wait()
	for v, want := range plans {
		if want == nil || want.version != int16(v) || want.flexible != (v >= 8) {
			t.Fatalf("v%d: plan %+v", v, want)
		}
		msg := &rootCacheMsg{}
		pl, p := cachedRootPlan(msg, int16(v))
		if v < 64 && (pl != want || p.p != unsafe.Pointer(msg)) {
			t.Errorf("v%d: not on the hot front: %p", v, pl)
		}
		if v >= 64 && pl != nil {
			t.Errorf("v%d: on the hot front, which holds versions below 64", v)
		}
		if pl, _, _ := messagePlan(msg, int16(v), "marshal", readValue); pl != want {
			t.Errorf("v%d: a second plan %p, first %p", v, pl, want)
		}
	}
	if pl, p := cachedRootPlan(nil, 0); pl != nil || !p.isNil() {
		t.Error("a nil interface found a plan")
	}
	if pl, _ := cachedRootPlan((*rootCacheMsg)(nil), 0); pl != nil {
		t.Error("a nil pointer found a plan")
	}
}

type nestedOnly struct {
	_ struct{} `kafka:"versions=0-3"`
	A int32    `kafka:"v=0+"`
}

type holdsNested struct {
	_ struct{}   `kafka:"versions=0-9"`
	N nestedOnly `kafka:"v=0+"`
}

// A plan built for a type nested in another message, at a version the
// type does not declare, never answers for the type as a message itself.
func TestPlanCacheRootsOnlyDeclaredVersions(t *testing.T) {
	if _, err := Marshal(&holdsNested{}, 5); err != nil {
		t.Fatal(err)
	}
	if infoFor(reflect.TypeFor[nestedOnly]()).cached(5, false) == nil {
		t.Fatal("the nested plan at v5 is not in the store")
	}
	for range 2 {
		if pl, _ := cachedRootPlan(&nestedOnly{}, 5); pl != nil {
			t.Fatal("the hot front answered v5 for a type declaring 0-3")
		}
		if _, err := Marshal(&nestedOnly{}, 5); !errors.Is(err, ErrUnsupportedVersion) {
			t.Fatalf("Marshal at v5: %v, want ErrUnsupportedVersion", err)
		}
	}
}
