package engine

// The hot loops (sizeStruct, encodeStruct, decodeStruct) and the length
// functions are generated from the wire forms' description.
//go:generate go run ./genforms -out codec_gen.go
