#!/bin/sh
# The cost of a model's weights in "ein compile model.onnx" (issue 24: with
# 100 MB of weights, at most 1.2x the same compile without them).
#
# Writes an MLP of LAYERS dense layers (Gemm + Relu) of WIDTH x WIDTH
# float32 weights (5 x 2240: 100.4 MB) as ONNX, and its source with the
# weights as parameters (ein import), then compiles ahead of time,
# interleaved, REPEAT times each:
#   onnx   ein compile mlp.onnx     the weights read from the model and
#                                   embedded in the object
#   source ein compile mlp.ein      the same definition, the weights
#                                   parameters (nothing embedded)
# and the same pair through the graph level (--graph: one kernel per
# layer; the kernels' source from ein import --kernels).  Prints the
# median wall time of each whole process and the ratios.  Each compile
# writes a new object (the previous one removed first, untimed).
set -eu
. "$(dirname "$0")/ein_env.sh"
src=${EIN_SRCDIR:-.}
repeat=${REPEAT:-5}
layers=${LAYERS:-5}
width=${WIDTH:-2240}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$py - "$tmp/mlp.onnx" "$layers" "$width" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
path, layers, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(24)
nodes, inits, x = [], [], "x"
for i in range(layers):
    w = rng.uniform(-1, 1, (width, width)).astype(np.float32) / width
    inits.append(numpy_helper.from_array(w, "w%d" % i))
    y = "y" if i == layers - 1 else "h%d" % i
    nodes += [helper.make_node("Gemm", [x, "w%d" % i], ["g%d" % i],
                               name="gemm_%d" % i),
              helper.make_node("Relu", ["g%d" % i], [y], name="relu_%d" % i)]
    x = y
graph = helper.make_graph(
    nodes, "mlp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])],
    initializer=inits)
onnx.save(helper.make_model(graph, opset_imports=[
    helper.make_opsetid("", 13)]), path)
PY
"$ein" import "$tmp/mlp.onnx" -o "$tmp/mlp.ein"
"$ein" import "$tmp/mlp.onnx" --kernels -o "$tmp/kernels.ein"

now() { date +%s.%N; }
# The wall time of "ein compile ARGS...", in seconds, into file $1.
timed() {
	out=$1
	shift
	t0=$(now)
	"$ein" compile "$@" > /dev/null || exit 1
	echo "$(now) - $t0" | bc >> "$out"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

timed "$tmp/warm.t" "$tmp/mlp.onnx" -o "$tmp/warm.o" --header "$tmp/warm.h"
i=0
while [ $i -lt "$repeat" ]; do
	rm -f "$tmp"/*.o
	timed "$tmp/onnx.t" "$tmp/mlp.onnx" -o "$tmp/onnx.o" --header "$tmp/onnx.h"
	timed "$tmp/source.t" "$tmp/mlp.ein" -o "$tmp/source.o" --header "$tmp/source.h"
	timed "$tmp/graph.t" "$tmp/mlp.onnx" --graph "$tmp/d.c" -o "$tmp/graph.o" --header "$tmp/graph.h"
	timed "$tmp/kernels.t" "$tmp/kernels.ein" -o "$tmp/kernels.o" --header "$tmp/kernels.h"
	i=$((i + 1))
done
for k in onnx source graph kernels; do
	eval "$k=$(median < "$tmp/$k.t")"
done
echo "ein compile, $layers layers of ${width}x$width float32 weights" \
	"($(wc -c < "$tmp/mlp.onnx") bytes of model), median of $repeat runs:"
echo "  one definition, weights embedded (mlp.onnx):   $onnx s, object $(wc -c < "$tmp/onnx.o") bytes"
echo "  one definition, weights parameters (mlp.ein):  $source s, object $(wc -c < "$tmp/source.o") bytes"
echo "  ratio: $(echo "scale=3; $onnx / $source" | bc)"
echo "  fused kernels, weights embedded (--graph):     $graph s, object $(wc -c < "$tmp/graph.o") bytes"
echo "  fused kernels, weights parameters (--kernels): $kernels s, object $(wc -c < "$tmp/kernels.o") bytes"
echo "  ratio: $(echo "scale=3; $graph / $kernels" | bc)"
