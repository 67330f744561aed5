! National forest inventory: permanent sample plots projected 50 years with a
! distance-dependent individual-tree growth model.
!
! Each 500 m2 plot holds mapped trees (species, DBH, height, position).  Every
! 5-year cycle the Hegyi competition index of every tree is computed from its
! neighbours, diameter increment, height (Naslund curve), mortality and
! ingrowth are applied.  The tree lists of every plot and cycle are appended
! as variable-length blocks to an unformatted ACCESS='STREAM' file; the byte
! position of every block is recorded and written as a trailer whose
! position is patched into the file header with POS=.  Stand tables
! (stems per hectare by species and 2-cm diameter class) go to an unformatted
! sequential file, one record per cycle.
!
! Post-processing reopens the stream file, reads the offset table and, for
! every plot, positions directly on consecutive remeasurements to match trees
! by id and fit species-wise diameter-increment regressions; the stand-table
! file is read back sequentially to build a formatted yield table; a plot
! summary CSV and the final tree list are written as formatted text.
program forest_plot_growth_stream
  implicit none
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0), i8 = selected_int_kind(18)
  integer, parameter :: nplot = 1000, ncycle = 10, maxt = 420, nspec = 4, ndcl = 40
  real(dp), parameter :: plot_r = 12.62_dp, plot_area_ha = 0.05_dp, ci_radius = 6.0_dp
  real(dp), parameter :: pi = 3.141592653589793_dp
  integer, parameter :: magic = 1397180486   ! 'FPGS'
  character(len=8), parameter :: spname(nspec) = [character(len=8) :: 'spruce', 'pine', 'birch', 'beech']

  integer :: ntree(nplot), next_id(nplot)
  integer :: tid(maxt, nplot), tsp(maxt, nplot)
  real(sp) :: dbh(maxt, nplot), ht(maxt, nplot), tx(maxt, nplot), ty(maxt, nplot), ci(maxt, nplot)
  real(dp) :: site(nplot)
  integer(i8) :: offsets(nplot, 0:ncycle)
  integer(8) :: rng
  character(len=512) :: outdir
  integer :: lenarg, ios, cyc, ustream, useq, ndead_total, ningrowth_total
  real(dp) :: coef(4, nspec), rsq(nspec)
  integer :: nobs(nspec)

  call get_command_argument(1, outdir, lenarg, ios)
  if (ios /= 0 .or. lenarg == 0) then
     write(*,'(a)') 'usage: forest_plot_growth_stream OUTDIR'
     stop 2
  end if
  rng = 7046029254386353131_8
  ndead_total = 0
  ningrowth_total = 0

  call init_plots()
  call open_outputs(ustream, useq)
  do cyc = 0, ncycle
     if (cyc > 0) call grow_cycle(ndead_total, ningrowth_total)
     call competition_index()
     call write_plot_blocks(ustream, cyc)
     call write_stand_table(useq, cyc)
  end do
  call finalize_stream(ustream)
  close(useq, iostat=ios)
  call check(ios, 'close stand_tables.seq')

  call remeasurement_analysis(coef, rsq, nobs)
  call yield_table()
  call write_final_treelist()

  write(*,'(a,i0,a,i0,a,i0,a,i0,a)') 'forest_plot_growth_stream: ', nplot, ' plots x ', ncycle, &
       ' cycles, ', ndead_total, ' trees died, ', ningrowth_total, ' ingrowth'
  do cyc = 1, nspec
     write(*,'(2x,a8,a,i7,a,4f9.4,a,f6.3)') spname(cyc), ' n=', nobs(cyc), ' coef=', coef(:, cyc), ' R2=', rsq(cyc)
  end do

