#!/bin/sh
# Compiler launcher for NAX_BENCH_SYNTAX_ONLY (the test preset): runs the compile command it
# is given with -fsyntax-only added, so that the compiler's front end checks the source (every
# template the benchmark uses is instantiated) without generating code, which is most of an
# -O0 compile of nax. It then creates the command's -o file, empty, so that the build tool sees
# the source as checked and does not run it again until the source or a header changes.
out=
prev=
for arg in "$@"; do
  if [ "$prev" = "-o" ]; then out=$arg; fi
  prev=$arg
done
"$@" -fsyntax-only || exit
if [ -n "$out" ]; then : >"$out"; fi
