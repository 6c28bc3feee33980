# A model whose tensors have more elements than int64_t can count in
# bytes (an input of 2 x (2^62 - 1) elements, found by fuzzing the
# importer with another seed; a MatMul of [2^40, 1] by [1, 2^40]; a
# symbolic size fixed at 2^62 by --sizes; a Reshape to 2^61 x 16 x -1)
# was imported silently: the
# graph level multiplied the element count by the element size, a
# signed overflow (UBSan: src/onnx/tograph.c "9223372036854775806 * 4
# cannot be represented"), and planned memory from the wrapped value.
# Each is an error naming the tensor now.  So is a tensor with a zero
# dimension whose other dimensions' product is that large (a constant
# of 0 x 2^61 x 16 elements: its strides would overflow).  So is an
# input with a symbolic dimension whose constant ones multiply past the
# limit ([N, 2^61, 6], found by fuzzing: a Reshape's strides overflowed),
# and a Resize to sizes beyond the int32 positions of a kernel (sizes of
# 2^63 / 1.008: its axis map's products overflowed).
py=/usr/bin/python3
$py -c 'import onnx' 2>/dev/null || exit 0
$py - <<'X' || { echo "cannot write the models"; exit 1; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              name)
vi = helper.make_tensor_value_info
save("input.onnx", [helper.make_node("Gather", ["table", "ids"], ["y"])],
     [vi("ids", TensorProto.INT32, [2, 2**62 - 1])],
     [vi("y", TensorProto.FLOAT, [2, 5, 6])],
     [numpy_helper.from_array(np.zeros((11, 6), np.float32), "table")])
save("matmul.onnx", [helper.make_node("MatMul", ["a", "b"], ["y"])],
     [vi("a", TensorProto.FLOAT, [2**40, 1]), vi("b", TensorProto.FLOAT, [1, 2**40])],
     [vi("y", TensorProto.FLOAT, None)])
save("reshape.onnx", [helper.make_node("Reshape", ["x", "s"], ["y"])],
     [vi("x", TensorProto.FLOAT, [4, 4])], [vi("y", TensorProto.FLOAT, None)],
     [numpy_helper.from_array(np.array([2**61, 16, -1], np.int64), "s")])
save("sym.onnx", [helper.make_node("Relu", ["x"], ["y"])],
     [vi("x", TensorProto.FLOAT, ["N", 4])], [vi("y", TensorProto.FLOAT, ["N", 4])])
save("symbig.onnx", [helper.make_node("Reshape", ["x", "s"], ["y"])],
     [vi("x", TensorProto.FLOAT, ["N", 2**61, 6])], [vi("y", TensorProto.FLOAT, None)],
     [numpy_helper.from_array(np.array([0, -1], np.int64), "s")])
save("resize.onnx", [helper.make_node("Resize", ["x", "roi", "sc", "sz"], ["y"],
                                      mode="linear")],
     [vi("x", TensorProto.FLOAT, [2, 4, 9, 9])], [vi("y", TensorProto.FLOAT, None)],
     [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
      numpy_helper.from_array(np.zeros(0, np.float32), "sc"),
      numpy_helper.from_array(np.array([2, 4, 13, 9151314442816847877], np.int64), "sz")])
save("zero.onnx", [helper.make_node("Relu", ["w"], ["y"])], [],
     [vi("y", TensorProto.FLOAT, None)],
     [helper.make_tensor("w", TensorProto.FLOAT, [0, 2**61, 16], [])])
X
fail=0
expect() {
	msg=$1
	shift
	"$ein" "$@" > out 2> err
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -ge 128 ] || ! grep -qF "$msg" err; then
		echo "ein $*: exit $rc, not an error with '$msg':"
		cat out err
		fail=1
	fi
}
expect "input 'ids' has more than 576460752303423487 elements" import input.onnx -o input.ein
expect "(MatMul): output 'y' has more than 576460752303423487 elements" import matmul.onnx -o matmul.ein
# The product of the shape's constants overflowed (under UBSan: an
# error; in a plain build it wrapped to 0).
expect "(Reshape): the shape does not fit the 16 elements of 'x'" import reshape.onnx -o reshape.ein
expect "input 'x' has more than 576460752303423487 elements" run sym.onnx --sizes N=4611686018427387904 --repeat 1
expect "constant 'w' has more than 576460752303423487 elements" import zero.onnx -o zero.ein
expect "input 'x' has more than 576460752303423487 elements" import symbig.onnx -o symbig.ein
expect "(Resize): extent 9151314442816847877 along axis 3 is too large to resize (at most 1000000000)" import resize.onnx -o resize.ein
exit $fail
