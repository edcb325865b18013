package kwire

// RandomOptions bounds FillRandom.
type RandomOptions struct {
	MaxLen   int // longest array, string or byte slice; 0 means 8
	MaxDepth int // deepest nesting of structs before arrays stay empty; 0 means 4
}
