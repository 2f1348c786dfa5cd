#!/bin/sh
# Stands in for prec-opt: reads its input, then fails without a diagnostic.
cat > /dev/null
exit 3
