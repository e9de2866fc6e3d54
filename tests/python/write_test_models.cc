// relite_python_test_models DIR: the small models the Python suite needs and
// the real ones do not provide: a SignatureDef, and a free (-1) dimension.
#include <cstdio>
#include <string>

#include "relite/model_writer.h"

namespace {

// x, y [-1,4] float32 -> ADD -> sum, signature "serving_default" (x, y -> sum).
relite::Status WriteSignatureAdd(const std::string& path) {
  relite::ModelWriter m("relite python test: ADD with a signature and a free batch dimension");
  const int x = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "x");
  const int y = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "y");
  const int sum = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "sum");
  m.AddOp(relite::BuiltinOp::kAdd, {x, y}, {sum}, relite::writer::ArithmeticOptions{});
  for (int t : {x, y, sum}) m.SetShapeSignature(t, {-1, 4});
  m.SetInputs({x, y});
  m.SetOutputs({sum});
  m.AddSignature("serving_default", {{"x", x}, {"y", y}}, {{"sum", sum}});
  return m.WriteFile(path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: relite_python_test_models DIR\n");
    return 2;
  }
  const relite::Status s = WriteSignatureAdd(std::string(argv[1]) + "/signature_add.tflite");
  if (!s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
