// Every class of malformed model is rejected with an error naming what is
// wrong, and none of them crashes (this suite also runs under ASan/UBSan).
#include <cstring>
#include <limits>
#include <fstream>
#include <iterator>
#include <random>

#include <gtest/gtest.h>

#include "relite/relite.h"
#include "src/core/model/model_facts.h"
#include "tests/testing/graph_builder.h"
#include "tests/testing/models_dir.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::GraphBuilder;

constexpr int32_t kAdd = 0;
constexpr int32_t kCustom = 32;

StatusOr<std::unique_ptr<Model>> Load(const std::vector<uint8_t>& bytes) {
  return Model::FromBuffer(bytes.data(), bytes.size(), "bad.tflite");
}

void ExpectError(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  auto m = Load(bytes);
  ASSERT_FALSE(m.ok()) << "expected an error containing '" << fragment << "'";
  EXPECT_NE(m.status().message().find(fragment), std::string::npos) << m.status().ToString();
  EXPECT_NE(m.status().message().find("bad.tflite"), std::string::npos) << "error names the file";
}

// in0 + in1 -> out, with a constant second operand.
GraphBuilder ValidAdd() {
  GraphBuilder g;
  const int add = g.AddOpCode(kAdd);
  const int a = g.AddTensor(DataType::kFloat32, {1, 2, 2, 3}, 0, "a");
  const int b = g.AddTensor(DataType::kFloat32, {3}, g.AddBufferOf(std::vector<float>{1, 2, 3}), "b");
  const int out = g.AddTensor(DataType::kFloat32, {1, 2, 2, 3}, 0, "out");
  g.AddOp(add, {a, b}, {out});
  g.SetInputs({a});
  g.SetOutputs({out});
  return g;
}

TEST(ModelVerifier, AcceptsValidModel) {
  auto m = Load(ValidAdd().Finish());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto [data, size] = (*m)->buffer(1);
  EXPECT_EQ(size, 12u);
  EXPECT_NE(data, nullptr);
}

TEST(ModelVerifier, RejectsEmptyAndTinyInput) {
  EXPECT_FALSE(Model::FromBuffer(nullptr, 0).ok());
  ExpectError({1, 2, 3}, "truncated");
}

TEST(ModelVerifier, RejectsWrongMagic) {
  auto bytes = ValidAdd().Finish();
  bytes[4] = 'X';
  ExpectError(bytes, "wrong magic");
}

TEST(ModelVerifier, RejectsEveryTruncation) {
  const auto bytes = ValidAdd().Finish();
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
    if (cut.empty()) continue;
    EXPECT_FALSE(Load(cut).ok()) << "prefix of " << len << " bytes was accepted";
  }
}

TEST(ModelVerifier, RejectsUnsupportedSchemaVersion) { ExpectError(ValidAdd().Finish(2), "schema version 2"); }

TEST(ModelVerifier, RejectsOutOfRangeTensorIndex) {
  GraphBuilder g = ValidAdd();
  const int add = 0;
  g.AddOp(add, {0, 17}, {2});
  ExpectError(g.Finish(), "refers to tensor 17, out of range");
}

TEST(ModelVerifier, RejectsOutOfRangeGraphInput) {
  GraphBuilder g = ValidAdd();
  g.SetInputs({9});
  ExpectError(g.Finish(), "input list refers to tensor 9");
}

TEST(ModelVerifier, RejectsOutOfRangeBufferIndex) {
  GraphBuilder g = ValidAdd();
  g.AddTensor(DataType::kFloat32, {1}, 42, "dangling");
  ExpectError(g.Finish(), "tensor 3 ('dangling'): buffer index 42 is out of range");
}

TEST(ModelVerifier, RejectsBufferTooShortForShape) {
  GraphBuilder g;
  const int add = g.AddOpCode(kAdd);
  const int a = g.AddTensor(DataType::kFloat32, {4}, 0, "a");
  const int b = g.AddTensor(DataType::kFloat32, {4}, g.AddBufferOf(std::vector<float>{1, 2}), "weights");
  const int out = g.AddTensor(DataType::kFloat32, {4}, 0, "out");
  g.AddOp(add, {a, b}, {out});
  g.SetInputs({a});
  g.SetOutputs({out});
  ExpectError(g.Finish(), "tensor 1 ('weights'): buffer 1 holds 8 bytes but shape [4] of float32 needs 16");
}

