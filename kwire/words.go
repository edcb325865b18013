package kwire

import (
	"fmt"
	"unsafe"
)

// The engine reads and writes Go strings, slices and interfaces through
// unsafe, so it needs their layout: a pointer word, then int words. The
// sizes and offsets below come from types of that layout, and checkLayout
// holds them to the runtime's own values once at start-up, so that no
// offset inside a Go value is a literal that holds on one word size only.

// sliceHeader is the runtime layout of any Go slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// stringHeader is the runtime layout of a Go string.
type stringHeader struct {
	data unsafe.Pointer
	len  int
}

const (
	ptrSize = unsafe.Sizeof(unsafe.Pointer(nil)) // a pointer word
	intSize = unsafe.Sizeof(int(0))              // a length word

	stringLenOff = unsafe.Offsetof(stringHeader{}.len)
	sliceLenOff  = unsafe.Offsetof(sliceHeader{}.len)
	sliceCapOff  = unsafe.Offsetof(sliceHeader{}.cap)
)

func init() {
	if err := checkLayout(); err != nil {
		panic(err)
	}
}

// checkLayout compares the header types above with real strings, slices
// and interfaces.
func checkLayout() error {
	s := "layout"
	sh := (*stringHeader)(unsafe.Pointer(&s))
	b := make([]byte, 3, 5)
	bh := (*sliceHeader)(unsafe.Pointer(&b))
	x := new(int)
	var i any = x
	ih := (*eface)(unsafe.Pointer(&i))
	switch {
	case unsafe.Sizeof(s) != unsafe.Sizeof(stringHeader{}) || sh.data != unsafe.Pointer(unsafe.StringData(s)) || sh.len != len(s):
		return fmt.Errorf("kwire: a string is not laid out as stringHeader (%d bytes)", unsafe.Sizeof(s))
	case unsafe.Sizeof(b) != unsafe.Sizeof(sliceHeader{}) || bh.data != unsafe.Pointer(unsafe.SliceData(b)) || bh.len != len(b) || bh.cap != cap(b):
		return fmt.Errorf("kwire: a slice is not laid out as sliceHeader (%d bytes)", unsafe.Sizeof(b))
	case unsafe.Sizeof(i) != unsafe.Sizeof(eface{}) || ih.data != unsafe.Pointer(x):
		return fmt.Errorf("kwire: an interface is not laid out as eface (%d bytes)", unsafe.Sizeof(i))
	}
	return nil
}
