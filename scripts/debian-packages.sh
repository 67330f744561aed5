#!/bin/sh
# Installs, with apt-get, those of the Debian packages named as arguments
# that are not installed yet, and nothing when all are: the Makefile's
# targets call it so that a fresh Debian machine gets what they need.
#
#   debian-packages.sh PACKAGE...
set -eu

missing=
for p in "$@"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case $status in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "installing the missing Debian packages:$missing"
if [ "$(id -u)" != 0 ]; then
	sudo=sudo
	command -v sudo >/dev/null 2>&1 || {
		echo "debian-packages.sh: run as root, or install:$missing" >&2
		exit 1
	}
else
	sudo=
fi
$sudo apt-get update -q
# shellcheck disable=SC2086 # the list is split on purpose
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