// ValidAdd plus an unused constant of `type` and `shape` holding `bytes`:
// the verifier checks every constant, used or not.
std::vector<uint8_t> AddWithConstant(DataType type, const Shape& shape, const std::vector<uint8_t>& bytes) {
  GraphBuilder g = ValidAdd();
  g.AddTensor(type, shape, g.AddBuffer(bytes), "table");
  return g.Finish();
}

// A string table written field by field, to corrupt: count, count + 1
// offsets, then the characters ({2, 16, 18, 21}, "abcde" is "ab", "cde").
std::vector<uint8_t> StringBuffer(const std::vector<int32_t>& header, const std::string& chars) {
  std::vector<uint8_t> bytes(header.size() * 4);
  std::memcpy(bytes.data(), header.data(), bytes.size());
  bytes.insert(bytes.end(), chars.begin(), chars.end());
  return bytes;
}

TEST(ModelVerifier, AcceptsWellFormedStringAndInt4Constants) {
  EXPECT_TRUE(Load(AddWithConstant(DataType::kString, {2}, testing::StringTensorBytes({"ab", "cde"}))).ok());
  EXPECT_TRUE(Load(AddWithConstant(DataType::kString, {1}, testing::StringTensorBytes({""}))).ok()) << "empty string";
  EXPECT_TRUE(Load(AddWithConstant(DataType::kInt4, {5}, {0x12, 0x34, 0x05})).ok()) << "packed";
  EXPECT_TRUE(Load(AddWithConstant(DataType::kInt4, {3}, {1, 2, 3})).ok()) << "one per byte";
}

// A string constant is read through its own table: every class of bad table
// is caught at load, before a kernel or a delegate reads it.
TEST(ModelVerifier, RejectsMalformedStringConstants) {
  ExpectError(AddWithConstant(DataType::kString, {2}, {2, 0, 0}), "less than a count and one offset");
  ExpectError(AddWithConstant(DataType::kString, {3}, StringBuffer({2, 16, 18, 21}, "abcde")),
              "holds 2 strings but shape [3] has 3 elements");
  // A huge declared shape with a count to match, in a buffer of 8 bytes.
  ExpectError(AddWithConstant(DataType::kString, {1 << 30}, StringBuffer({1 << 30, 0}, "")),
              "less than the 4294967304 of its offset table");
  ExpectError(AddWithConstant(DataType::kString, {2}, StringBuffer({2, 12, 18, 21}, "abcde")),
              "offset 0 is 12");
  ExpectError(AddWithConstant(DataType::kString, {2}, StringBuffer({2, 16, 15, 21}, "abcde")),
              "offset 1 is 15");
  ExpectError(AddWithConstant(DataType::kString, {2}, StringBuffer({2, 16, 18, 22}, "abcde")),
              "offset 2 is 22, outside [18, 21]");
  ExpectError(AddWithConstant(DataType::kString, {1}, StringBuffer({1, 12, -4}, "")), "offset 1 is -4");
}

TEST(ModelVerifier, RejectsInt4ConstantOfWrongSize) {
  ExpectError(AddWithConstant(DataType::kInt4, {5}, {1, 2}), "holds 2 bytes but shape [5] of int4 needs 3 (packed) or 5");
  ExpectError(AddWithConstant(DataType::kInt4, {1 << 30, 1 << 10}, {1, 2, 3, 4}), "of int4 needs 549755813888");
}

// uint8 a [1,2,2,3] + int8 per-channel constant b [3] -> uint8 out, with
// quantization parameters chosen by the caller for one tensor.
std::vector<uint8_t> QuantizedAdd(int which, const std::vector<float>& scale, const std::vector<int64_t>& zp,
                                  int qdim = 0) {
  GraphBuilder g;
  const int add = g.AddOpCode(kAdd);
  const int a = g.AddTensor(DataType::kUInt8, {1, 2, 2, 3}, 0, "a");
  const int b = g.AddTensor(DataType::kInt8, {3}, g.AddBufferOf(std::vector<int8_t>{1, 2, 3}), "b");
  const int out = g.AddTensor(DataType::kUInt8, {1, 2, 2, 3}, 0, "out");
  g.SetQuantization(a, {0.5f}, {128});
  g.SetQuantization(b, {0.1f, 0.2f, 0.3f}, {0, 0, 0});
  g.SetQuantization(out, {0.25f}, {3});
  g.SetQuantization(which, scale, zp, qdim);
  g.AddOp(add, {a, b}, {out});
  g.SetInputs({a});
  g.SetOutputs({out});
  return g.Finish();
}

