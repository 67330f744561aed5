package iosem

import (
	"strings"
	"sync"
)

// streamTypes maps C++ stream class names, without std:: and template
// arguments, to the access they allow. String streams are absent: they do
// no I/O.
var streamTypes = sync.OnceValue(func() map[string]Mode {
	return map[string]Mode{
		"ofstream": ModeWrite, "ifstream": ModeRead, "fstream": ModeReadWrite,
		"basic_ofstream": ModeWrite, "basic_ifstream": ModeRead, "basic_fstream": ModeReadWrite,
		"wofstream": ModeWrite, "wifstream": ModeRead, "wfstream": ModeReadWrite,
		"ostream": ModeWrite, "istream": ModeRead, "iostream": ModeReadWrite,
	}
})

// StreamType reports whether typeName is a C++ file stream type
// (std::ofstream, std::ifstream, std::fstream, std::ostream&...), and the
// access it allows.
func StreamType(typeName string) (Mode, bool) {
	m, ok := streamTypes()[className(typeName)]
	return m, ok
}

// className returns a C++ type name without const, std:: and its template
// arguments, references and pointers ("const std::ofstream&": ofstream).
func className(typeName string) string {
	n := strings.TrimSpace(typeName)
	n = strings.TrimPrefix(n, "const ")
	n = strings.TrimPrefix(strings.TrimPrefix(n, "::"), "std::")
	if i := strings.IndexAny(n, "<&* "); i >= 0 {
		n = n[:i]
	}
	return n
}

// IsStringStream reports whether typeName is a C++ string stream type
// (std::istringstream, std::ostringstream, std::stringstream, their wide
// and basic_ forms): streams over memory, whose operations are compute.
func IsStringStream(typeName string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(className(typeName), "basic_"), "w") {
	case "istringstream", "ostringstream", "stringstream", "ispanstream", "ospanstream", "spanstream":
		return true
	}
	return false
}

// StandardStream tells whether name is one of the standard stream objects
// and which: Stdout for std::cout, std::cerr and std::clog, Stdin for
// std::cin.
func StandardStream(name string) (FileKind, bool) {
	switch strings.TrimPrefix(strings.TrimPrefix(name, "::"), "std::") {
	case "cout", "cerr", "clog", "wcout", "wcerr":
		return Stdout, true
	case "cin", "wcin":
		return Stdin, true
	}
	return NoFile, false
}

// IsFlushManipulator reports whether name is a stream manipulator that
// flushes (std::endl, std::flush).
func IsFlushManipulator(name string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(name, "::"), "std::") {
	case "endl", "flush":
		return true
	}
	return false
}

// IsStateManipulator reports whether name is a stream manipulator that
// only sets the stream's formatting state (std::setw, std::fixed,
// std::hex...) or skips white space on input (std::ws): it moves no
// data and converts nothing.
func IsStateManipulator(name string) bool {
	switch strings.TrimPrefix(strings.TrimPrefix(name, "::"), "std::") {
	case "setw", "setprecision", "setfill", "setbase", "setiosflags", "resetiosflags",
		"left", "right", "internal", "fixed", "scientific", "hexfloat", "defaultfloat",
		"hex", "dec", "oct", "boolalpha", "noboolalpha", "showpoint", "noshowpoint",
		"showpos", "noshowpos", "showbase", "noshowbase", "uppercase", "nouppercase",
		"skipws", "noskipws", "unitbuf", "nounitbuf", "ws":
		return true
	}
	return false
}

// streamMethods are the member functions and operators of file streams.
// The stream is the receiver; argument indices are those of the call.
var streamMethods = sync.OnceValue(func() map[string]Semantics {
	return map[string]Semantics{
		"open":       sem(Stream, Open, name(0), mode(1), defMode(ModeRead)),
		"close":      sem(Stream, Close, receiver),
		"write":      sem(Stream, Write, receiver, bytes(1, -1, 0)),
		"read":       sem(Stream, Read, receiver, bytes(1, -1, 0)),
		"put":        sem(Stream, Write, receiver, char, formatted),
		"get":        sem(Stream, Read, receiver, char, formatted),
		"getline":    sem(Stream, Read, receiver, bytes(1, -1, 0), formatted),
		"flush":      sem(Stream, Flush, receiver),
		"seekg":      sem(Stream, Seek, receiver, offset(0), whence(1)),
		"seekp":      sem(Stream, Seek, receiver, offset(0), whence(1)),
		"tellg":      sem(Stream, Seek, receiver),
		"tellp":      sem(Stream, Seek, receiver),
		"operator<<": sem(Stream, Write, receiver, items, formatted),
		"operator>>": sem(Stream, Read, receiver, items, formatted),
	}
})

// Method returns the semantics of the member function or operator method
// called on a file stream: "write", "seekg", "operator<<" (also spelt
// "<<")... For the operators the items are the call's arguments other
// than the stream.
func Method(method string) (Semantics, bool) {
	if method == "<<" || method == ">>" {
		method = "operator" + method
	}
	s, ok := streamMethods()[method]
	if ok {
		s.Routine = method
	}
	return s, ok
}

// StreamOpenMode returns the mode a C++ file stream whose type allows def
// (StreamType) opens a file with, given the mode flags passed to its
// constructor or open, when explicit. An ofstream always adds out and an
// ifstream in; an fstream takes the flags as they are. A stream opened for
// output, without in or app, truncates the file (or creates it).
func StreamOpenMode(def, flags Mode, explicit bool) Mode {
	m := def
	if explicit {
		m = flags
		if def != ModeReadWrite {
			m |= def
		}
	}
	if m&ModeWrite != 0 && m&(ModeRead|ModeAppend) == 0 {
		m |= ModeCreate
	}
	return m
}
