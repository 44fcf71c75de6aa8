#!/bin/sh
# build.sh: set up a Debian 12 machine, build, and run.
#
#	./build.sh demo		install packages, build, trace a demo program
#	./build.sh check	install packages, build, run the whole test suite
#	./build.sh build	install packages and build only
#	./build.sh build-san	the same, with ASan and UBSan, in ./build-san
#				(and clang for the fuzz targets)
#	./build.sh soak		install packages and redis, build, and trace
#				a real redis-server under load (make soak)
#	./build.sh package-check	build the Debian package (make deb), install
#				it, trace with it, purge it (tests/package.sh)
#
# The build goes to ./build (out of tree); binaries run from there
# without installation: build/client/dtrace starts build/daemon/dtraced.
set -e

top=$(cd "$(dirname "$0")" && pwd)
cd "$top"

PKGS="gcc g++ cpp make autoconf automake pkg-config bison flex libelf-dev libdw-dev
libevent-dev libzydis-dev libzycore-dev mandoc prometheus libc6-dbg
systemtap-sdt-dev stress-ng"
# Only for build-san: clang and libFuzzer build the fuzz targets in tests/fuzz.
SANPKGS="clang libclang-rt-14-dev"

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
	mkdir -p "$dir"
	cd "$dir"
	[ -f Makefile ] || ../configure -q $CONFIGURE_FLAGS
	make -s -j"$(nproc)"
	cd "$top"
}

dir=build
case ${1:-demo} in
build)
	build
	;;
build-san)
	PKGS="$PKGS $SANPKGS"
	dir=build-san
	CONFIGURE_FLAGS="$CONFIGURE_FLAGS --enable-sanitizers"
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
soak)
	# redis from Debian, not started as a service: the soak starts its own
	PKGS="$PKGS redis-server redis-tools"
	build
	cd build
	make -s soak
	;;
package-check)
	PKGS="$PKGS dpkg-dev debhelper fakeroot lintian systemd adduser"
	build
	cd build
	make -s deb >deb.log 2>&1 || { tail -30 deb.log; exit 1; }
	deb=$(ls deb-build/dtraced_*_amd64.deb)
	lintian --allow-root "$deb" || exit 1
	top_srcdir=$top top_builddir=$(pwd) sh ../tests/package.sh \
	    "$(pwd)/$deb"
	;;
*)
	echo "usage: build.sh [demo | check | build | build-san | package-check |" \
	    "soak]" >&2
	exit 2
	;;
esac
