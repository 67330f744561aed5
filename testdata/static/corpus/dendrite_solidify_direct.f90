! dendrite_solidify_direct: Kobayashi-type anisotropic phase-field model of a
! dendrite growing into an undercooled melt.  Each output frame stores every
! grid row of the phase and temperature fields as fixed-length records of a
! direct-access file; the analysis pass then reads records back out of order
! (strided rows, single rows of every frame) to track solid fraction and tip
! velocity, and writes formatted tables and an ASCII contour preview.
program dendrite_solidify_direct
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: n = 160, nframes = 30, steps_per_frame = 40
  real(dp), parameter :: dx = 0.03_dp, dt = 1.0e-4_dp, tau = 3.0e-4_dp
  real(dp), parameter :: eps_bar = 0.01_dp, delta = 0.02_dp, aniso = 6.0_dp
  real(dp), parameter :: alpha = 0.9_dp, gam = 10.0_dp, latent = 1.8_dp, teq = 1.0_dp
  real(dp), allocatable :: phi(:,:), temp(:,:)
  character(len=512) :: dir
  integer :: frame, uda, urep, reclen
  real(dp) :: solid(nframes), tip(nframes)

  if (command_argument_count() < 1) stop 'usage: dendrite_solidify_direct dir'
  call get_command_argument(1, dir)
  allocate(phi(n, n), temp(n, n))
  call seed_nucleus(phi, temp, n)

  inquire(iolength=reclen) phi(:, 1)
  open(newunit=uda, file=trim(dir)//'/frames.da', access='direct', form='unformatted', &
       recl=reclen, status='replace', action='readwrite')
  do frame = 1, nframes
     call evolve(phi, temp, n, steps_per_frame)
     call store_frame(uda, frame, phi, temp, n)
  end do

  call solid_fraction_history(uda, n, nframes, solid)
  call tip_track(uda, n, nframes, tip)
  open(newunit=urep, file=trim(dir)//'/growth_table.txt', status='replace', action='write')
  call write_growth_table(urep, solid, tip, nframes)
  close(urep)
  call contour_preview(uda, n, nframes, trim(dir)//'/final_contour.txt')
  close(uda)
  print '(A,F8.4,A,F8.3)', 'final solid fraction ', solid(nframes), '  tip position ', tip(nframes)

contains

  subroutine seed_nucleus(p, t, m)
    integer, intent(in) :: m
    real(dp), intent(out) :: p(m, m), t(m, m)
    integer :: i, j
    p = 0.0_dp; t = 0.0_dp
    do j = 1, m
       do i = 1, m
          if ((i - m / 2)**2 + (j - m / 2)**2 < 20) p(i, j) = 1.0_dp
       end do
    end do
  end subroutine seed_nucleus

  ! compute-bound: anisotropic Allen-Cahn coupled to heat equation
  subroutine evolve(p, t, m, nsteps)
    integer, intent(in) :: m, nsteps
    real(dp), intent(inout) :: p(m, m), t(m, m)
    real(dp) :: eps(m, m), epsd(m, m), lap_p(m, m), lap_t(m, m), gx(m, m), gy(m, m)
    real(dp) :: th, mterm, pold, t1, t2
    integer :: s, i, j, ip, im, jp, jm
    do s = 1, nsteps
       do j = 1, m
          jp = min(j + 1, m); jm = max(j - 1, 1)
          do i = 1, m
             ip = min(i + 1, m); im = max(i - 1, 1)
             gx(i, j) = (p(ip, j) - p(im, j)) / (2 * dx)
             gy(i, j) = (p(i, jp) - p(i, jm)) / (2 * dx)
             lap_p(i, j) = (p(ip, j) + p(im, j) + p(i, jp) + p(i, jm) - 4 * p(i, j)) / dx**2
             lap_t(i, j) = (t(ip, j) + t(im, j) + t(i, jp) + t(i, jm) - 4 * t(i, j)) / dx**2
             th = atan2(gy(i, j), gx(i, j) + 1.0e-12_dp)
             eps(i, j) = eps_bar * (1.0_dp + delta * cos(aniso * th))
             epsd(i, j) = -eps_bar * aniso * delta * sin(aniso * th)
          end do
       end do
       do j = 1, m
          jp = min(j + 1, m); jm = max(j - 1, 1)
          do i = 1, m
             ip = min(i + 1, m); im = max(i - 1, 1)
             t1 = (eps(i, jp) * epsd(i, jp) * gx(i, jp) - eps(i, jm) * epsd(i, jm) * gx(i, jm)) / (2 * dx)
             t2 = -(eps(ip, j) * epsd(ip, j) * gy(ip, j) - eps(im, j) * epsd(im, j) * gy(im, j)) / (2 * dx)
             mterm = alpha / 3.14159265358979_dp * atan(gam * (teq - t(i, j)))
             pold = p(i, j)
             p(i, j) = pold + dt / tau * (t1 + t2 + eps(i, j)**2 * lap_p(i, j) + &
                  pold * (1.0_dp - pold) * (pold - 0.5_dp + mterm))
             t(i, j) = t(i, j) + dt * lap_t(i, j) + latent * (p(i, j) - pold)
          end do
       end do
    end do
  end subroutine evolve

  ! I/O: 2*m fixed-length records per frame (phase rows, then temperature rows)
  subroutine store_frame(u, fr, p, t, m)
    integer, intent(in) :: u, fr, m
    real(dp), intent(in) :: p(m, m), t(m, m)
    integer :: j, base
    base = (fr - 1) * 2 * m
    do j = 1, m
       write(u, rec=base + j) p(:, j)
       write(u, rec=base + m + j) t(:, j)
    end do
  end subroutine store_frame

  ! strided reads: every 3rd phase row of every frame
  subroutine solid_fraction_history(u, m, nf, frac)
    integer, intent(in) :: u, m, nf
    real(dp), intent(out) :: frac(nf)
    real(dp) :: row(m)
    integer :: fr, j, cnt
    do fr = 1, nf
       frac(fr) = 0; cnt = 0
       do j = 1, m, 3
          read(u, rec=(fr - 1) * 2 * m + j) row
          frac(fr) = frac(fr) + count(row > 0.5_dp)
          cnt = cnt + m
       end do
       frac(fr) = frac(fr) / cnt
    end do
  end subroutine solid_fraction_history

  ! the centre row of each frame, read in reverse frame order
  subroutine tip_track(u, m, nf, pos)
    integer, intent(in) :: u, m, nf
    real(dp), intent(out) :: pos(nf)
    real(dp) :: row(m)
    integer :: fr, i
    do fr = nf, 1, -1
       read(u, rec=(fr - 1) * 2 * m + m / 2) row
       pos(fr) = 0
       do i = m, m / 2, -1
          if (row(i) > 0.5_dp) then
             pos(fr) = (i - m / 2) * dx
             exit
          end if
       end do
    end do
  end subroutine tip_track

  subroutine write_growth_table(u, frac, pos, nf)
    integer, intent(in) :: u, nf
    real(dp), intent(in) :: frac(nf), pos(nf)
    integer :: fr
    real(dp) :: v
    write(u, '(A)') '# frame   time      solid_frac   tip_x      tip_velocity'
    do fr = 1, nf
       v = 0
       if (fr > 1) v = (pos(fr) - pos(fr - 1)) / (steps_per_frame * dt)
       write(u, '(I6,F10.4,F12.6,F11.4,ES14.5)') fr, fr * steps_per_frame * dt, frac(fr), pos(fr), v
    end do
  end subroutine write_growth_table

  subroutine contour_preview(u, m, nf, fname)
    integer, intent(in) :: u, m, nf
    character(len=*), intent(in) :: fname
    real(dp) :: prow(m), trow(m)
    character(len=m) :: line
    integer :: j, i, uo
    open(newunit=uo, file=fname, status='replace', action='write')
    do j = 1, m, 2
       read(u, rec=(nf - 1) * 2 * m + j) prow
       read(u, rec=(nf - 1) * 2 * m + m + j) trow
       do i = 1, m
          if (prow(i) > 0.5_dp) then
             line(i:i) = '#'
          else if (trow(i) > 0.3_dp) then
             line(i:i) = '+'
          else
             line(i:i) = '.'
          end if
       end do
       write(uo, '(A)') line
    end do
    close(uo)
  end subroutine contour_preview
end program dendrite_solidify_direct
