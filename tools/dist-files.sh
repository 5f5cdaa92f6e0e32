#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tools/dist-files.sh TARBALL: the release tarball holds every file git
# tracks (but .ci/ and .gitignore), so that a build and the tests from the
# tarball find every file they find in the tree. tools/check.sh runs it
# after `make distcheck`, which runs only the unit tests in the tarball's
# tree: a file missing from EXTRA_DIST is found here, by name, instead of by
# an integration test failing there. Exit 0; 1 naming the missing files; 2
# when git cannot list the tree (no git, no .git: run the full distcheck).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=$1
command -v git >/dev/null 2>&1 && git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$top" ls-files | grep -v -e '^\.ci/' -e '^\.gitignore$' | sort >"$tmp/tree"
tar tzf "$tarball" | sed 's|^[^/]*/||' | grep -v '/$' | sort >"$tmp/tar"
missing=$(comm -23 "$tmp/tree" "$tmp/tar")
if [ -n "$missing" ]; then
	echo "dist-files: $tarball lacks files git tracks (add them to EXTRA_DIST in Makefile.am):"
	echo "$missing" | sed 's/^/  /'
	exit 1
fi
echo "dist-files: $tarball holds the $(wc -l <"$tmp/tree") files git tracks"
