package kerr

import (
	"reflect"
	"strings"

	"github.com/kwirelabs/kwire/kwire"
)

// FieldCode is a non-zero error code found in a message, with where it
// sits.
type FieldCode struct {
	Path string // such as Topics[2].Partitions[0].ErrorCode
	Code Code
}

// String is "Topics[2].Partitions[0].ErrorCode = NOT_LEADER_OR_FOLLOWER".
func (f FieldCode) String() string { return f.Path + " = " + f.Code.Name() }

// IsErrorCodeField reports whether a field holds a Kafka error code: an
// int16 whose name ends in ErrorCode (ErrorCode, PartitionErrorCode,
// AcknowledgeErrorCode, TopicConfigErrorCode in Kafka's schemas).
func IsErrorCodeField(f *kwire.Field) bool {
	return f.Type.Kind() == reflect.Int16 && strings.HasSuffix(f.Name, "ErrorCode")
}

// Find returns every non-zero error code in msg at version, in wire order,
// looking through nested structs and arrays. It works on any kwire message
// struct; see IsErrorCodeField for which fields count.
func Find(msg any, version int16) ([]FieldCode, error) {
	var found []FieldCode
	err := kwire.Walk(msg, version, func(path *kwire.Path, f *kwire.Field, v reflect.Value) error {
		if IsErrorCodeField(f) && v.Int() != 0 {
			found = append(found, FieldCode{Path: path.String(), Code: Code(v.Int())})
		}
		return nil
	})
	return found, err
}
