C     Fortran fixed-form formatted I/O: TABLE computes NROWS rows of NCOLS
C     values, WRTAB writes them with a formatted WRITE per row, RDTAB reads
C     them back with formatted READs and sums them.
C     Usage: ftn_formatted DIR
      PROGRAM FTNFMT
      IMPLICIT NONE
      INTEGER NROWS, NCOLS
      PARAMETER (NROWS = 40000, NCOLS = 6)
      DOUBLE PRECISION A(NCOLS, NROWS), TOTAL
      CHARACTER*4096 DIR, PATH
      CALL GET_COMMAND_ARGUMENT(1, DIR)
      PATH = TRIM(DIR) // '/table.txt'
      CALL TABLE(A, NCOLS, NROWS)
      CALL WRTAB(PATH, A, NCOLS, NROWS)
      CALL RDTAB(PATH, A, NCOLS, NROWS, TOTAL)
      PRINT '(F20.4)', TOTAL
      END

      SUBROUTINE TABLE(A, NC, NR)
      IMPLICIT NONE
      INTEGER NC, NR, I, J
      DOUBLE PRECISION A(NC, NR)
      DO 20 J = 1, NR
         DO 10 I = 1, NC
            A(I, J) = DSQRT(DBLE(I * J))
   10    CONTINUE
   20 CONTINUE
      END

      SUBROUTINE WRTAB(PATH, A, NC, NR)
      IMPLICIT NONE
      CHARACTER*(*) PATH
      INTEGER NC, NR, J
      DOUBLE PRECISION A(NC, NR)
      OPEN(UNIT=11, FILE=TRIM(PATH), STATUS='REPLACE', FORM='FORMATTED')
      DO 30 J = 1, NR
         WRITE(11, '(6F14.6)') A(:, J)
   30 CONTINUE
      CLOSE(11)
      END

      SUBROUTINE RDTAB(PATH, A, NC, NR, TOTAL)
      IMPLICIT NONE
      CHARACTER*(*) PATH
      INTEGER NC, NR, J
      DOUBLE PRECISION A(NC, NR), TOTAL
      TOTAL = 0D0
      OPEN(UNIT=12, FILE=TRIM(PATH), STATUS='OLD', FORM='FORMATTED')
      DO 40 J = 1, NR
         READ(12, '(6F14.6)') A(:, J)
         TOTAL = TOTAL + SUM(A(:, J))
   40 CONTINUE
      CLOSE(12)
      END
