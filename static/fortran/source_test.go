package fortran

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/iolens/iolens/static/ir"
)

func statements(src string, form Form) []stmt {
	phys, _ := preprocess(splitLines([]byte(src)))
	if form == Fixed {
		return joinFixed(phys)
	}
	return joinFree(phys)
}

func TestFreeFormStatements(t *testing.T) {
	src := strings.Join([]string{
		"! a comment line",
		"x = 1 ; y = 2  ! two statements",
		"call foo(a, &   ! continued",
		"",
		"   ! comment between continuation lines",
		"         b)",
		"s = 'don''t ! stop' // &",
		"  & \"x;y\"",
		"msg = 'a long &",
		"      &string'",
		"10 continue",
		"z = lon&",
		"     &gname",
		"\tw = 3\r",
	}, "\n")
	want := []stmt{
		{line: 2, text: "x = 1"},
		{line: 2, text: "y = 2"},
		{line: 3, text: "call foo(a, b)"},
		{line: 7, text: `s = 'don''t ! stop' //  "x;y"`},
		{line: 9, text: "msg = 'a long string'"},
		{line: 11, label: "10", text: "continue"},
		{line: 12, text: "z = longname"},
		{line: 14, text: "w = 3"},
	}
	if diff := cmp.Diff(want, statements(src, Free), cmp.AllowUnexported(stmt{})); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}

func TestFixedFormStatements(t *testing.T) {
	seq := "      X = 1" + strings.Repeat(" ", 61) + "SEQ00010"
	src := strings.Join([]string{
		"C comment",
		"c comment",
		"* comment",
		"! comment",
		"D    PRINT *, 'debug line'",
		"",
		"      PROGRAM P",
		"  100 FORMAT(I5)",
		seq,
		"      CALL FOO(A,",
		"     &         B,",
		"     1         C)",
		"\tY = 2",
		"10\tZ = 3",
		"\t1 + 4",
		"      S = 'IT''S'   ! trailing comment",
		"      A = 1; B = 2",
		" 0010 CONTINUE",
		"      END",
	}, "\n")
	want := []stmt{
		{line: 7, text: "PROGRAM P"},
		{line: 8, label: "100", text: "FORMAT(I5)"},
		{line: 9, text: "X = 1"},
		{line: 10, text: "CALL FOO(A,         B,         C)"},
		{line: 13, text: "Y = 2"},
		{line: 14, label: "10", text: "Z = 3 + 4"},
		{line: 16, text: "S = 'IT''S'"},
		{line: 17, text: "A = 1"},
		{line: 17, text: "B = 2"},
		{line: 18, label: "10", text: "CONTINUE"},
		{line: 19, text: "END"},
	}
	if diff := cmp.Diff(want, statements(src, Fixed), cmp.AllowUnexported(stmt{})); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}

