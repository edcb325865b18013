package kwire

// Node is one piece of an encoded message as Layout shows it: where it
// sits in the bytes, how long it is, its wire type and its value. The
// engine's trace builds it; package kwire copies it into its own Node,
// which formats it.
type Node struct {
	Name     string
	Type     string
	Value    string // empty for containers
	Offset   int
	Size     int
	Children []*Node
}
