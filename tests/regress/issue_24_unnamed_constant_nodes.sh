# Two Constant nodes without names (as the onnx package's expanded
# functions and some exporters write them) shared one constant tensor
# "/value": the second value replaced the first (y = x * 5 + 5 instead of
# x * 2 + 5) and the first value's memory leaked.  Each must keep its own.
py=/usr/bin/python3
$py -c 'import onnx' 2>/dev/null || exit 0
$py - <<'X' || { echo "cannot write the model"; exit 1; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
def const(name, v):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(
        np.array([v], np.float32)))
g = helper.make_graph(
    [const("c1", 2.0), const("c2", 5.0),
     helper.make_node("Mul", ["x", "c1"], ["t"]),
     helper.make_node("Add", ["t", "c2"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
          "two.onnx")
np.save("x.npy", np.array([1, 2, 3], np.float32))
X
mkdir out
$ein run two.onnx --no-auto --repeat 1 --input x=x.npy --output out > log 2>&1 || {
	echo "ein run: $(cat log)"; exit 1; }
$py -c 'import numpy as np, sys
y = np.load("out/y.npy")
sys.exit(0 if np.array_equal(y, [7, 9, 11]) else "y = %s, not [7 9 11]" % y)'
