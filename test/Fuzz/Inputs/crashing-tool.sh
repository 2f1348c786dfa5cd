#!/bin/sh
# Stands in for prec-opt: reads its input, then dies of SIGSEGV.
cat > /dev/null
kill -SEGV $$
