package kwire

import (
	"reflect"
	"unsafe"
)

// The decoder allocates through the runtime's entry points for reflect,
// which the runtime keeps for codecs (go.dev/issue/67401): a zeroed value
// or array of a type known by its runtime type, without building a
// reflect.Value or putting a slice header on the heap.

//go:linkname unsafeNew reflect.unsafe_New
func unsafeNew(typ unsafe.Pointer) unsafe.Pointer

//go:linkname unsafeNewArray reflect.unsafe_NewArray
func unsafeNewArray(typ unsafe.Pointer, n int) unsafe.Pointer

// runtimeType is the runtime type behind t, as those entry points take it.
func runtimeType(t reflect.Type) unsafe.Pointer {
	return (*eface)(unsafe.Pointer(&t)).data // an interface's second word
}
