C     HEAT77 - explicit 2-D heat solver with direct-access dumps
C     (fixed form, FORTRAN 77 style)
      PROGRAM HEAT77
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      PARAMETER (NX = 64, NY = 32, NSTEP = 100)
      PARAMETER (LREC = 8*NX*NY)
      DIMENSION T(NX,NY), TNEW(0:NX+1, NY)
      COMMON /GRID/ DX, DY, NCELLS
      INTEGER IREC
      CHARACTER*32 FNAME
*     initialise the grid
      DX = 1.0D0/NX
      DY = 1.D0 / DBLE(NY)
      DO 10 J = 1, NY
         DO 10 I = 1, NX
            T(I,J) = 0.0D0
   10 CONTINUE
      FNAME = 'heat.dat'
      OPEN(UNIT=11, FILE=FNAME, ACCESS='DIRECT', FORM='UNFORMATTED',
     &     RECL=LREC, STATUS='REPLACE')
      IREC = 0                                                          HEAT0100
      DO 100 ISTEP = 1, NSTEP
         CALL STEP(T, TNEW, NX, NY)
         IF (MOD(ISTEP, 10) .EQ. 0) THEN
            IREC = IREC + 1
            WRITE(11, REC=IREC) ((T(I,J), I=1,NX), J=1,NY)
            WRITE(6, 900) ISTEP, TSUM(T, NX*NY)
         ENDIF
  100 CONTINUE
      CLOSE(11)
  900 FORMAT(1X, 'step ', I6, ' sum ', E12.5)
      END
C
c     one Jacobi sweep
      SUBROUTINE STEP(T, TNEW, NX, NY)
      DOUBLE PRECISION T(NX,NY), TNEW(0:NX+1,NY)
      INTEGER NX, NY
      DO 20 J = 2, NY-1
      DO 20 I = 2, NX - 1
   20 TNEW(I,J) = 0.25D0*(T(I-1,J) + T(I+1,J) +
     1            T(I,J-1) + T(I,J+1))
      IF (NX .LT. 3) GO TO 99
      RETURN
   99 STOP
      END
C
      DOUBLE PRECISION FUNCTION TSUM(A, N)
      INTEGER N
      DOUBLE PRECISION A(N)
      TSUM = 0.D0
      DO 30 K = 1, N, 1
         IF (A(K) .GT. 0.D0) TSUM = TSUM + A(K)
   30 CONTINUE
      END
