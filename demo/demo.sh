#!/bin/sh
# The demo of `make demo`: compiles workload/smallwrites.c with Open MPI,
# runs it on 4 ranks under `iolens run --dxt`, prints the report of its log
# and writes the HTML page of it.
#
#   demo.sh IOLENS OUTDIR
set -eu

iolens=${1:?usage: demo.sh IOLENS OUTDIR}
out=${2:?usage: demo.sh IOLENS OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
ranks=4

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.darshan "$out/report.html" "$out/shared.dat"

echo "== compiling demo/workload/smallwrites.c: $ranks ranks write one shared file with small independent writes"
mpicc.openmpi -O2 -o "$out/smallwrites" "$here/workload/smallwrites.c"

if [ "$(id -u)" = 0 ]; then
	# Open MPI refuses to run as root without these.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "== iolens run --dxt -- mpiexec -n $ranks smallwrites"
"$iolens" run --dxt --log-dir "$out" -- \
	mpiexec.openmpi --oversubscribe -n "$ranks" "$out/smallwrites" "$out/shared.dat"

set -- "$out"/*_smallwrites_id*.darshan
log=$1
echo
echo "== iolens report $log"
"$iolens" report "$log"
"$iolens" report --html "$out/report.html" "$log"

cat <<END

The log:  $log
The page: $out/report.html (open it in a browser; it works offline)
More:     $iolens parse $log | less
END
