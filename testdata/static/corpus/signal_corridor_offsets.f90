! signal_corridor_offsets.f90
!
! Offset optimisation for a coordinated arterial of NINT fixed-time traffic
! signals.  Each intersection's timing and demand are kept in a NAMELIST
! deck (written here, then read back).  Traffic on the two main-street
! directions is simulated with a Nagel-Schreckenberg cellular automaton
! (7.5 m cells, 1 s steps) with side-street turn-ins and turn-outs; red
! signals act as stop lines.  A coordinate-descent search over offsets,
! using common random numbers for every trial, minimises total stopped
! delay.  Every trial is logged, every sweep's timing plan is written to
! its own file (names built with internal writes), and the final plan is
! simulated for one hour while recording time-space diagrams, stop-line
! passages and per-cycle queue counts per intersection; the passage file
! is then re-read to compute corridor travel times and the green band.
!
! Usage: signal_corridor_offsets OUTDIR
program signal_corridor_offsets
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nint_ = 16
  integer, parameter :: link_cells = 54          ! 405 m blocks
  integer, parameter :: ncell = nint_ * link_cells + 30
  integer, parameter :: vmax = 2
  integer, parameter :: t_eval = 720, t_final = 3600
  integer, parameter :: nsweep = 2, noffs = 9
  real(dp), parameter :: p_slow = 0.15_dp

  type signal_t
     integer :: cycle, green_main, offset, pos
     real(dp) :: q_side_in, p_turn_out
  end type signal_t

  type(signal_t) :: sig(nint_)
  character(len=512) :: outdir
  integer :: ulog, ios, best_delay, d0
  real(dp) :: q_main

  if (command_argument_count() /= 1) then
     write(*,'(A)') 'usage: signal_corridor_offsets OUTDIR'
     stop 2
  end if
  call get_command_argument(1, outdir)

  call write_intersection_decks(trim(outdir))
  call read_intersection_decks(trim(outdir), sig, q_main)

  open(newunit=ulog, file=trim(outdir)//'/trials.log', status='replace', action='write', iostat=ios)
  if (ios /= 0) call fail('cannot create trials.log')
  d0 = simulate(sig, t_eval, .false.)
  write(ulog, '(A,I10)', iostat=ios) 'initial plan delay_veh_s ', d0
  if (ios /= 0) call fail('write trials.log')
  call optimize_offsets(trim(outdir), ulog, sig, best_delay)
  close(ulog, iostat=ios)
  if (ios /= 0) call fail('close trials.log')

  call final_run(trim(outdir), sig)
  call corridor_travel_times(trim(outdir), d0, best_delay)

contains

  subroutine fail(msg)
    use, intrinsic :: iso_fortran_env, only: error_unit
    character(len=*), intent(in) :: msg
    write(error_unit,'(A,A)') 'error: ', msg
    error stop 1
  end subroutine fail

  ! --------------------------------------------------------------------
  subroutine write_intersection_decks(dir)
    character(len=*), intent(in) :: dir
    integer :: k, u, ios2, cycle, green_main, offset
    real(dp) :: q_side_in, p_turn_out, q_mainline
    character(len=600) :: fname
    integer(kind=8) :: s
    namelist /intersection/ cycle, green_main, offset, q_side_in, p_turn_out, q_mainline
    s = 424242_8
    do k = 1, nint_
       s = mod(s * 48271_8, 2147483647_8)
       cycle = 90
       green_main = 42 + int(mod(s, 20_8))
       s = mod(s * 48271_8, 2147483647_8)
       offset = int(mod(s, int(cycle, 8)))
       q_side_in = 0.015_dp + 0.001_dp * real(mod(s, 30_8), dp)
       p_turn_out = 0.02_dp + 0.001_dp * real(mod(s / 7, 40_8), dp)
       q_mainline = 0.20_dp
       write(fname, '(A,A,I2.2,A)') dir, '/intersection_', k, '.nml'
       open(newunit=u, file=trim(fname), status='replace', action='write', iostat=ios2)
       if (ios2 /= 0) call fail('cannot create '//trim(fname))
       write(u, nml=intersection, iostat=ios2)
       if (ios2 /= 0) call fail('write namelist '//trim(fname))
       close(u, iostat=ios2)
       if (ios2 /= 0) call fail('close '//trim(fname))
    end do
  end subroutine write_intersection_decks

  subroutine read_intersection_decks(dir, sg, qm)
    character(len=*), intent(in) :: dir
    type(signal_t), intent(out) :: sg(nint_)
    real(dp), intent(out) :: qm
    integer :: k, u, ios2, cycle, green_main, offset
    real(dp) :: q_side_in, p_turn_out, q_mainline
    character(len=600) :: fname
    namelist /intersection/ cycle, green_main, offset, q_side_in, p_turn_out, q_mainline
    qm = 0.0_dp
    do k = 1, nint_
       write(fname, '(A,A,I2.2,A)') dir, '/intersection_', k, '.nml'
       open(newunit=u, file=trim(fname), status='old', action='read', iostat=ios2)
       if (ios2 /= 0) call fail('cannot open '//trim(fname))
       read(u, nml=intersection, iostat=ios2)
       if (ios2 /= 0) call fail('read namelist '//trim(fname))
       close(u, iostat=ios2)
       sg(k) = signal_t(cycle, green_main, offset, 15 + (k - 1) * link_cells + link_cells / 2, &
            q_side_in, p_turn_out)
       qm = q_mainline
    end do
  end subroutine read_intersection_decks

  ! --------------------------------------------------------------------
  ! NaSch on both directions; returns total stopped vehicle-seconds.
  ! When record is true, time-space rasters, stop-line passages and
  ! per-cycle queue counts are written.
  integer function simulate(sg, tend, record, dir) result(delay)
    type(signal_t), intent(in) :: sg(nint_)
    integer, intent(in) :: tend
    logical, intent(in) :: record
    character(len=*), intent(in), optional :: dir
    integer :: vel(ncell, 2), vid(ncell, 2), nvel(ncell), nid(ncell)
    logical :: red_at(ncell, 2), green(nint_)
    real(dp) :: r
    integer :: t, d, i, j, gap, v, k, next_id, ios2, ucell(2), upass, nq
    integer :: queue_cyc(nint_), udet(nint_)
    integer(kind=8) :: s
    character(len=ncell) :: row
    character(len=600) :: fname

    s = 1234567_8          ! common random numbers: the same stream for every trial
    vel = -1
    vid = 0
    delay = 0
    next_id = 0
    queue_cyc = 0
    if (record) then
       open(newunit=ucell(1), file=dir//'/timespace_eb.txt', status='replace', action='write', iostat=ios2)
       if (ios2 /= 0) call fail('cannot create timespace_eb.txt')
       open(newunit=ucell(2), file=dir//'/timespace_wb.txt', status='replace', action='write', iostat=ios2)
       if (ios2 /= 0) call fail('cannot create timespace_wb.txt')
       open(newunit=upass, file=dir//'/passages.txt', status='replace', action='write', iostat=ios2)
       if (ios2 /= 0) call fail('cannot create passages.txt')
       write(upass, '(A)', iostat=ios2) '# time dir intersection vehicle speed_cells_s'
       do k = 1, nint_
          write(fname, '(A,A,I2.2,A)') dir, '/detector_', k, '.csv'
          open(newunit=udet(k), file=trim(fname), status='replace', action='write', iostat=ios2)
          if (ios2 /= 0) call fail('cannot create '//trim(fname))
          write(udet(k), '(A)', iostat=ios2) 'cycle_start,queued_veh_s_eb_wb'
       end do
    end if

    do t = 0, tend - 1
       ! stop lines: eastbound stops in the cell before pos, westbound mirrored
       red_at = .false.
       do k = 1, nint_
          green(k) = modulo(t - sg(k)%offset, sg(k)%cycle) < sg(k)%green_main
          if (.not. green(k)) then
             red_at(sg(k)%pos, 1) = .true.
             red_at(ncell + 1 - sg(k)%pos, 2) = .true.
          end if
       end do
       do d = 1, 2
          ! injection at the upstream boundary
          s = mod(s * 48271_8, 2147483647_8)          ! minimal-standard generator
          r = real(s, dp) / 2147483647.0_dp
          if (vel(1, d) < 0 .and. r < q_main) then
             next_id = next_id + 1
             vel(1, d) = vmax
             vid(1, d) = next_id
          end if
          ! side-street turn-ins and turn-outs at each intersection
          do k = 1, nint_
             i = merge(sg(k)%pos + 1, ncell + 2 - sg(k)%pos, d == 1)
             if (.not. green(k)) then
                s = mod(s * 48271_8, 2147483647_8)
                r = real(s, dp) / 2147483647.0_dp
                if (vel(i, d) < 0 .and. r < sg(k)%q_side_in) then
                   next_id = next_id + 1
                   vel(i, d) = 0
                   vid(i, d) = next_id
                end if
             end if
             s = mod(s * 48271_8, 2147483647_8)
             r = real(s, dp) / 2147483647.0_dp
             if (vel(i, d) >= 0 .and. r < sg(k)%p_turn_out) vel(i, d) = -1
          end do
          ! NaSch update (parallel)
          nvel = -1
          nid = 0
          do i = 1, ncell
             v = vel(i, d)
             if (v < 0) cycle
             gap = 0
             do j = i + 1, min(i + vmax, ncell)
                if (vel(j, d) >= 0 .or. red_at(j, d)) exit
                gap = gap + 1
             end do
             if (i + vmax > ncell .and. gap == ncell - i) gap = vmax     ! leaving the corridor
             v = min(v + 1, vmax, gap)
             if (v > 0) then
                s = mod(s * 48271_8, 2147483647_8)
                r = real(s, dp) / 2147483647.0_dp
                if (r < p_slow) v = v - 1
             end if
             if (v == 0) then
                delay = delay + 1
             end if
             if (record) then
                do k = 1, nint_
                   j = merge(sg(k)%pos, ncell + 1 - sg(k)%pos, d == 1)
                   if (i < j .and. i + v >= j) then
                      write(upass, '(I5,I2,I3,I8,I2)', iostat=ios2) t, d, k, vid(i, d), v
                      if (ios2 /= 0) call fail('write passages.txt')
                   end if
                   if (v == 0 .and. i >= j - link_cells / 2 .and. i < j) queue_cyc(k) = queue_cyc(k) + 1
                end do
             end if
             if (i + v <= ncell) then
                nvel(i + v) = v
                nid(i + v) = vid(i, d)
             end if
          end do
          vel(:, d) = nvel
          vid(:, d) = nid
          if (record) then
             do i = 1, ncell
                if (vel(i, d) < 0) then
                   row(i:i) = '.'
                else if (red_at(i, d)) then
                   row(i:i) = '#'
                else
                   row(i:i) = achar(iachar('0') + vel(i, d))
                end if
             end do
             write(ucell(d), '(I5,1X,A)', iostat=ios2) t, row
             if (ios2 /= 0) call fail('write time-space raster')
          end if
       end do
       if (record) then
          do k = 1, nint_
             if (modulo(t - sg(k)%offset, sg(k)%cycle) == sg(k)%cycle - 1) then
                write(udet(k), '(I0,A)', advance='no', iostat=ios2) t - sg(k)%cycle + 1, ','
                write(udet(k), '(I0)', iostat=ios2) queue_cyc(k)
                if (ios2 /= 0) call fail('write detector file')
                queue_cyc(k) = 0
             end if
          end do
       end if
    end do

    if (record) then
       nq = 0
       close(ucell(1), iostat=ios2)
       if (ios2 /= 0) nq = nq + 1
       close(ucell(2), iostat=ios2)
       if (ios2 /= 0) nq = nq + 1
       close(upass, iostat=ios2)
       if (ios2 /= 0) nq = nq + 1
       do k = 1, nint_
          close(udet(k), iostat=ios2)
          if (ios2 /= 0) nq = nq + 1
       end do
       if (nq > 0) call fail('closing simulation output files')
    end if
  end function simulate

  ! --------------------------------------------------------------------
  subroutine optimize_offsets(dir, ul, sg, best)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: ul
    type(signal_t), intent(inout) :: sg(nint_)
    integer, intent(out) :: best
    integer :: sweep, k, c, trial, dly, keep, ios2, ntrial
    character(len=600) :: fname

    best = simulate(sg, t_eval, .false.)
    ntrial = 0
    do sweep = 1, nsweep
       do k = 2, nint_
          keep = sg(k)%offset
          do c = 0, noffs - 1
             trial = modulo(keep + c * sg(k)%cycle / noffs + sweep * 3, sg(k)%cycle)
             if (trial == keep) cycle
             sg(k)%offset = trial
             dly = simulate(sg, t_eval, .false.)
             ntrial = ntrial + 1
             write(ul, '(A,I2,A,I3,A,I4,A,I10,A,L1)', iostat=ios2) 'sweep ', sweep, ' signal ', k, &
                  ' offset ', trial, ' delay ', dly, ' improved ', dly < best
             if (ios2 /= 0) call fail('write trials.log')
             if (dly < best) then
                best = dly
                keep = trial
             end if
          end do
          sg(k)%offset = keep
       end do
       write(fname, '(A,A,I2.2,A)') dir, '/plan_sweep_', sweep, '.txt'
       call write_plan(trim(fname), sg, best, sweep)
    end do
    write(*,'(A,I0,A)') 'signal_corridor_offsets: ', ntrial, ' trial simulations'
  end subroutine optimize_offsets

  subroutine write_plan(fname, sg, dly, sweep)
    character(len=*), intent(in) :: fname
    type(signal_t), intent(in) :: sg(nint_)
    integer, intent(in) :: dly, sweep
    integer :: u, k, ios2
    character(len=40) :: label
    open(newunit=u, file=fname, status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create '//fname)
    write(label, '(A,I0,A,I0)') 'sweep ', sweep, ' delay ', dly
    write(u, '(A,A)', iostat=ios2) '# timing plan after ', trim(label)
    write(u, '(A)', iostat=ios2) '# signal cycle green_main offset position_m'
    do k = 1, nint_
       write(u, '(I4,3I7,F10.1)', iostat=ios2) k, sg(k)%cycle, sg(k)%green_main, sg(k)%offset, sg(k)%pos * 7.5_dp
       if (ios2 /= 0) call fail('write '//fname)
    end do
    close(u, iostat=ios2)
    if (ios2 /= 0) call fail('close '//fname)
  end subroutine write_plan

  subroutine final_run(dir, sg)
    character(len=*), intent(in) :: dir
    type(signal_t), intent(in) :: sg(nint_)
    integer :: dly
    dly = simulate(sg, t_final, .true., dir)
    write(*,'(A,I0,A)') '  final plan, one hour: ', dly, ' stopped vehicle-seconds'
  end subroutine final_run

  ! re-read the passage records: travel time of vehicles that crossed the
  ! first and the last stop line in each direction, and the share of
  ! vehicles that crossed each stop line without having stopped before it
  subroutine corridor_travel_times(dir, dinit, dbest)
    character(len=*), intent(in) :: dir
    integer, intent(in) :: dinit, dbest
    integer, parameter :: maxveh = 200000
    integer, allocatable :: t_first(:), t_last(:)
    integer :: u, ios2, t, d, k, id, v, n(2), nfast(nint_), npass(nint_), uo
    real(dp) :: tt(2)
    character(len=128) :: line
    allocate(t_first(maxveh), t_last(maxveh))
    t_first = -1
    t_last = -1
    nfast = 0
    npass = 0
    open(newunit=u, file=dir//'/passages.txt', status='old', action='read', iostat=ios2)
    if (ios2 /= 0) call fail('cannot open passages.txt')
    do
       read(u, '(A)', iostat=ios2) line
       if (ios2 /= 0) exit
       if (line(1:1) == '#') cycle
       read(line, *, iostat=ios2) t, d, k, id, v
       if (ios2 /= 0) call fail('parse passages.txt')
       if (id < 1 .or. id > maxveh) cycle
       npass(k) = npass(k) + 1
       if (v == vmax) nfast(k) = nfast(k) + 1
       if ((d == 1 .and. k == 1) .or. (d == 2 .and. k == nint_)) t_first(id) = t
       if ((d == 1 .and. k == nint_) .or. (d == 2 .and. k == 1)) t_last(id) = t
    end do
    close(u)
    n = 0
    tt = 0.0_dp
    ! direction of a vehicle is implied by which line it crossed first
    do id = 1, maxveh
       if (t_first(id) >= 0 .and. t_last(id) > t_first(id)) then
          n(1) = n(1) + 1
          tt(1) = tt(1) + (t_last(id) - t_first(id))
       end if
    end do
    open(newunit=uo, file=dir//'/corridor_report.txt', status='replace', action='write', iostat=ios2)
    if (ios2 /= 0) call fail('cannot create corridor_report.txt')
    write(uo, '(A,I0,A,I0)', iostat=ios2) 'stopped delay (12 min eval): initial ', dinit, '  optimised ', dbest
    write(uo, '(A,I0,A,F8.1,A)', iostat=ios2) 'end-to-end trips ', n(1), ', mean travel time ', &
         tt(1) / max(n(1), 1), ' s'
    write(uo, '(A)', iostat=ios2) 'signal  passages  share_at_full_speed'
    do k = 1, nint_
       write(uo, '(I6,I10,F10.3)', iostat=ios2) k, npass(k), real(nfast(k), dp) / max(npass(k), 1)
       if (ios2 /= 0) call fail('write corridor_report.txt')
    end do
    close(uo, iostat=ios2)
    if (ios2 /= 0) call fail('close corridor_report.txt')
    write(*,'(A,I0,A,F8.1,A)') '  ', n(1), ' end-to-end trips, mean travel time ', tt(1) / max(n(1), 1), ' s'
    deallocate(t_first, t_last)
  end subroutine corridor_travel_times

end program signal_corridor_offsets
