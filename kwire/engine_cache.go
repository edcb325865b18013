package kwire

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// The plan cache: the one path from a Go type to its plans. Its store is
// typeInfos, a struct type's typeInfo, which holds the type's parsed tags
// and every plan built for it. In front of the store sits hotRoots, a
// small direct-mapped table of the entries' rootPlans keyed by the
// address of *T's runtime type, so that the common call (a message passed
// by pointer, at a version below 64) finds its plan with three plain
// loads and no hashing: cachedRootPlan.

var (
	typeInfos sync.Map   // reflect.Type (a struct type) -> *typeInfo
	buildMu   sync.Mutex // held while plans are built and published
	hotRoots  [256]atomic.Pointer[rootPlans]
)

// rootPlans is a typeInfo's plans as a top-level message, by version. It
// never changes once published: addRoot replaces it whole to add a plan,
// so the hot front reads the plans without atomics.
type rootPlans struct {
	ptrType goType // the typeInfo's
	plans   [64]*plan
}

// planSlots is a type's plans at one version: [0] not flexible, [1]
// flexible.
type planSlots [2]*plan

// infoFor returns the cache entry of struct type t, its tags parsed on
// first use.
func infoFor(t reflect.Type) *typeInfo {
	if ti, ok := typeInfos.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := parseType(t)
	actual, _ := typeInfos.LoadOrStore(t, ti)
	return actual.(*typeInfo)
}

// cached returns the plan already built for (v, flex), or nil.
func (ti *typeInfo) cached(v int16, flex bool) *plan {
	plans := ti.plans.Load()
	if plans == nil || v < 0 || int(v) >= len(*plans) {
		return nil
	}
	return (*plans)[v][boolIndex(flex)]
}

// publish makes a finished plan visible to every goroutine. The caller
// holds buildMu, so publishing copies the slice without a race; readers
// load it whole.
func (ti *typeInfo) publish(v int16, flex bool, p *plan) {
	if v < 0 {
		return // no version is negative: nothing would look it up
	}
	var plans []planSlots
	if old := ti.plans.Load(); old != nil {
		plans = *old
	}
	next := make([]planSlots, max(len(plans), int(v)+1))
	copy(next, plans)
	next[v][boolIndex(flex)] = p
	ti.plans.Store(&next)
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// noRootPlans fills the hotRoots slots no type has taken yet, so a lookup
// need not test for nil: its ptrType matches only a nil interface, whose
// nil data pointer then fails.
var noRootPlans rootPlans

func init() {
	for i := range hotRoots {
		hotRoots[i].Store(&noRootPlans)
	}
}

func hotSlot(typ goType) *atomic.Pointer[rootPlans] {
	return &hotRoots[(typ.id()>>5)%uintptr(len(hotRoots))]
}

// cachedRootPlan returns the plan of msg at version and msg's data
// pointer when msg is a non-nil pointer whose type's rootPlans sit in
// hotRoots with that version's plan, else (nil, nil). It is small enough
// to be inlined into every entry point.
func cachedRootPlan(msg any, version int16) (*plan, pointer) {
	e := interfaceOf(&msg)
	r := hotSlot(e.typ).Load()
	if r.ptrType == e.typ && !e.data.isNil() && uint16(version) < uint16(len(r.plans)) {
		return r.plans[version], e.data
	}
	return nil, pointer{}
}

// addRoot publishes pl as ti's plan at version as a top-level message: a
// new rootPlans with the plans already known and pl, swapped in for the
// old one. It returns the rootPlans that holds pl.
func (ti *typeInfo) addRoot(version int16, pl *plan) *rootPlans {
	for {
		old := ti.roots.Load()
		next := &rootPlans{ptrType: ti.ptrType}
		if old != nil {
			next.plans = old.plans
		}
		next.plans[version] = pl
		if ti.roots.CompareAndSwap(old, next) {
			return next
		}
	}
}

// rootPlan is the plan of struct type t as a top-level message, and the
// rootPlans holding it when its version is below 64 (else nil): the type
// must be valid, the version one it declares, and its own flexible
// versions decide the encoding.
func rootPlan(t reflect.Type, version int16, opName string) (*rootPlans, *plan, error) {
	ti := infoFor(t)
	hot := uint16(version) < uint16(len(rootPlans{}.plans))
	if r := ti.roots.Load(); r != nil && hot && r.plans[version] != nil {
		return r, r.plans[version], nil
	}
	if err := validType(t); err != nil {
		return nil, nil, err
	}
	if !ti.msg.versions.Contains(version) {
		return nil, nil, &Error{Op: opName, Type: t.String(), Offset: -1, Err: ErrUnsupportedVersion,
			Detail: fmt.Sprintf("version %d, valid %s", version, ti.msg.versions)}
	}
	pl, err := planFor(t, version, ti.msg.flexible.Contains(version))
	if err != nil {
		return nil, nil, publicSpecError(t, err)
	}
	if !hot {
		return nil, pl, nil
	}
	return ti.addRoot(version, pl), pl, nil
}
