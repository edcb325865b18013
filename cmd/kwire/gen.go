package main

import (
	"os"

	"github.com/kwirelabs/kwire/gen"
)

// runGen implements `kwire gen`: message structs from Kafka JSON schemas,
// or (-extract) the schemas' facts for keeping in a repository.
func runGen(args []string) error { return gen.Command(args, os.Stderr) }
