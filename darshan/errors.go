package darshan

import (
	"errors"
	"fmt"
)

// Sentinel errors, wrapped by the errors this package returns; test them
// with errors.Is.
var (
	// ErrNotDarshan: the file does not start with a Darshan header.
	ErrNotDarshan = errors.New("not a Darshan log")
	// ErrVersion: the log format version is not one this package reads.
	ErrVersion = errors.New("unsupported log format version")
	// ErrTruncated: the file ends before data its header points to.
	ErrTruncated = errors.New("truncated")
	// ErrCorrupt: data is present but malformed.
	ErrCorrupt = errors.New("corrupt data")
	// ErrModuleVersion: a module region has a record version this package does not read.
	ErrModuleVersion = errors.New("unsupported module version")
	// ErrUnknownModule: the module id is not one this package knows.
	ErrUnknownModule = errors.New("unknown module")
)

// FormatError reports a problem at a place in a log: which file, which part
// of it (header, job, names, or a module), and what is wrong.
type FormatError struct {
	File   string // log file name, if known
	Part   string // "header", "job region", "name region", "module POSIX", ...
	Offset int64  // byte offset in the decompressed part, or -1
	Err    error  // what is wrong; wraps one of the sentinel errors
}

func (e *FormatError) Error() string {
	s := "darshan: "
	if e.File != "" {
		s += e.File + ": "
	}
	s += e.Part
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at byte %d", e.Offset)
	}
	return s + ": " + e.Err.Error()
}

func (e *FormatError) Unwrap() error { return e.Err }

// errorf builds the error wrapped by a FormatError: the sentinel kind
// followed by a formatted detail.
func errorf(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{kind}, args...)...)
}
