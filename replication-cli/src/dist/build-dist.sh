#!/usr/bin/env bash
# Builds replication-cli/target/volrep-VERSION-linux-x64.tar.gz (the dist profile: ./mvnw -B -DskipTests -Pdist
# package), then checks it as a vendor without a JDK would use it. Arguments: the build's JDK home, the version,
# the module's target directory.
#
#   volrep-VERSION/bin/volrep           the launcher (src/dist/volrep)
#   volrep-VERSION/lib/volrep.jar       the shaded command line
#   volrep-VERSION/lib/volrep.jsa       class-data-sharing archive of volrep's classes, made by a training run
#   volrep-VERSION/runtime/             a jlink'd Java runtime: the modules jdeps finds in volrep.jar, with the
#                                       JDK's own class-data-sharing archive
set -euo pipefail
jdk=$1 version=$2 target=$3
src=$(cd "$(dirname "$0")" && pwd)
name=volrep-$version
work=$target/dist
out=$work/$name
archive=$target/$name-linux-x64.tar.gz
rm -rf "$work" "$archive"
mkdir -p "$out/bin" "$out/lib"

# The modules volrep.jar uses, as jdeps finds them, less java.desktop (only Micrometer's logging binders, which
# volrep never loads, use java.beans), plus jdk.crypto.ec, which TLS loads as a security provider (no class
# refers to it).
modules=$("$jdk/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 17 "$target/volrep.jar")
modules=$(printf '%s\n' "${modules//,/$'\n'}" | grep -vx java.desktop | tr '\n' ',')jdk.crypto.ec
echo "dist: runtime modules $modules"
strip=()
if command -v objcopy >/dev/null; then
    strip=(--strip-native-debug-symbols "objcopy=$(command -v objcopy)")
fi
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug "${strip[@]}" --no-header-files --no-man-pages \
    --generate-cds-archive --output "$out/runtime" >/dev/null
# The JDK's archive for heaps over 32 GB (no compressed oops): volrep never runs with one.
rm -f "$out/runtime/lib/server/classes_nocoops.jsa"

cp "$target/volrep.jar" "$out/lib/volrep.jar"
cp "$src/volrep" "$out/bin/volrep"
chmod 755 "$out/bin/volrep"
cp "$src/../../../LICENSE" "$out/LICENSE"

# The training run: the conformance suite against the embedded reference plugin loads what volrep --version
# and a vendor's first run load. The archive records the class path, which the launcher names the same way.
VOLREP_JAVA_OPTS="-XX:ArchiveClassesAtExit=$out/lib/volrep.jsa" timeout 600 "$out/bin/volrep" conformance \
    >"$work/training.log" 2>&1 || { cat "$work/training.log"; echo "dist: the training run failed" >&2; exit 1; }

tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$archive" "$name"
sed "s/@VERSION@/$version/g" "$src/Containerfile" >"$target/Containerfile"

# The check: unpacked elsewhere, under a path with spaces, and run through a relative symbolic link from another
# directory, with an empty PATH (which names the current directory to sh) and no JAVA_HOME, from a directory
# holding a program called readlink that must not run: volrep answers --version and passes the conformance
# suite, and its class-data-sharing archive is used (-Xshare:on fails when it cannot be).
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
mkdir -p "$check/Program Files" "$check/bin dir" "$check/cwd"
tar -C "$check/Program Files" -xzf "$archive"
ln -s "../Program Files/$name/bin/volrep" "$check/bin dir/volrep"
# Shell built-ins only: the PATH is empty when it runs.
printf '#!/bin/sh\n: >"%s"\n' "$check/readlink-ran" >"$check/cwd/readlink"
chmod 755 "$check/cwd/readlink"
volrep="$check/bin dir/volrep"
got=$(cd "$check/cwd" && env -i PATH= VOLREP_JAVA_OPTS=-Xshare:on "$volrep" --version)
[[ $got == "volrep $version"* ]] || { echo "dist: bin/volrep --version printed: $got" >&2; exit 1; }
(cd "$check/cwd" && env -i VOLREP_JAVA_OPTS=-Xshare:on "$volrep" conformance >"$work/check.log" 2>&1) \
    || { cat "$work/check.log"; echo "dist: bin/volrep conformance failed" >&2; exit 1; }
grep -q "^COMPLIANT:" "$work/check.log" || { cat "$work/check.log"; echo "dist: no compliance statement" >&2; exit 1; }
[[ ! -e $check/readlink-ran ]] || { echo "dist: bin/volrep ran the current directory's readlink" >&2; exit 1; }
echo "dist: $archive ($(du -m "$archive" | cut -f1) MB), checked under a path with spaces, through a symbolic link," \
    "with an empty PATH and no JAVA_HOME"
