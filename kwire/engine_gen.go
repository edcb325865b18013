package kwire

// The hot loops (sizeStruct, encodeStruct, decodeStruct) and the length
// functions are generated from the wire forms' description.
//go:generate go run ./internal/genforms -out engine_codec_gen.go
