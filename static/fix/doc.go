// Package fix turns the causes found by the static analysis into source
// patches: edits of the source text at the positions the IR gives, rendered
// as a unified diff that patch -p1 and git apply accept.
//
// A fix is made only when the code to change is located exactly: the call
// of the cause on its line, the statement boundaries around it, the
// variables it uses and where they are opened. Anything less certain is
// skipped with a reason (see Patch.Skipped), never guessed.
//
// The patterns (Pattern* constants):
//   - setvbuf: a 1 MiB fully buffered stdio buffer right after the fopen
//     of a stream with small reads or writes in a loop, freed after its
//     fclose;
//   - flush-after-loop: fflush, fsync or fdatasync (C) or FLUSH (Fortran)
//     executed in every iteration moved after the loop;
//   - endl: std::endl in a loop replaced by '\n';
//   - fadvise: posix_fadvise(POSIX_FADV_SEQUENTIAL) after the open of a
//     descriptor read sequentially in a loop;
//   - coalesce-writes: the small write()s of a descriptor in a loop kept
//     in a 64 KiB buffer, written out when it fills and after the loop;
//   - collective-mpiio, collective-hdf5, collective-pnetcdf: independent
//     accesses made collective when every process makes them.
package fix
