# A STRING attribute whose value is absent (an AttributeProto of type
# STRING without its field s: protobuf-c leaves the data NULL) was
# copied with strndup(NULL, 0), which UBSan reports (src/onnx/read.c;
# found by fuzzing the importer, seeds 32 and 34).  It reads as the empty
# string now: a Constant with such a "value" is a clear error, a Resize
# whose mode is empty says the mode is not supported.  Under check-asan
# the sanitizers make the old behaviour fail here.
py=/usr/bin/python3
$py -c 'import onnx' 2>/dev/null || exit 0
$py - <<'X' || { echo "cannot write the models"; exit 1; }
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
vi = helper.make_tensor_value_info
def empty_string(name):
    a = onnx.AttributeProto()
    a.name = name
    a.type = onnx.AttributeProto.STRING
    return a
c = helper.make_node("Constant", [], ["y"])
c.attribute.append(empty_string("value"))
g = helper.make_graph([c], "g", [], [vi("y", TensorProto.FLOAT, None)])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "const.onnx")
r = helper.make_node("Resize", ["x", "roi", "sc"], ["y"])
r.attribute.append(empty_string("mode"))
g = helper.make_graph([r], "g", [vi("x", TensorProto.FLOAT, [1, 1, 2, 2])],
                      [vi("y", TensorProto.FLOAT, None)],
                      [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
                       numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "sc")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "resize.onnx")
X
fail=0
expect() {
	msg=$1
	shift
	"$ein" "$@" > out 2> err
	rc=$?
	if [ $rc -ne 1 ] || ! grep -qF "$msg" err; then
		echo "ein $*: exit $rc, not an error with '$msg':"
		cat out err
		fail=1
	fi
}
expect "error: const.onnx: node '' (Constant): " import const.onnx -o const.ein
expect "(Resize): mode '' is not supported" import resize.onnx -o resize.ein
exit $fail
