#!/bin/sh
# Fetches Apache ECharts from the npm registry into this directory:
# dist/echarts.min.js and the license files that go with it (ECharts is
# Apache-2.0; it bundles ZRender, BSD-3-Clause, and parts of d3, BSD-3-Clause).
#
#   vendor.sh VERSION           verify the files against SHA256SUMS; fetch
#                               them from npm only when missing or different
#   UPDATE=1 vendor.sh VERSION  fetch VERSION and rewrite SHA256SUMS
set -eu

version=${1:?usage: vendor.sh VERSION}
dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir"

if [ "${UPDATE:-}" != 1 ] && [ -f SHA256SUMS ] && grep -q "^# echarts $version\$" SHA256SUMS &&
	sha256sum --status -c SHA256SUMS 2>/dev/null; then
	echo "echarts $version: $dir is up to date"
	exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "vendor.sh: npm is needed to fetch echarts $version" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "echarts@$version" "zrender@$version" >/dev/null)
mkdir "$tmp/echarts" "$tmp/zrender"
tar xzf "$tmp/echarts-$version.tgz" -C "$tmp/echarts"
tar xzf "$tmp/zrender-$version.tgz" -C "$tmp/zrender"
cp "$tmp/echarts/package/dist/echarts.min.js" echarts.min.js
cp "$tmp/echarts/package/LICENSE" LICENSE
cp "$tmp/echarts/package/NOTICE" NOTICE
cp "$tmp/echarts/package/licenses/LICENSE-d3" LICENSE-d3
cp "$tmp/zrender/package/LICENSE" LICENSE-zrender

if [ "${UPDATE:-}" = 1 ] || [ ! -f SHA256SUMS ]; then
	{ echo "# echarts $version"; sha256sum echarts.min.js LICENSE NOTICE LICENSE-d3 LICENSE-zrender; } > SHA256SUMS
	echo "echarts $version: fetched, SHA256SUMS rewritten"
else
	sha256sum -c SHA256SUMS
	echo "echarts $version: fetched and verified"
fi