func TestPreprocessor(t *testing.T) {
	src := `#include "mpif.h"
#define NX 100
#define NY (2*NX)
#define PI 3.14159d0
#define NAME "grid"
#define F(x) ((x)+1)
#define EMPTY
#define LONG 1 + \
  2
program p
#ifdef USE_MPI
  call mpi_init(ierr)
#elif defined(OPENMP)
  call omp_init()
#else
  call serial_init()
#endif
#if 0
  call never()
#define NEVER 1
#else
  call instead()
#endif
#ifndef X
#  if 0
  call nested_never()
#  endif
  call kept()
#endif
end program p
`
	f, err := ParseForm("pp.F90", []byte(src), Free)
	if err != nil || len(f.Errors) > 0 {
		t.Fatalf("Parse: %v %v", err, f.Errors)
	}
	wantConsts := map[string]ir.Expr{
		"nx": num(100), "ny": bin("*", num(2), ref("nx")), "pi": flt(3.14159), "name": str("grid"),
		"long": bin("+", num(1), num(2)),
	}
	if diff := cmp.Diff(wantConsts, f.Consts); diff != "" {
		t.Errorf("Consts (-want +got):\n%s", diff)
	}
	at := func(line int) ir.Pos { return ir.Pos{File: "pp.F90", Line: line} }
	want := ir.Block{
		&ir.Call{Pos: at(12), Callee: "mpi_init", Args: []ir.Expr{ref("ierr")}},
		&ir.Call{Pos: at(22), Callee: "instead", Args: []ir.Expr{}},
		&ir.Call{Pos: at(28), Callee: "kept", Args: []ir.Expr{}},
	}
	if diff := cmp.Diff(want, fn(t, f, "p").Body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestFormOf(t *testing.T) {
	for path, want := range map[string]Form{
		"a.f": Fixed, "a.F": Fixed, "a.for": Fixed, "a.FOR": Fixed, "a.ftn": Fixed, "a.f77": Fixed,
		"a.f90": Free, "a.F90": Free, "a.f95": Free, "a.f03": Free, "a.f08": Free, "dir.f/a.f18": Free,
	} {
		if got := FormOf(path); got != want {
			t.Errorf("FormOf(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestNotText(t *testing.T) {
	_, err := Parse("a.out", []byte("\x7fELF\x02\x01\x01\x00\x00"))
	if !errors.Is(err, ErrNotText) {
		t.Errorf("Parse(binary) error = %v, want ErrNotText", err)
	}
	f, err := Parse("empty.f90", nil)
	if err != nil || len(f.Funcs) != 0 || f.Lines != 0 {
		t.Errorf("Parse(empty) = %+v, %v", f, err)
	}
}

// TestRecovery checks that unparseable statements are reported with their
// lines and skipped, that missing and stray ENDs are reported, and that
// what follows is still parsed.
func TestRecovery(t *testing.T) {
	src := `subroutine broken
  x = = 1
  call foo(
  if (x > 1) then
    y = 2
  end do
  do i = 1, 10
    y = y + 1
end subroutine broken
module m
  integer :: ok
  interface
    subroutine ext(a)
      real :: a
    end subroutine
  end interface
  type :: t
    integer :: k
  contains
    procedure :: show
  end type t
end module m
subroutine after
  print *, 'still parsed'
  end if
  frobnicate the widget
end
`
	f, err := Parse("broken.f90", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.Errors {
		got = append(got, e.Error())
	}
	want := []string{
		`broken.f90:2: expected an expression, found "="`,
		`broken.f90:3: expected an expression, found end of statement`,
		`broken.f90:6: missing END IF`,
		`broken.f90:6: "end do" without an open construct`,
		`broken.f90:9: missing END DO`,
		`broken.f90:25: "end if" without an open construct`,
		`broken.f90:26: unrecognised statement frobnicate`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	var names []string
	for _, fn := range f.Funcs {
		names = append(names, fn.Name)
	}
	if diff := cmp.Diff([]string{"broken", "after"}, names); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}
	if len(f.Globals) != 1 || f.Globals[0].Name != "ok" {
		t.Errorf("globals: %s", dump(f))
	}
	after := fn(t, f, "after")
	if len(after.Body) != 1 || after.EndLine != 27 {
		t.Errorf("after: %s", dump(f))
	}
}

// TestKitchenSink parses a preprocessed file using many constructs at
// once without errors.
func TestKitchenSink(t *testing.T) {
	f := parseFile(t, "testdata/misc.F90")
	var names []string
	for _, fn := range f.Funcs {
		names = append(names, fn.Name)
	}
	if diff := cmp.Diff([]string{"fact", "work", "after"}, names); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}
	sizes := map[string]int64{}
	for _, v := range f.Globals {
		sizes[v.Name] = v.Type.Size
	}
	want := map[string]int64{"z": 16, "zs": 8, "zd": 16, "big": 8, "r8": 8, "c10": 10, "c1": 1,
		"buf": 4096, "flag": 1, "cells": 0, "ptr": 4}
	if diff := cmp.Diff(want, sizes); diff != "" {
		t.Errorf("global sizes (-want +got):\n%s", diff)
	}
}
