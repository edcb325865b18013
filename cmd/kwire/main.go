// Command kwire is kwire's command-line tool: it shows the byte layout of
// any Kafka message, lists the APIs, and generates tagged structs from
// Kafka's JSON schemas.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: kwire <command> [arguments]

commands:
  layout NAME [-v VERSION]          the smallest legal frame of a request or
  layout -k KEY [-response] [-v N]  response: hex dump and object tree
  apis                              every API: key, name, versions, flexible from
  gen -schemas DIR[,DIR] -out DIR -package NAME
                                    tagged structs from Kafka JSON schemas`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kwire:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	switch args[0] {
	case "layout":
		return runLayout(args[1:], out)
	case "apis":
		return runAPIs(out)
	case "gen":
		return runGen(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(out, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q (try kwire help)", args[0])
}