TEST(ModelVerifier, AcceptsValidQuantization) {
  auto m = Load(QuantizedAdd(0, {0.5f}, {0}));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
}

TEST(ModelVerifier, RejectsInvalidQuantization) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectError(QuantizedAdd(0, {0.f}, {0}), "tensor 0 ('a'): quantization scale[0] is 0");
  ExpectError(QuantizedAdd(0, {-0.5f}, {0}), "tensor 0 ('a'): quantization scale[0] is -0.5");
  ExpectError(QuantizedAdd(2, {inf}, {0}), "tensor 2 ('out'): quantization scale[0] is inf");
  ExpectError(QuantizedAdd(2, {nan}, {0}), "scales must be positive and finite");
  ExpectError(QuantizedAdd(0, {0.5f}, {256}), "tensor 0 ('a'): quantization zero_point[0] is 256, outside the uint8 range [0, 255]");
  ExpectError(QuantizedAdd(0, {0.5f}, {-1}), "zero_point[0] is -1, outside the uint8 range");
  ExpectError(QuantizedAdd(1, {0.1f, 0.2f, 0.3f}, {0, 0, 128}), "tensor 1 ('b'): quantization zero_point[2] is 128, outside the int8 range [-128, 127]");
  ExpectError(QuantizedAdd(1, {0.1f, 0.2f}, {0, 0}), "tensor 1 ('b'): 2 per-channel scales but dimension 0 has size 3");
  ExpectError(QuantizedAdd(1, {0.1f, 0.2f, 0.3f}, {0, 0}), "quantization has 3 scales but 2 zero points");
  ExpectError(QuantizedAdd(1, {0.1f, 0.2f, 0.3f}, {0, 0, 0}, 1), "quantized_dimension 1 is out of range for rank 1");
}

TEST(ModelVerifier, RejectsUnknownOperatorCode) {
  GraphBuilder g = ValidAdd();
  g.AddOpCode(5000);
  ExpectError(g.Finish(), "operator code 1: builtin code 5000 is not a known operator");
}

TEST(ModelVerifier, RejectsOpcodeIndexOutOfRange) {
  GraphBuilder g = ValidAdd();
  const int t = g.AddTensor(DataType::kFloat32, {1});
  g.AddOp(7, {0}, {t});
  ExpectError(g.Finish(), "opcode index 7 is out of range");
}

TEST(ModelVerifier, RejectsCustomOpWithoutName) {
  GraphBuilder g = ValidAdd();
  g.AddOpCode(kCustom, "");
  ExpectError(g.Finish(), "custom operator without a name");
}

TEST(ModelVerifier, RejectsReadBeforeWrite) {
  // out2 = add(out3, a) comes before out3 is written: not an execution order.
  GraphBuilder g;
  const int add = g.AddOpCode(kAdd);
  const int a = g.AddTensor(DataType::kFloat32, {2}, 0, "a");
  const int x = g.AddTensor(DataType::kFloat32, {2}, 0, "x");
  const int y = g.AddTensor(DataType::kFloat32, {2}, 0, "y");
  g.AddOp(add, {y, a}, {x});
  g.AddOp(add, {x, a}, {y});
  g.SetInputs({a});
  g.SetOutputs({y});
  ExpectError(g.Finish(), "operator 0 (ADD) reads tensor 2 ('y') before any operator writes it");
}

TEST(ModelVerifier, RejectsTensorWrittenTwiceOrConstantWritten) {
  GraphBuilder g = ValidAdd();
  g.AddOp(0, {0, 1}, {2});
  ExpectError(g.Finish(), "already written by operator 0");
  GraphBuilder g2 = ValidAdd();
  g2.AddOp(0, {0, 2}, {1});
  ExpectError(g2.Finish(), "which is a constant or a graph input");
}

TEST(ModelVerifier, RejectsNegativeDimension) {
  GraphBuilder g = ValidAdd();
  g.AddTensor(DataType::kFloat32, {1, -3}, 0, "neg");
  ExpectError(g.Finish(), "negative dimension -3");
}

TEST(ModelVerifier, RejectsUnwrittenOutput) {
  GraphBuilder g = ValidAdd();
  const int orphan = g.AddTensor(DataType::kFloat32, {1}, 0, "orphan");
  g.SetOutputs({2, orphan});
  ExpectError(g.Finish(), "output tensor 3 ('orphan') is never written");
}