contains

  function path(name) result(p)
    character(len=*), intent(in) :: name
    character(len=600) :: p
    p = trim(outdir) // '/' // trim(name)
  end function path

  subroutine check(ios, what)
    integer, intent(in) :: ios
    character(len=*), intent(in) :: what
    if (ios /= 0) then
       write(*,'(3a,i0)') 'I/O error: ', what, ' iostat=', ios
       error stop 1
    end if
  end subroutine check

  function urand() result(u)
    real(dp) :: u
    rng = ieor(rng, ishft(rng, 13))
    rng = ieor(rng, ishft(rng, -7))
    rng = ieor(rng, ishft(rng, 17))
    u = real(ishft(rng, -11), dp) / 9007199254740992.0_dp
  end function urand

  function nrand() result(g)
    real(dp) :: g
    g = sqrt(-2.0_dp * log(urand() + 1.0e-300_dp)) * cos(2.0_dp * pi * urand())
  end function nrand

  function naslund_height(s, d, si) result(h)
    integer, intent(in) :: s
    real(dp), intent(in) :: d, si
    real(dp) :: h
    real(dp), parameter :: a(nspec) = [1.9_dp, 2.1_dp, 1.6_dp, 1.8_dp], b(nspec) = [0.26_dp, 0.29_dp, 0.31_dp, 0.25_dp]
    h = 1.3_dp + (si / 24.0_dp) * d**2 / (a(s) + b(s) * d)**2
  end function naslund_height

  ! Stands: species mixture by site, Weibull diameter distribution, Poisson
  ! positions with a minimum spacing.
  subroutine init_plots()
    integer :: p, k, s, tries
    real(dp) :: dom, d, x, y, scale
    logical :: ok
    integer :: j
    do p = 1, nplot
       site(p) = 18.0_dp + 14.0_dp * urand()
       dom = urand()
       ntree(p) = 30 + int(60.0_dp * urand())
       scale = 10.0_dp + 14.0_dp * urand()
       next_id(p) = 1
       k = 0
       do while (k < ntree(p))
          tries = 0
          do
             x = plot_r * (2.0_dp * urand() - 1.0_dp)
             y = plot_r * (2.0_dp * urand() - 1.0_dp)
             if (x * x + y * y > plot_r**2) cycle
             ok = .true.
             do j = 1, k
                if ((tx(j, p) - x)**2 + (ty(j, p) - y)**2 < 0.36_dp) then
                   ok = .false.
                   exit
                end if
             end do
             tries = tries + 1
             if (ok .or. tries > 50) exit
          end do
          k = k + 1
          if (urand() < dom) then
             s = 1 + int(2.0_dp * urand())
          else
             s = 3 + int(2.0_dp * urand())
          end if
          d = max(5.0_dp, scale * (-log(urand() + 1.0e-12_dp))**(1.0_dp / 2.2_dp))
          tid(k, p) = next_id(p)
          next_id(p) = next_id(p) + 1
          tsp(k, p) = s
          dbh(k, p) = real(d, sp)
          ht(k, p) = real(naslund_height(s, d, site(p)) * (1.0_dp + 0.05_dp * nrand()), sp)
          tx(k, p) = real(x, sp)
          ty(k, p) = real(y, sp)
       end do
    end do
  end subroutine init_plots

  ! Hegyi index: sum over neighbours within ci_radius of (Dj/Di)/dist_ij.
  subroutine competition_index()
    integer :: p, i, j, n
    real(dp) :: dist2, c, di, r2
    r2 = ci_radius**2
    do p = 1, nplot
       n = ntree(p)
       do i = 1, n
          c = 0.0_dp
          di = dbh(i, p)
          do j = 1, n
             if (j == i) cycle
             dist2 = (tx(j, p) - tx(i, p))**2 + (ty(j, p) - ty(i, p))**2
             if (dist2 < r2) c = c + (dbh(j, p) / di) / max(sqrt(dist2), 0.5_dp)
          end do
          ci(i, p) = real(c, sp)
       end do
    end do
  end subroutine competition_index

  ! One 5-year cycle: increment, height, mortality, ingrowth (keeps id order).
  subroutine grow_cycle(ndead, ningrowth)
    integer, intent(inout) :: ndead, ningrowth
    real(dp), parameter :: a0(nspec) = [0.55_dp, 0.40_dp, 0.50_dp, 0.45_dp]
    real(dp), parameter :: b1(nspec) = [0.45_dp, 0.40_dp, 0.50_dp, 0.42_dp]
    real(dp), parameter :: cic(nspec) = [0.11_dp, 0.14_dp, 0.09_dp, 0.07_dp]
    integer :: p, i, k, nin, s
    real(dp) :: dd, pm, ba, ba0, d, x, y
    do p = 1, nplot
       ba0 = sum(pi * (0.005_dp * real(dbh(1:ntree(p), p), dp))**2) / plot_area_ha
       k = 0
       ba = 0.0_dp
       do i = 1, ntree(p)
          s = tsp(i, p)
          d = dbh(i, p)
          dd = exp(a0(s) + b1(s) * log(d) - 0.018_dp * d - cic(s) * ci(i, p) + 0.035_dp * (site(p) - 24.0_dp) &
               - 0.012_dp * ba0 + 0.15_dp * nrand())
          pm = 1.0_dp / (1.0_dp + exp(-(-4.6_dp + 0.35_dp * ci(i, p) - 0.04_dp * d + 0.0004_dp * d * d &
               + 0.04_dp * max(ba0 - 35.0_dp, 0.0_dp))))
          if (urand() < pm) then
             ndead = ndead + 1
             cycle
          end if
          k = k + 1
          tid(k, p) = tid(i, p)
          tsp(k, p) = s
          dbh(k, p) = real(d + dd, sp)
          ht(k, p) = real(max(real(ht(i, p), dp), naslund_height(s, d + dd, site(p)) * (1.0_dp + 0.03_dp * nrand())), sp)
          tx(k, p) = tx(i, p)
          ty(k, p) = ty(i, p)
          ci(k, p) = ci(i, p)
          ba = ba + pi * (0.005_dp * (d + dd))**2
       end do
       ntree(p) = k
       ! ingrowth decreases with basal area (m2/ha)
       ba = ba / plot_area_ha
       nin = int(max(0.0_dp, 14.0_dp - 0.35_dp * ba) * urand())
       do i = 1, nin
          if (ntree(p) >= maxt) exit
          do
             x = plot_r * (2.0_dp * urand() - 1.0_dp)
             y = plot_r * (2.0_dp * urand() - 1.0_dp)
             if (x * x + y * y <= plot_r**2) exit
          end do
          k = ntree(p) + 1
          ntree(p) = k
          tid(k, p) = next_id(p)
          next_id(p) = next_id(p) + 1
          tsp(k, p) = merge(4, 3, urand() < 0.4)
          if (site(p) < 22.0_dp) tsp(k, p) = 1
          dbh(k, p) = real(5.0_dp + urand(), sp)
          ht(k, p) = real(naslund_height(tsp(k, p), real(dbh(k, p), dp), site(p)), sp)
          tx(k, p) = real(x, sp)
          ty(k, p) = real(y, sp)
          ci(k, p) = 0.0_sp
          ningrowth = ningrowth + 1
       end do
    end do
  end subroutine grow_cycle

  subroutine open_outputs(us, uq)
    integer, intent(out) :: us, uq
    integer :: ios
    integer(i8) :: zero8
    open(newunit=us, file=path('plots.fpgs'), access='stream', form='unformatted', status='replace', &
         action='readwrite', iostat=ios)
    call check(ios, 'open plots.fpgs')
    zero8 = 0
    ! header: magic, version, nplot, ncycle, trailer position (patched later)
    write(us, iostat=ios) magic, 2, nplot, ncycle, zero8
    call check(ios, 'write stream header')
    open(newunit=uq, file=path('stand_tables.seq'), access='sequential', form='unformatted', status='replace', &
         action='write', iostat=ios)
    call check(ios, 'open stand_tables.seq')
  end subroutine open_outputs

  subroutine write_plot_blocks(us, cyc)
    integer, intent(in) :: us, cyc
    integer :: p, n, ios
    integer(i8) :: pos
    do p = 1, nplot
       n = ntree(p)
       inquire(unit=us, pos=pos)
       offsets(p, cyc) = pos
       write(us, iostat=ios) p, cyc, n, 2020 + 5 * cyc, real(site(p), sp), &
            tid(1:n, p), tsp(1:n, p), dbh(1:n, p), ht(1:n, p), tx(1:n, p), ty(1:n, p), ci(1:n, p)
       call check(ios, 'write plot block')
    end do
  end subroutine write_plot_blocks

  subroutine write_stand_table(uq, cyc)
    integer, intent(in) :: uq, cyc
    real(sp), allocatable :: table(:, :, :)
    integer :: p, i, c, ios
    allocate(table(ndcl, nspec, nplot))
    table = 0.0_sp
    do p = 1, nplot
       do i = 1, ntree(p)
          c = min(ndcl, 1 + int(dbh(i, p) / 2.0_sp))
          table(c, tsp(i, p), p) = table(c, tsp(i, p), p) + real(1.0_dp / plot_area_ha, sp)
       end do
    end do
    write(uq, iostat=ios) cyc, 2020 + 5 * cyc, table
    call check(ios, 'write stand table')
  end subroutine write_stand_table

  subroutine finalize_stream(us)
    integer, intent(in) :: us
    integer(i8) :: tpos
    integer :: ios
    inquire(unit=us, pos=tpos)
    write(us, iostat=ios) offsets
    call check(ios, 'write offset trailer')
    write(us, pos=17, iostat=ios) tpos
    call check(ios, 'patch header')
    close(us, iostat=ios)
    call check(ios, 'close plots.fpgs')
  end subroutine finalize_stream

  subroutine solve4(a, b, x)
    real(dp), intent(inout) :: a(4, 4), b(4)
    real(dp), intent(out) :: x(4)
    integer :: i, j, k, piv
    real(dp) :: f, t(4), tb
    do k = 1, 4
       piv = k
       do i = k + 1, 4
          if (abs(a(i, k)) > abs(a(piv, k))) piv = i
       end do
       if (piv /= k) then
          t = a(k, :); a(k, :) = a(piv, :); a(piv, :) = t
          tb = b(k); b(k) = b(piv); b(piv) = tb
       end if
       do i = k + 1, 4
          f = a(i, k) / a(k, k)
          a(i, k:4) = a(i, k:4) - f * a(k, k:4)
          b(i) = b(i) - f * b(k)
       end do
    end do
    do i = 4, 1, -1
       x(i) = b(i)
       do j = i + 1, 4
          x(i) = x(i) - a(i, j) * x(j)
       end do
       x(i) = x(i) / a(i, i)
    end do
  end subroutine solve4

  ! Pair every plot's consecutive measurements (positioned stream reads),
  ! match surviving trees by id and regress ln(dDBH) on
  ! [1, ln DBH, DBH, CI] per species.
  subroutine remeasurement_analysis(cf, r2, nob)
    real(dp), intent(out) :: cf(4, nspec), r2(nspec)
    integer, intent(out) :: nob(nspec)
    integer :: u, ios, hdr(4), p, c, n0, n1, i, j, s, pp, cc, yr, k
    integer(i8) :: tpos
    integer(i8), allocatable :: off(:, :)
    integer :: id0(maxt), id1(maxt), sp0(maxt), sp1(maxt)
    real(sp) :: d0(maxt), d1(maxt), h(maxt), x(maxt), y(maxt), c0(maxt), c1(maxt), si
    real(dp) :: ata(4, 4, nspec), atb(4, nspec), yy(nspec), ysum(nspec), v(4), dd, a(4, 4), b(4), sse
    integer :: ucsv
    open(newunit=u, file=path('plots.fpgs'), access='stream', form='unformatted', status='old', action='read', &
         iostat=ios)
    call check(ios, 'reopen plots.fpgs')
    read(u, iostat=ios) hdr, tpos
    call check(ios, 'read stream header')
    if (hdr(1) /= magic .or. hdr(3) /= nplot .or. hdr(4) /= ncycle) then
       write(*,'(a)') 'bad stream header'
       error stop 1
    end if
    allocate(off(nplot, 0:ncycle))
    read(u, pos=tpos, iostat=ios) off
    call check(ios, 'read offset trailer')
    open(newunit=ucsv, file=path('plot_increments.csv'), status='replace', action='write', iostat=ios)
    call check(ios, 'open plot_increments.csv')
    write(ucsv,'(a)') 'plot,cycle,year,site_index,stems_ha,survivors,mean_dbh_inc_cm,ba_ha_m2'
    ata = 0; atb = 0; yy = 0; ysum = 0; nob = 0
    do p = 1, nplot
       read(u, pos=off(p, 0), iostat=ios) pp, cc, n0, yr, si
       call check(ios, 'read block header')
       read(u, iostat=ios) id0(1:n0), sp0(1:n0), d0(1:n0), h(1:n0), x(1:n0), y(1:n0), c0(1:n0)
       call check(ios, 'read block body')
       do c = 1, ncycle
          read(u, pos=off(p, c), iostat=ios) pp, cc, n1, yr, si
          call check(ios, 'read block header')
          if (pp /= p .or. cc /= c) then
             write(*,'(a,2i6)') 'offset table mismatch at plot/cycle', p, c
             error stop 1
          end if
          read(u, iostat=ios) id1(1:n1), sp1(1:n1), d1(1:n1), h(1:n1), x(1:n1), y(1:n1), c1(1:n1)
          call check(ios, 'read block body')
          ! merge-match by id (both lists are in increasing id order)
          i = 1; j = 1; k = 0
          dd = 0.0_dp
          do while (i <= n0 .and. j <= n1)
             if (id0(i) < id1(j)) then
                i = i + 1
             else if (id0(i) > id1(j)) then
                j = j + 1
             else
                s = sp0(i)
                v = [1.0_dp, log(real(d0(i), dp)), real(d0(i), dp), real(c0(i), dp)]
                if (d1(j) > d0(i)) then
                   ata(:, :, s) = ata(:, :, s) + spread(v, 2, 4) * spread(v, 1, 4)
                   atb(:, s) = atb(:, s) + v * log(real(d1(j) - d0(i), dp))
                   yy(s) = yy(s) + log(real(d1(j) - d0(i), dp))**2
                   ysum(s) = ysum(s) + log(real(d1(j) - d0(i), dp))
                   nob(s) = nob(s) + 1
                end if
                dd = dd + (d1(j) - d0(i))
                k = k + 1
                i = i + 1
                j = j + 1
             end if
          end do
          write(ucsv,'(i0,",",i0,",",i0,",",f6.2,",",f8.1,",",i0,",",f7.3,",",f7.2)', iostat=ios) p, c, yr, si, &
               n1 / plot_area_ha, k, dd / max(k, 1), sum(pi * (0.005_dp * d1(1:n1))**2) / plot_area_ha
          call check(ios, 'write plot_increments.csv')
          n0 = n1
          id0(1:n0) = id1(1:n0); sp0(1:n0) = sp1(1:n0); d0(1:n0) = d1(1:n0); c0(1:n0) = c1(1:n0)
       end do
    end do
    close(u, iostat=ios)
    call check(ios, 'close plots.fpgs')
    close(ucsv, iostat=ios)
    call check(ios, 'close plot_increments.csv')
    do s = 1, nspec
       a = ata(:, :, s)
       b = atb(:, s)
       call solve4(a, b, cf(:, s))
       sse = yy(s) - dot_product(cf(:, s), atb(:, s))
       r2(s) = 1.0_dp - sse / max(yy(s) - ysum(s)**2 / max(nob(s), 1), 1.0e-30_dp)
    end do
  end subroutine remeasurement_analysis

  ! Read the stand tables back (sequential) and tabulate network means.
  subroutine yield_table()
    real(sp), allocatable :: table(:, :, :)
    integer :: uq, ut, ios, c, cyc, yr, s, k
    real(dp) :: stems(nspec), ba(nspec), qmd, dmid
    allocate(table(ndcl, nspec, nplot))
    open(newunit=uq, file=path('stand_tables.seq'), access='sequential', form='unformatted', status='old', &
         action='read', iostat=ios)
    call check(ios, 'reopen stand_tables.seq')
    open(newunit=ut, file=path('yield_table.txt'), status='replace', action='write', iostat=ios)
    call check(ios, 'open yield_table.txt')
    write(ut,'(a)') ' year  species    stems/ha   BA m2/ha   QMD cm'
    do c = 0, ncycle
       read(uq, iostat=ios) cyc, yr, table
       call check(ios, 'read stand table')
       stems = 0; ba = 0
       do s = 1, nspec
          do k = 1, ndcl
             dmid = 2.0_dp * k - 1.0_dp
             stems(s) = stems(s) + sum(real(table(k, s, :), dp))
             ba(s) = ba(s) + sum(real(table(k, s, :), dp)) * pi * (0.005_dp * dmid)**2
          end do
          stems(s) = stems(s) / nplot
          ba(s) = ba(s) / nplot
          qmd = 0.0_dp
          if (stems(s) > 0) qmd = 200.0_dp * sqrt(ba(s) / (pi * stems(s)))
          write(ut,'(i5,2x,a8,f12.1,f11.2,f9.1)', iostat=ios) yr, spname(s), stems(s), ba(s), qmd
          call check(ios, 'write yield_table.txt')
       end do
       write(ut,'(i5,2x,a8,f12.1,f11.2)', iostat=ios) yr, 'all', sum(stems), sum(ba)
       call check(ios, 'write yield_table.txt')
    end do
    close(uq, iostat=ios)
    call check(ios, 'close stand_tables.seq')
    close(ut, iostat=ios)
    call check(ios, 'close yield_table.txt')
  end subroutine yield_table

  subroutine write_final_treelist()
    integer :: u, ios, p, i
    open(newunit=u, file=path('treelist_final.txt'), status='replace', action='write', iostat=ios)
    call check(ios, 'open treelist_final.txt')
    write(u,'(a)') ' plot  tree species    dbh_cm   height_m     x_m     y_m  hegyi_ci'
    do p = 1, nplot
       do i = 1, ntree(p)
          write(u,'(i5,i6,1x,a8,2f10.2,2f8.2,f10.3)', iostat=ios) p, tid(i, p), spname(tsp(i, p)), dbh(i, p), &
               ht(i, p), tx(i, p), ty(i, p), ci(i, p)
          call check(ios, 'write treelist_final.txt')
       end do
    end do
    close(u, iostat=ios)
    call check(ios, 'close treelist_final.txt')
  end subroutine write_final_treelist

end program forest_plot_growth_stream
