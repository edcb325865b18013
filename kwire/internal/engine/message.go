package engine

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	public "github.com/kwirelabs/kwire/kwire/internal/public"
)

// msgUse is what an entry point does with the message it is given, which
// decides what it accepts as one.
type msgUse uint8

const (
	readValue  msgUse = iota // encode, size, trace, walk: a struct, or a non-nil pointer to one
	writeValue               // decode, fill: a non-nil pointer to a struct
	typeOnly                 // validate, describe, schema: a struct, a pointer to one (nil too), or a reflect.Type of either
)

// need says what each use accepts, in the error for anything else.
var need = [...]string{
	readValue:  "need a struct or a non-nil pointer to one",
	writeValue: "need a non-nil pointer to a struct",
	typeOnly:   "need a struct, a pointer to one, or a reflect.Type of either",
}

// notAMessage is the one error for an entry point (opName, as Error.Op
// names it) given something of type typ where a message was wanted;
// detail says what it takes.
func notAMessage(opName, typ, detail string) error {
	return &public.Error{Op: opName, Type: typ, Offset: -1, Err: public.ErrNotAMessage, Detail: detail}
}

// messageOf is how every entry point reads its message argument: the
// struct type behind msg and, unless use is typeOnly, the struct's
// address (a struct passed by value is copied to the heap once; pass a
// pointer to avoid it).
func messageOf(msg any, opName string, use msgUse) (reflect.Type, pointer, error) {
	if use == typeOnly {
		t, ok := msg.(reflect.Type)
		if !ok {
			t = reflect.TypeOf(msg)
		}
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return nil, pointer{}, notAMessage(opName, fmt.Sprint(t), need[use])
		}
		return t, pointer{}, nil
	}
	rv := reflect.ValueOf(msg)
	switch {
	case rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct:
		return rv.Type().Elem(), valuePointer(rv), nil
	case rv.Kind() == reflect.Struct && use == readValue:
		cp := reflect.New(rv.Type())
		cp.Elem().Set(rv)
		return rv.Type(), valuePointer(cp), nil
	}
	return nil, pointer{}, notAMessage(opName, fmt.Sprintf("%T", msg), need[use])
}

// messagePlan finds the plan of msg at version and the struct's address,
// for an entry point (opName) that uses msg as use says. The common call,
// a pointer whose plan sits in hotRoots, goes no further than
// cachedRootPlan.
func messagePlan(msg any, version int16, opName string, use msgUse) (*plan, pointer, error) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		return pl, p, nil
	}
	return messagePlanSlow(msg, version, opName, use)
}

// messagePlanSlow is messagePlan behind a miss in hotRoots.
func messagePlanSlow(msg any, version int16, opName string, use msgUse) (*plan, pointer, error) {
	if pl, p := lookupRootPlan(msg, version); pl != nil {
		return pl, p, nil
	}
	t, p, err := messageOf(msg, opName, use)
	if err != nil {
		return nil, pointer{}, err
	}
	pl, err := rootPlan(t, version, opName)
	if err == nil && reflect.TypeOf(msg).Kind() == reflect.Pointer {
		rememberRootPlan(reflect.TypeOf(msg), version, pl)
	}
	return pl, p, err
}

// rootCache maps a pointer-to-message type straight to its plans by
// version. In front of it sits hotRoots, a small direct-mapped table keyed
// by the type's address, so the common call (a pointer, a small version)
// costs an atomic load and a plain one before the plan runs.
var (
	rootCache sync.Map // reflect.Type (a pointer type) -> *rootPlans
	hotRoots  [256]atomic.Pointer[rootPlans]
)

// rootPlans is one message type's plans by version. It never changes once
// published: rememberRootPlan replaces it whole to add a plan, so readers
// load the plans without atomics.
type rootPlans struct {
	typ   goType // the runtime type of the pointer-to-message
	plans [64]*plan
}

// noRootPlans fills the hotRoots slots no type has taken yet, so a lookup
// need not test for nil: its type matches only a nil interface, whose nil
// data pointer then fails.
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
// pointer when msg is a non-nil pointer whose plan sits in hotRoots, else
// (nil, nil). It is small enough to be inlined into every entry point.
func cachedRootPlan(msg any, version int16) (*plan, pointer) {
	e := interfaceOf(&msg)
	r := hotSlot(e.typ).Load()
	if r.typ == e.typ && !e.data.isNil() && uint16(version) < uint16(len(r.plans)) {
		return r.plans[version], e.data
	}
	return nil, pointer{}
}

// lookupRootPlan is cachedRootPlan behind a miss in hotRoots: it finds
// msg's plans in rootCache and puts them in hotRoots.
func lookupRootPlan(msg any, version int16) (*plan, pointer) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		return pl, p
	}
	if version < 0 || version >= 64 {
		return nil, pointer{}
	}
	e := interfaceOf(&msg)
	if e.data.isNil() {
		return nil, pointer{}
	}
	v, ok := rootCache.Load(reflect.TypeOf(msg))
	if !ok {
		return nil, pointer{}
	}
	r := v.(*rootPlans)
	hotSlot(e.typ).Store(r)
	return r.plans[version], e.data
}

// rememberRootPlan adds pl, the plan of t at version, to rootCache: a new
// rootPlans with the plans already known and pl, swapped in for the old
// one (and in hotRoots, if it sits there).
func rememberRootPlan(t reflect.Type, version int16, pl *plan) {
	if version < 0 || version >= 64 || t.Kind() != reflect.Pointer {
		return
	}
	var zero any = reflect.Zero(t).Interface()
	typ := interfaceOf(&zero).typ
	for {
		next := &rootPlans{typ: typ}
		old, known := rootCache.Load(t)
		if known {
			next.plans = old.(*rootPlans).plans
		}
		next.plans[version] = pl
		if !known {
			if _, taken := rootCache.LoadOrStore(t, next); taken {
				continue // another goroutine stored first: add to its plans
			}
			return
		}
		if rootCache.CompareAndSwap(t, old, next) {
			hotSlot(typ).CompareAndSwap(old.(*rootPlans), next)
			return
		}
	}
}

// rootPlan is the plan of a top-level message: the version must be valid
// for it, and its own flexible versions decide the encoding.
func rootPlan(t reflect.Type, version int16, opName string) (*plan, error) {
	if err := validType(t); err != nil {
		return nil, err
	}
	ti := infoFor(t)
	if !ti.msg.versions.Contains(version) {
		return nil, &public.Error{Op: opName, Type: t.String(), Offset: -1, Err: public.ErrUnsupportedVersion,
			Detail: fmt.Sprintf("version %d, valid %s", version, ti.msg.versions)}
	}
	pl, err := planFor(t, version, ti.msg.flexible.Contains(version))
	if err != nil {
		return nil, publicSpecError(t, err)
	}
	return pl, nil
}
