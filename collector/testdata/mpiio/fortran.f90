! MPI-IO from Fortran (collector/mpiio_test.go): the bindings of some MPI
! libraries call the PMPI_ entry points. Usage: fortran DIR. Every rank r
! writes DIR/fortran.<r>.dat, opened on MPI_COMM_SELF
! (MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL), with 4 write_at of
! 1000 bytes at 0, 1000, 2000, 3000, then closes it.
program fortran
  use mpi
  implicit none
  integer :: ierr, rank, fh, i
  integer(kind=MPI_OFFSET_KIND) :: off
  integer :: status(MPI_STATUS_SIZE)
  character(len=4096) :: dir, path
  character(len=1) :: buf(1000)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, dir)
  write (path, '(A,A,I0,A)') trim(dir), '/fortran.', rank, '.dat'
  call MPI_File_open(MPI_COMM_SELF, trim(path), MPI_MODE_CREATE + MPI_MODE_WRONLY, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  buf = 'x'
  do i = 0, 3
    off = i * 1000
    call MPI_File_write_at(fh, off, buf, 1000, MPI_BYTE, status, ierr)
    if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end do
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program fortran
