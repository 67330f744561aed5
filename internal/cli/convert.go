package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/iolens/iolens/darshan"
	"github.com/spf13/cobra"
)

// compressionFlag is the value of --compress.
type compressionFlag struct{ c darshan.Compression }

var compressionNames = []struct {
	name string
	c    darshan.Compression
}{{"zlib", darshan.CompressZlib}, {"none", darshan.CompressNone}, {"bzip2", darshan.CompressBzip2}}

func (f *compressionFlag) String() string {
	for _, n := range compressionNames {
		if n.c == f.c {
			return n.name
		}
	}
	return f.c.String()
}

func (f *compressionFlag) Set(s string) error {
	var names []string
	for _, n := range compressionNames {
		if strings.EqualFold(s, n.name) {
			f.c = n.c
			return nil
		}
		names = append(names, n.name)
	}
	return fmt.Errorf("unknown compression %q (want %s)", s, strings.Join(names, ", "))
}

func (f *compressionFlag) Type() string { return "method" }

func newConvertCmd(e *env) *cobra.Command {
	comp := compressionFlag{darshan.CompressZlib}
	cmd := &cobra.Command{
		Use:   "convert [flags] IN OUT",
		Short: "Rewrite a Darshan log in the current format (3.41)",
		Long: `Convert reads the Darshan log IN, of any supported format version, and
writes it to OUT in format 3.41 with the chosen compression. The records
and the job are kept; record ids are kept. OUT is written to a temporary
file beside it and renamed into place only when complete, so a failed
conversion never leaves a partial OUT. OUT gets the permissions of IN.`,
		Example: `  iolens convert old-3.10.darshan new.darshan
  iolens convert --compress none app.darshan app-raw.darshan`,
		Args: exactArgs("IN", "OUT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConvert(args[0], args[1], comp.c)
		},
	}
	cmd.Flags().Var(&comp, "compress", "compression of the output: zlib, none or bzip2")
	return cmd
}

func runConvert(in, out string, c darshan.Compression) (err error) {
	if same, err := samePath(in, out); err != nil {
		return err
	} else if same {
		return usagef("IN and OUT are the same file (%s)", in)
	}
	l, err := darshan.OpenFile(in)
	if err != nil {
		return err
	}
	defer l.Close()
	st, err := os.Stat(in)
	if err != nil {
		return err
	}

	return writeAtomically(out, st.Mode().Perm(), func(f *os.File) error {
		if err := darshan.Convert(f, l, darshan.WriterOptions{Compression: c}); err != nil {
			return fmt.Errorf("converting %s: %w", in, err)
		}
		return nil
	})
}

// writeAtomically writes path through a temporary file in its directory,
// given mode perm and renamed into place once complete and synced: a
// failure leaves no partial file.
func writeAtomically(path string, perm os.FileMode, write func(*os.File) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	for _, step := range []func() error{func() error { return tmp.Chmod(perm) }, tmp.Sync, tmp.Close} {
		if err := step(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// samePath reports whether in and out name the same file: the same path
// once cleaned, or (when out exists) the same inode.
func samePath(in, out string) (bool, error) {
	ai, err := filepath.Abs(in)
	if err != nil {
		return false, err
	}
	ao, err := filepath.Abs(out)
	if err != nil {
		return false, err
	}
	if ai == ao {
		return true, nil
	}
	si, err1 := os.Stat(in)
	so, err2 := os.Stat(out)
	if err1 != nil || err2 != nil {
		if err2 != nil && !errors.Is(err2, os.ErrNotExist) {
			return false, fmt.Errorf("checking %s: %w", out, err2)
		}
		return false, nil
	}
	return os.SameFile(si, so), nil
}