TEST(ModelVerifier, ReadsDeprecatedBuiltinCodeField) {
  GraphBuilder g;
  const int add = g.AddOpCode(kAdd + 3, "", 1, /*deprecated_code_only=*/true);  // CONV_2D in the 8-bit field
  const int a = g.AddTensor(DataType::kFloat32, {2});
  const int out = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(add, {a}, {out});
  g.SetInputs({a});
  g.SetOutputs({out});
  const auto bytes = g.Finish();
  auto m = Load(bytes);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  OpResolver empty;
  auto interp = InterpreterBuilder(**m, empty).Build();
  ASSERT_FALSE(interp.ok());
  EXPECT_NE(interp.status().message().find("CONV_2D"), std::string::npos) << interp.status().ToString();
}

TEST(ModelVerifier, MissingFileIsAnIoError) {
  auto m = Model::FromFile("/nonexistent/dir/model.tflite");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kIoError);
  EXPECT_NE(m.status().message().find("/nonexistent/dir/model.tflite"), std::string::npos);
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Random byte flips in a real model: loading, building, allocating and
// running must each either succeed or return an error, never crash.
TEST(ModelVerifier, RandomByteFlipsInRealModelNeverCrash) {
  RELITE_REQUIRE_MODELS_DIR();
  const auto original = ReadFile(testing::ModelsDir() + "/face_detection_short_range.tflite");
  ASSERT_FALSE(original.empty());
  BuiltinOpResolver resolver;
  // A flip can declare far more work that still fits the default limits
  // (one makes the batch 1025: 1.4 G multiply-adds, 3 s here and 8 minutes
  // under qemu): bound a mutant's work at 50x the model's, as an
  // application running untrusted models would, so such mutants end in
  // ResourceExhausted at AllocateTensors instead.
  ResourceLimits limits;
  {
    auto model = Load(original);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(1).Build();
    ASSERT_TRUE(interp.ok()) << interp.status().ToString();
    ASSERT_TRUE((*interp)->AllocateTensors().ok());
    ASSERT_GT((*interp)->estimated_macs(), 0.0);
    limits.max_macs = 50 * (*interp)->estimated_macs();
  }
  std::mt19937 rng(1234);
  int loaded = 0, rejected = 0, too_much_work = 0;
  for (int round = 0; round < 150; ++round) {
    auto bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; ++k) {
      // Bias flips toward the flatbuffer tables at the end of the file,
      // where structure (not weight values) lives.
      const size_t span = std::min<size_t>(bytes.size(), 16384);
      const size_t pos = (rng() % 2) ? bytes.size() - 1 - rng() % span : rng() % bytes.size();
      bytes[pos] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    auto m = Load(bytes);
    if (!m.ok()) {
      ++rejected;
      continue;
    }
    ++loaded;
    auto interp = InterpreterBuilder(**m, resolver).SetNumThreads(1).SetResourceLimits(limits).Build();
    if (!interp.ok()) continue;
    const Status allocated = (*interp)->AllocateTensors();
    if (!allocated.ok()) {
      if (allocated.code() == StatusCode::kResourceExhausted) ++too_much_work;
      continue;
    }
    EXPECT_LE((*interp)->estimated_macs(), limits.max_macs);
    (void)(*interp)->Invoke();
  }
  EXPECT_GT(loaded + rejected, 0);
  // Round 86 of this seed makes the batch 1025 (see above).
  EXPECT_GT(too_much_work, 0);
}

TEST(ModelVerifier, CustomOpWithoutRegistrationNamesTheOp) {
  RELITE_REQUIRE_MODELS_DIR();
  auto m = Model::FromFile(testing::ModelsDir() + "/model_invoking_error.tflite");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**m, resolver).Build();
  ASSERT_FALSE(interp.ok());
  EXPECT_NE(interp.status().message().find("fake-op-double"), std::string::npos) << interp.status().ToString();
  EXPECT_NE(interp.status().message().find("model_invoking_error.tflite"), std::string::npos);
}

}  // namespace
}  // namespace relite

