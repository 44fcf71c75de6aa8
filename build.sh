#!/bin/sh
# build.sh: set up a Debian 12 machine, build, and run.
#
#	./build.sh demo		install packages, build, trace a demo program
#	./build.sh check	install packages, build, run the whole test suite
#	./build.sh build	install packages and build only
#
# The build goes to ./build (out of tree); binaries run from there
# without installation: build/client/dtrace starts build/daemon/dtraced.
set -e

top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

PKGS="gcc make autoconf automake pkg-config bison flex libelf-dev libdw-dev
libunwind-dev libevent-dev libzydis-dev libzycore-dev mandoc"

deps()
{
	missing=
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "build.sh: installing$missing"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    $missing >/dev/null
}

build()
{
	deps
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		autoreconf -fi
	fi
	mkdir -p build
	cd build
	[ -f Makefile ] || ../configure -q $CONFIGURE_FLAGS
	make -s -j"$(nproc)"
	cd "$top"
}

case ${1:-demo} in
build)
	build
	;;
demo)
	build
	echo "+ dtrace -c build/contrib/demo/demo -n 'pid\$target:a.out:wordlen:entry ...'"
	exec build/client/dtrace -c build/contrib/demo/demo -n 'pid$target:a.out:wordlen:entry { @calls["wordlen() calls"] = count(); }
	    pid$target:a.out:wordlen:return { @len["length returned", arg1] = count(); }'
	;;
check)
	build
	cd build
	make -s -j"$(nproc)" check
	;;
*)
	echo "usage: build.sh [demo | check | build]" >&2
	exit 2
	;;
esac
