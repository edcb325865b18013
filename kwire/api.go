package kwire

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Marshal encodes the body of msg (a struct or a pointer to one) at the
// given version.
func Marshal(msg any, version int16) ([]byte, error) {
	pl, p, err := messagePlan(msg, version, "marshal", readValue)
	if err != nil {
		return nil, err
	}
	n, err := sizeStruct(pl, p) // fails where encodeStruct would: the same error
	if err != nil {
		return nil, marshalError(pl, err)
	}
	out, err := encodeStruct(make([]byte, 0, n), pl, p)
	if err != nil {
		return nil, marshalError(pl, err)
	}
	return out, nil
}

// Append appends the body of msg at the given version to dst. Encoding
// into a buffer with room allocates nothing when msg is a pointer.
func Append(dst []byte, msg any, version int16) ([]byte, error) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		out, err := encodeStruct(dst, pl, p)
		if err != nil {
			return dst, marshalError(pl, err)
		}
		return out, nil
	}
	return appendSlow(dst, msg, version)
}

// appendSlow is Append for a message whose plan is not in hotRoots.
func appendSlow(dst []byte, msg any, version int16) ([]byte, error) {
	pl, p, err := messagePlanSlow(msg, version, "marshal", readValue)
	if err != nil {
		return dst, err
	}
	out, err := encodeStruct(dst, pl, p)
	if err != nil {
		return dst, marshalError(pl, err)
	}
	return out, nil
}

// marshalError is the *Error an encode of a message of plan pl returns.
func marshalError(pl *plan, err error) error {
	return publicError("marshal", pl.typ.String(), err)
}

// Size is the number of bytes Marshal would produce.
func Size(msg any, version int16) (int, error) {
	pl, p, err := messagePlan(msg, version, "size", readValue)
	if err != nil {
		return 0, err
	}
	n, err := sizeStruct(pl, p)
	if err != nil {
		return 0, publicError("size", pl.typ.String(), err)
	}
	return n, nil
}

// Unmarshal decodes a message body into msg, a pointer to a struct, which
// is reset first. Fields the version lacks, and tagged fields that are not
// sent, get their schema defaults. Bytes left over are an error. Strings
// do not alias data; records fields do. It is Decoder{}.Unmarshal.
func Unmarshal(data []byte, msg any, version int16) error {
	return Decoder{}.Unmarshal(data, msg, version)
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
	typ   unsafe.Pointer // the runtime type of the pointer-to-message
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

type eface struct{ typ, data unsafe.Pointer }

func hotSlot(typ unsafe.Pointer) *atomic.Pointer[rootPlans] {
	return &hotRoots[(uintptr(typ)>>5)%uintptr(len(hotRoots))]
}

// cachedRootPlan returns the plan of msg at version and msg's data
// pointer when msg is a non-nil pointer whose plan sits in hotRoots, else
// (nil, nil). It is small enough to be inlined into every entry point.
func cachedRootPlan(msg any, version int16) (*plan, unsafe.Pointer) {
	e := (*eface)(unsafe.Pointer(&msg))
	r := hotSlot(e.typ).Load()
	if r.typ == e.typ && e.data != nil && uint16(version) < uint16(len(r.plans)) {
		return r.plans[version], e.data
	}
	return nil, nil
}

// lookupRootPlan is cachedRootPlan behind a miss in hotRoots: it finds
// msg's plans in rootCache and puts them in hotRoots.
func lookupRootPlan(msg any, version int16) (*plan, unsafe.Pointer) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		return pl, p
	}
	if version < 0 || version >= 64 {
		return nil, nil
	}
	e := (*eface)(unsafe.Pointer(&msg))
	if e.data == nil {
		return nil, nil
	}
	v, ok := rootCache.Load(reflect.TypeOf(msg))
	if !ok {
		return nil, nil
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
	typ := (*eface)(unsafe.Pointer(&zero)).typ
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
func rootPlan(t reflect.Type, version int16, op string) (*plan, error) {
	if err := validType(t); err != nil {
		return nil, err
	}
	ti := infoFor(t)
	if !ti.msg.versions.Contains(version) {
		return nil, &Error{Op: op, Type: t.String(), Offset: -1, Err: ErrUnsupportedVersion,
			Detail: fmt.Sprintf("version %d, valid %s", version, ti.msg.versions)}
	}
	pl, err := planFor(t, version, ti.msg.flexible.Contains(version))
	if err != nil {
		return nil, publicSpecError(t, err)
	}
	return pl, nil
}

// MessageInfo is what a message struct's `_ struct{}` tag declares.
type MessageInfo struct {
	APIKey   int16 // -1 when the struct names no API
	Versions VersionRange
	Flexible VersionRange
}

// Describe returns the message facts of msg's type (a struct, a pointer to
// one, or a reflect.Type of either), or an error if its tags are invalid
// at any version it declares (see Validate).
func Describe(msg any) (MessageInfo, error) {
	t, _, err := messageOf(msg, "plan", typeOnly)
	if err != nil {
		return MessageInfo{}, err
	}
	if err := validType(t); err != nil {
		return MessageInfo{}, err
	}
	ti := infoFor(t)
	return MessageInfo{APIKey: ti.msg.apiKey, Versions: ti.msg.versions, Flexible: ti.msg.flexible}, nil
}