namespace relite {
namespace {

TEST(ModelVerifier, EmptyTensorsNeedNoWriter) {
  // A zero-element constant (e.g. an empty axis list) has no bytes but is readable.
  GraphBuilder g;
  const int add = g.AddOpCode(kAdd);
  const int a = g.AddTensor(DataType::kFloat32, {0}, 0, "a");
  const int empty = g.AddTensor(DataType::kInt32, {0}, 0, "empty_axes");
  const int out = g.AddTensor(DataType::kFloat32, {0}, 0, "out");
  g.AddOp(add, {a, empty}, {out});
  g.SetInputs({a});
  g.SetOutputs({out});
  auto m = Load(g.Finish());
  EXPECT_TRUE(m.ok()) << m.status().ToString();
}

}  // namespace
}  // namespace relite

namespace relite {
namespace {

// Finding 2 of the untrusted-model probe: a graph input naming a weight. Its
// memory would be the read-only mapped file (a write crashes) or, with
// FromBuffer, the weights themselves (silently overwritten).
TEST(ModelVerifier, RejectsGraphInputThatIsAConstant) {
  GraphBuilder g = ValidAdd();
  g.SetInputs({0, 1});  // tensor 1 ('b') holds constant data
  ExpectError(g.Finish(), "input list names tensor 1 ('b'), which holds constant data");
}

// Finding 3: element counts wrapped past 2^64 for shapes like this one and
// the model "ran"; the count is now computed with overflow checks.
TEST(ModelVerifier, RejectsShapeWhoseElementCountOverflows) {
  GraphBuilder g = ValidAdd();
  g.AddTensor(DataType::kFloat32, {49477, 7695460, 48448661, 3}, 0, "huge");
  ExpectError(g.Finish(), "tensor 3 ('huge'): shape [49477,7695460,48448661,3] has more than 2^40 elements");
  GraphBuilder g2 = ValidAdd();
  g2.AddTensor(DataType::kFloat32, {1 << 20, 1 << 20, 2}, 0, "just_over");
  ExpectError(g2.Finish(), "more than 2^40 elements");
}

TEST(ModelVerifier, FactsRecordWhatWasVerified) {
  auto m = Load(ValidAdd().Finish());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const ModelFacts& facts = (*m)->facts();
  ASSERT_EQ(facts.subgraphs.size(), 1u);
  const auto& t = facts.subgraphs[0].tensors;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].elements, 12);
  EXPECT_TRUE(t[0].graph_input);
  EXPECT_FALSE(t[0].constant());
  EXPECT_TRUE(t[1].constant());
  EXPECT_EQ(t[1].data_bytes, 12u);
  EXPECT_TRUE(t[2].graph_output);
}

TEST(EscapeUntrusted, ControlBytesAndInvalidUtf8BecomeHex) {
  EXPECT_EQ(EscapeUntrusted("conv/weights"), "conv/weights");
  EXPECT_EQ(EscapeUntrusted("\x1b[31mred\x07"), "\\x1b[31mred\\x07");
  EXPECT_EQ(EscapeUntrusted("caf\xc3\xa9 \xe6\x97\xa5"), "caf\xc3\xa9 \xe6\x97\xa5");  // valid UTF-8 stays
  EXPECT_EQ(EscapeUntrusted("bad\xc3"), "bad\\xc3");                                  // truncated sequence
  EXPECT_EQ(EscapeUntrusted("\xc0\xaf"), "\\xc0\\xaf");                               // overlong
  EXPECT_EQ(EscapeUntrusted("\xed\xa0\x80"), "\\xed\\xa0\\x80");                      // surrogate
  EXPECT_EQ(EscapeUntrusted("\xc2\x9b"), "\\xc2\\x9b");                               // C1 control (CSI)
  EXPECT_EQ(EscapeUntrusted("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
  EXPECT_EQ(EscapeUntrusted("a\nb", /*keep_newlines=*/true), "a\nb");
  const std::string once = EscapeUntrusted("\x1b\\x1b");
  EXPECT_EQ(EscapeUntrusted(once), once);  // idempotent
}

// Finding 6: names from the file reach messages; every Status escapes them.
TEST(ModelVerifier, ErrorsEscapeNamesFromTheFile) {
  GraphBuilder g = ValidAdd();
  g.AddTensor(DataType::kFloat32, {1, -1}, 0, "\x1b]0;owned\x07\xff");
  auto m = Load(g.Finish());
  ASSERT_FALSE(m.ok());
  const std::string& msg = m.status().message();
  EXPECT_NE(msg.find("\\x1b]0;owned\\x07\\xff"), std::string::npos) << msg;
  for (char c : msg) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') << msg;
}

}  // namespace
}  // namespace relite
