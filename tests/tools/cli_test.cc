// End-to-end tests of the relite command-line tool: runs the built binary and
// checks exit codes, the one-line `error:` contract, files written and the
// exactness of the image input path against the golden inputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relite/model_writer.h"
#include "tests/tools/cli_test_util.h"

namespace relite::cli_testing {
namespace {

namespace fs = std::filesystem;

// A failure must be exactly one stderr line "error: ...", a non-zero exit
// code and no crash (signals show up as 128 + N).
void ExpectErrorLine(const CommandResult& r, const std::vector<std::string>& must_contain) {
  EXPECT_NE(r.exit_code, 0) << "stdout:\n" << r.out;
  EXPECT_GT(r.exit_code, 0) << "could not run the CLI: " << r.err;
  EXPECT_LT(r.exit_code, 128) << "the CLI crashed; stderr:\n" << r.err;
  std::vector<std::string> lines = Lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << "stderr must be one line, got:\n" << r.err;
  EXPECT_EQ(lines[0].rfind("error: ", 0), 0u) << lines[0];
  for (const std::string& s : must_contain) EXPECT_NE(lines[0].find(s), std::string::npos) << "'" << s << "' not in: " << lines[0];
}

// Writes a .npy (version 1.0) holding `data` with dtype `descr` and `shape`.
void WriteNpy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
              const std::vector<uint8_t>& data) {
  std::string sh = "(";
  for (int64_t d : shape) sh += std::to_string(d) + ", ";
  sh += ")";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(dict.size() & 0xFF);
  file += static_cast<char>(dict.size() >> 8);
  file += dict;
  file.append(reinterpret_cast<const char*>(data.data()), data.size());
  WriteBinaryFile(path, file.data(), file.size());
}

// Reads a .npy's descr and shape from its header (as written by the CLI).
bool ReadNpyHeader(const std::string& path, std::string* descr, std::string* shape, size_t* data_bytes) {
  std::vector<uint8_t> b = ReadBinaryFile(path);
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0 || b[6] != 1) return false;
  size_t len = b[8] | (static_cast<size_t>(b[9]) << 8);
  if (10 + len > b.size() || (10 + len) % 64 != 0) return false;
  std::string h(reinterpret_cast<const char*>(b.data() + 10), len);
  size_t d = h.find("'descr': '");
  size_t s = h.find("'shape': (");
  if (d == std::string::npos || s == std::string::npos || h.find("'fortran_order': False") == std::string::npos)
    return false;
  *descr = h.substr(d + 10, h.find('\'', d + 10) - (d + 10));
  *shape = h.substr(s + 9, h.find(')', s) - (s + 9) + 1);
  *data_bytes = b.size() - 10 - len;
  return true;
}

// --- Tests that need no model ---

TEST(CliTest, VersionAndHelp) {
  CommandResult v = RunCli({"--version"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("relite"), std::string::npos) << v.out;

  CommandResult h = RunCli({"--help"});
  EXPECT_EQ(h.exit_code, 0) << h.err;
  EXPECT_NE(h.out.find("run"), std::string::npos);
  EXPECT_NE(h.out.find("inspect"), std::string::npos);
  EXPECT_NE(h.out.find("bench"), std::string::npos);

  CommandResult rh = RunCli({"run", "--help"});
  EXPECT_EQ(rh.exit_code, 0) << rh.err;
  EXPECT_NE(rh.out.find("--input"), std::string::npos) << rh.out;
  EXPECT_NE(rh.out.find("--float-range"), std::string::npos) << rh.out;
}

TEST(CliTest, OpsTableIsDocsOpsMd) {
  // docs/OPS.md is `relite ops` verbatim: a kernel added to (or dropped from)
  // an op list without regenerating the page fails here.
  CommandResult r = RunCli({"ops"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| 3 | CONV_2D | 1-"), std::string::npos) << r.out;
  std::ifstream f(std::string(RELITE_SOURCE_DIR) + "/docs/OPS.md", std::ios::binary);
  ASSERT_TRUE(f.good()) << "docs/OPS.md is missing";
  const std::string doc((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(doc == r.out) << "docs/OPS.md is out of date: regenerate it with `relite ops > docs/OPS.md`";
  // --missing lists only ops without a CPU kernel.
  CommandResult m = RunCli({"ops", "--missing"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.out.find("| CONV_2D |"), std::string::npos);
  EXPECT_NE(m.out.find("| HASHTABLE_LOOKUP |"), std::string::npos) << m.out;
}

TEST(CliTest, UnknownFlagIsOneErrorLine) {
  ExpectErrorLine(RunCli({"run", "model.tflite", "--bogus-flag"}), {"--bogus-flag"});
  ExpectErrorLine(RunCli({"bench", "model.tflite", "--nope"}), {"--nope"});
  ExpectErrorLine(RunCli({"--what"}), {"--what"});
}

TEST(CliTest, UsageErrorsAreOneErrorLine) {
  ExpectErrorLine(RunCli({}), {});                                     // no subcommand
  ExpectErrorLine(RunCli({"run"}), {"MODEL"});                          // no model
  ExpectErrorLine(RunCli({"frobnicate"}), {"frobnicate"});              // unknown subcommand
  ExpectErrorLine(RunCli({"bench", "m.tflite", "--runs", "0"}), {"--runs"});
  ExpectErrorLine(RunCli({"run", "m.tflite", "--threads", "abc"}), {"--threads"});
}

TEST(CliTest, MissingModelFile) {
  const std::string path = "/nonexistent/dir/no_such_model.tflite";
  ExpectErrorLine(RunCli({"run", path}), {"no_such_model.tflite"});
  ExpectErrorLine(RunCli({"inspect", path}), {"no_such_model.tflite"});
  ExpectErrorLine(RunCli({"bench", path, "--json"}), {"no_such_model.tflite"});
}

TEST(CliTest, UnknownDelegateListsTheAvailableOnes) {
  for (const char* cmd : {"run", "inspect", "bench"}) {
    SCOPED_TRACE(cmd);
    ExpectErrorLine(RunCli({cmd, "/nonexistent/m.tflite", "--delegate", "nosuch"}),
                    {"unknown delegate 'nosuch'", "(available: "});
  }
}

TEST(CliTest, KeepDenormalsKeepsSubnormalFloats) {
  // x + y with x a subnormal float: zero by default (flush_denormals), x with --keep-denormals.
  TempDir tmp;
  relite::ModelWriter w("cli test: ADD of a subnormal");
  const int x = w.AddTensor(relite::DataType::kFloat32, {1, 4}, "x");
  const int y = w.AddTensor(relite::DataType::kFloat32, {1, 4}, "y");
  const int sum = w.AddTensor(relite::DataType::kFloat32, {1, 4}, "sum");
  w.AddOp(relite::BuiltinOp::kAdd, {x, y}, {sum}, relite::writer::ArithmeticOptions{});
  w.SetInputs({x, y});
  w.SetOutputs({sum});
  const std::string model = tmp / "subnormal_add.tflite";
  ASSERT_TRUE(w.WriteFile(model).ok());
  const std::vector<float> tiny(4, 1e-40f), zeros(4, 0.f);
  auto bytes = [](const std::vector<float>& v) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                reinterpret_cast<const uint8_t*>(v.data()) + v.size() * sizeof(float));
  };
  const std::string a = tmp / "a.npy", b = tmp / "b.npy";
  WriteNpy(a, "<f4", {1, 4}, bytes(tiny));
  WriteNpy(b, "<f4", {1, 4}, bytes(zeros));
  for (const bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "--keep-denormals" : "default");
    const std::string out_dir = tmp / (keep ? "kept" : "flushed");
    std::vector<std::string> args = {"run", model, "-i", a, "-i", b, "-o", out_dir};
    if (keep) args.push_back("--keep-denormals");
    CommandResult r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<uint8_t> out = ReadBinaryFile(out_dir + "/output_0.bin");
    ASSERT_EQ(out.size(), 16u);
    EXPECT_EQ(out, bytes(keep ? tiny : zeros));
  }
}

// --- Tests on the real models ---

class CliModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ModelsDir();
    if (dir_.empty()) {
      if (ModelsRequired()) FAIL() << "RELITE_REQUIRE_MODELS=1 but the models folder is missing (set RELITE_MODELS_DIR)";
      GTEST_SKIP() << "real models not found (set RELITE_MODELS_DIR; default " <<
#ifdef RELITE_DEFAULT_MODELS_DIR
          RELITE_DEFAULT_MODELS_DIR
#else
          "(none)"
#endif
                   << ")";
    }
  }
  std::string Model(const std::string& name) const { return dir_ + "/" + name + ".tflite"; }
  std::string File(const std::string& rel) const { return dir_ + "/" + rel; }
  std::string Golden(const std::string& model, const std::string& c, const std::string& file) const {
    return dir_ + "/golden/" + model + "/" + c + "/" + file;
  }

  std::string dir_;
  TempDir tmp_;
};


constexpr const char* kMobilenet = "mobilenet_v1_0.25_128_quant";  // uint8 [1,128,128,3] -> uint8 [1,1001]
// split_concat: three uint8 inputs [1,8,8,3], [1,8,8,1], [1,8,8,2] -> five outputs.
// Used for the input-validation errors: its kernels are the simplest.
constexpr const char* kSplitConcat = "split_concat";

TEST_F(CliModelsTest, WrongInputCount) {
  const std::string in = Golden(kSplitConcat, "seed1", "input_0.bin");
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "--input", in}), {"3 inputs", "1 --input"});
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", in, "-i", in, "-i", in, "-i", in}),
                  {"3 inputs", "4 --input"});
}

TEST_F(CliModelsTest, BinOfWrongSize) {
  const std::string bad = tmp_ / "short.bin";
  std::vector<uint8_t> ten(10, 7);
  WriteBinaryFile(bad, ten.data(), ten.size());
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "--input", Golden(kSplitConcat, "seed1", "input_0.bin"),
                          "--input", bad, "--input", Golden(kSplitConcat, "seed1", "input_2.bin")}),
                  {"short.bin", "10 bytes", "64", "input 1", "inputs/rnn1"});
}

TEST_F(CliModelsTest, NpyOfWrongDtypeAndShape) {
  const std::string in1 = Golden(kSplitConcat, "seed1", "input_1.bin");
  const std::string in2 = Golden(kSplitConcat, "seed1", "input_2.bin");
  const std::string f32 = tmp_ / "wrong_dtype.npy";
  WriteNpy(f32, "<f4", {1, 8, 8, 3}, std::vector<uint8_t>(8 * 8 * 3 * 4, 0));
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", f32, "-i", in1, "-i", in2}),
                  {"wrong_dtype.npy", "float32", "uint8", "input 0"});

  const std::string shape = tmp_ / "wrong_shape.npy";
  WriteNpy(shape, "|u1", {1, 8, 8, 2}, std::vector<uint8_t>(8 * 8 * 2, 0));
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", shape, "-i", in1, "-i", in2}),
                  {"wrong_shape.npy", "[1,8,8,2]", "[1,8,8,3]"});

  const std::string fortran = tmp_ / "fortran.npy";
  WriteNpy(fortran, "|u1", {1, 8, 8, 3}, std::vector<uint8_t>(8 * 8 * 3, 0));
  std::vector<uint8_t> bytes = ReadBinaryFile(fortran);
  std::string s(bytes.begin(), bytes.end());
  s.replace(s.find("False"), 5, "True ");
  WriteBinaryFile(fortran, s.data(), s.size());
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", fortran, "-i", in1, "-i", in2}), {"fortran"});

  const std::string truncated = tmp_ / "truncated.npy";
  WriteNpy(truncated, "|u1", {1, 8, 8, 3}, std::vector<uint8_t>(100, 0));
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", truncated, "-i", in1, "-i", in2}), {"truncated.npy"});
}

TEST_F(CliModelsTest, NpyOfAnotherShapeResizesAFreeDimension) {
  // x, y [1,4] with signature [-1,4] -> ADD: an .npy of [3,4] resizes the batch.
  relite::ModelWriter w("cli test: ADD with a free batch dimension");
  const int x = w.AddTensor(relite::DataType::kFloat32, {1, 4}, "x");
  const int y = w.AddTensor(relite::DataType::kFloat32, {1, 4}, "y");
  const int sum = w.AddTensor(relite::DataType::kFloat32, {1, 4}, "sum");
  w.AddOp(relite::BuiltinOp::kAdd, {x, y}, {sum}, relite::writer::ArithmeticOptions{});
  for (int t : {x, y, sum}) w.SetShapeSignature(t, {-1, 4});
  w.SetInputs({x, y});
  w.SetOutputs({sum});
  w.AddSignature("serving_default", {{"x", x}, {"y", y}}, {{"sum", sum}});
  const std::string model = tmp_ / "free_batch.tflite";
  ASSERT_TRUE(w.WriteFile(model).ok());
  // inspect lists the signature.
  CommandResult info = RunCli({"inspect", model});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("signatures (1)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("serving_default"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("x: 0, y: 1"), std::string::npos) << info.out;
  std::vector<float> ones(12, 1.f), twos(12, 2.f);
  const std::string a = tmp_ / "a.npy", b = tmp_ / "b.npy";
  WriteNpy(a, "<f4", {3, 4}, std::vector<uint8_t>(reinterpret_cast<uint8_t*>(ones.data()), reinterpret_cast<uint8_t*>(ones.data()) + 48));
  WriteNpy(b, "<f4", {3, 4}, std::vector<uint8_t>(reinterpret_cast<uint8_t*>(twos.data()), reinterpret_cast<uint8_t*>(twos.data()) + 48));
  CommandResult r = RunCli({"run", model, "-i", a, "-i", b, "-o", tmp_ / "out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[3,4]"), std::string::npos) << r.out;
  const std::vector<uint8_t> out = ReadBinaryFile(tmp_ / "out/output_0.bin");
  ASSERT_EQ(out.size(), 48u);
  float v[12];
  std::memcpy(v, out.data(), 48);
  for (float f : v) EXPECT_EQ(f, 3.f);
  // A fixed dimension is a clear error.
  const std::string c = tmp_ / "c.npy";
  WriteNpy(c, "<f4", {3, 5}, std::vector<uint8_t>(60, 0));
  ExpectErrorLine(RunCli({"run", model, "-i", c, "-i", b}), {"c.npy", "[3,5]", "[1,4]", "[-1,4]", "marked -1"});
}

TEST_F(CliModelsTest, UnsupportedInputFileAndBadImage) {
  const std::string in1 = Golden(kSplitConcat, "seed1", "input_1.bin");
  const std::string in2 = Golden(kSplitConcat, "seed1", "input_2.bin");
  const std::string txt = tmp_ / "input.txt";
  WriteBinaryFile(txt, "x", 1);
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", txt, "-i", in1, "-i", in2}), {"input.txt"});
  const std::string fake = tmp_ / "fake.png";
  WriteBinaryFile(fake, "not a png", 9);
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", fake, "-i", in1, "-i", in2}), {"fake.png"});
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "-i", tmp_ / "missing.bin", "-i", in1, "-i", in2}),
                  {"missing.bin"});
  ExpectErrorLine(RunCli({"run", Model(kSplitConcat), "--float-range", "0,2"}), {"--float-range"});
}

TEST_F(CliModelsTest, NpyInputsMatchGoldenOutputs) {
  // The golden inputs as .npy files, in input order: the outputs must match
  // the golden outputs bit-exactly (SPLIT/CONCATENATION only move bytes).
  const std::vector<std::vector<int64_t>> shapes = {{1, 8, 8, 3}, {1, 8, 8, 1}, {1, 8, 8, 2}};
  std::vector<std::string> args = {"run", Model(kSplitConcat)};
  for (int k = 0; k < 3; ++k) {
    const std::string npy = tmp_ / ("input_" + std::to_string(k) + ".npy");
    WriteNpy(npy, "|u1", shapes[static_cast<size_t>(k)],
             ReadBinaryFile(Golden(kSplitConcat, "seed2", "input_" + std::to_string(k) + ".bin")));
    args.insert(args.end(), {"--input", npy});
  }
  const std::string out_dir = tmp_ / "out";
  args.insert(args.end(), {"--output-dir", out_dir, "--threads", "1"});
  CommandResult r = RunCli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int k = 0; k < 5; ++k) {
    const std::string name = "output_" + std::to_string(k) + ".bin";
    EXPECT_EQ(ReadBinaryFile(out_dir + "/" + name), ReadBinaryFile(Golden(kSplitConcat, "seed2", name))) << name;
  }
}

TEST_F(CliModelsTest, OutputDirWritesBinAndNpy) {
  // split_concat: three uint8 inputs, five outputs; pseudo-random inputs.
  const std::string out_dir = tmp_ / "nested/out";  // created if missing
  CommandResult r = RunCli({"run", Model("split_concat"), "--output-dir", out_dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("output " + std::to_string(k));
    const std::string stem = out_dir + "/output_" + std::to_string(k);
    const size_t golden_bytes = ReadBinaryFile(Golden("split_concat", "seed1", "output_" + std::to_string(k) + ".bin")).size();
    ASSERT_GT(golden_bytes, 0u);
    ASSERT_TRUE(fs::exists(stem + ".bin"));
    EXPECT_EQ(fs::file_size(stem + ".bin"), golden_bytes);
    std::string descr, shape;
    size_t data_bytes = 0;
    ASSERT_TRUE(ReadNpyHeader(stem + ".npy", &descr, &shape, &data_bytes));
    EXPECT_EQ(descr, "|u1");
    EXPECT_EQ(data_bytes, golden_bytes);
    const std::vector<uint8_t> npy = ReadBinaryFile(stem + ".npy");
    ASSERT_GE(npy.size(), data_bytes);
    EXPECT_EQ(ReadBinaryFile(stem + ".bin"),
              std::vector<uint8_t>(npy.end() - static_cast<std::ptrdiff_t>(data_bytes), npy.end()));
  }
  EXPECT_FALSE(fs::exists(out_dir + "/output_5.bin"));
  // The summary names every output.
  EXPECT_NE(r.out.find("invoke"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("min"), std::string::npos) << r.out;

  // Deterministic pseudo-random inputs: a second run gives the same outputs.
  const std::string again = tmp_ / "again";
  ASSERT_EQ(RunCli({"run", Model("split_concat"), "--output-dir", again}).exit_code, 0);
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(ReadBinaryFile(out_dir + "/output_" + std::to_string(k) + ".bin"),
              ReadBinaryFile(again + "/output_" + std::to_string(k) + ".bin"));
}

// The image path (decode, bilinear half-pixel resize, uint8 rounding,
// conversion) must reproduce the golden inputs that were made the same way.
TEST_F(CliModelsTest, ImageInputMatchesGoldenUint8) {
  for (const char* c : {"grace_hopper", "cat"}) {
    SCOPED_TRACE(c);
    const std::string out_dir = tmp_ / (std::string("u8_") + c);
    CommandResult r = RunCli({"run", Model(kMobilenet), "--input", File(std::string(c) + ".bmp"), "--output-dir",
                              out_dir, "--save-inputs"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<uint8_t> mine = ReadBinaryFile(out_dir + "/input_0.bin");
    std::vector<uint8_t> golden = ReadBinaryFile(Golden(kMobilenet, c, "input_0.bin"));
    ASSERT_EQ(mine.size(), golden.size());
    size_t mismatches = 0;
    for (size_t i = 0; i < mine.size(); ++i) mismatches += mine[i] != golden[i];
    EXPECT_EQ(mismatches, 0u);
  }
}

TEST_F(CliModelsTest, ImageInputMatchesGoldenUint8NonIntegerScale) {
  // 512x341 -> 224x224: fractional resize weights, where rounding details matter.
  const std::string model = "mobilenet_v2_1.0_224_quant";
  const std::string out_dir = tmp_ / "v2";
  CommandResult r = RunCli({"run", Model(model), "--input", File("cat.bmp"), "--output-dir", out_dir, "--save-inputs"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadBinaryFile(out_dir + "/input_0.bin"), ReadBinaryFile(Golden(model, "cat", "input_0.bin")));
}

TEST_F(CliModelsTest, ImageInputMatchesGoldenFloat) {
  for (const std::string model : {"face_detection_short_range", "face_detection_full_range"}) {
    SCOPED_TRACE(model);
    const std::string out_dir = tmp_ / ("f32_" + model);
    CommandResult r =
        RunCli({"run", Model(model), "--input", File("cat.bmp"), "--output-dir", out_dir, "--save-inputs"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<uint8_t> mine = ReadBinaryFile(out_dir + "/input_0.bin");
    std::vector<uint8_t> golden = ReadBinaryFile(Golden(model, "cat", "input_0.bin"));
    ASSERT_EQ(mine.size(), golden.size());
    ASSERT_EQ(mine.size() % 4, 0u);
    double max_diff = 0;
    for (size_t i = 0; i < mine.size(); i += 4) {
      float a, b;
      std::memcpy(&a, &mine[i], 4);
      std::memcpy(&b, &golden[i], 4);
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(a - b)));
    }
    EXPECT_LE(max_diff, 1e-6);
  }
}

TEST_F(CliModelsTest, ImageInputFloatZeroToOne) {
  const std::string out_dir = tmp_ / "zero_one";
  CommandResult r = RunCli({"run", Model("face_detection_short_range"), "--input", File("cat.bmp"), "--float-range",
                            "0,1", "--output-dir", out_dir, "--save-inputs"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<uint8_t> mine = ReadBinaryFile(out_dir + "/input_0.bin");
  std::vector<uint8_t> golden = ReadBinaryFile(Golden("face_detection_short_range", "cat", "input_0.bin"));
  ASSERT_EQ(mine.size(), golden.size());
  for (size_t i = 0; i < mine.size(); i += 4) {
    float a, b;
    std::memcpy(&a, &mine[i], 4);
    std::memcpy(&b, &golden[i], 4);
    ASSERT_NEAR(a, (b + 1.0f) / 2.0f, 1e-6) << "element " << i / 4;  // same pixel, other mapping
  }
}

TEST_F(CliModelsTest, GrayscaleImageInput) {
  // keras_lstm_mnist_ptq takes uint8 [1,28,28]: a 1-channel image without a channel axis.
  const std::string model = "keras_lstm_mnist_ptq";
  const std::string out_dir = tmp_ / "mnist";
  RunCli({"run", Model(model), "--input", File("mnist_nine.bmp"), "--output-dir", out_dir, "--save-inputs"});
  EXPECT_EQ(ReadBinaryFile(out_dir + "/input_0.bin"), ReadBinaryFile(Golden(model, "mnist_nine", "input_0.bin")));
}

TEST_F(CliModelsTest, TopKWithLabels) {
  CommandResult r = RunCli({"run", Model("mobilenet_v2_1.0_224_quant"), "--input", File("grace_hopper.bmp"), "--labels",
                            File("imagenet_labels.txt"), "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  auto it = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("top-3", 0) == 0; });
  ASSERT_NE(it, lines.end()) << r.out;
  ASSERT_GE(lines.end() - it, 4) << r.out;
  // "score  index  label"
  EXPECT_NE(it[1].find("military uniform"), std::string::npos) << it[1];
  EXPECT_NE(it[1].find("  653  "), std::string::npos) << it[1];
  EXPECT_NEAR(std::stod(it[1]), 0.93, 0.02) << it[1];
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--labels", tmp_ / "no_labels.txt"}), {"no_labels.txt"});
}

TEST_F(CliModelsTest, BenchJson) {
  const std::string model = Model("face_detection_short_range");
  CommandResult r = RunCli({"bench", model, "--json", "--runs", "3", "--warmup", "1", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue v;
  ASSERT_TRUE(JsonParser(r.out).Parse(&v)) << "not one JSON value:\n" << r.out;
  ASSERT_EQ(v.kind, JsonValue::Kind::kObject);
  for (const char* key : {"threads", "runs", "init_ms", "first_ms", "median_ms", "min_ms", "max_ms", "p90_ms",
                          "mean_ms", "peak_rss_mb", "arena_mb"}) {
    ASSERT_TRUE(v.object.count(key)) << key << " missing in " << r.out;
    EXPECT_EQ(v.object[key].kind, JsonValue::Kind::kNumber) << key;
    EXPECT_GE(v.object[key].number, 0) << key;
  }
  ASSERT_TRUE(v.object.count("model"));
  EXPECT_EQ(v.object["model"].kind, JsonValue::Kind::kString);
  EXPECT_EQ(v.object["runs"].number, 3);
  EXPECT_EQ(v.object["threads"].number, 1);
  EXPECT_LE(v.object["min_ms"].number, v.object["median_ms"].number);
  EXPECT_LE(v.object["median_ms"].number, v.object["max_ms"].number);
  EXPECT_LE(v.object["p90_ms"].number, v.object["max_ms"].number);
  EXPECT_GT(v.object["peak_rss_mb"].number, 0);

  EXPECT_EQ(v.object["model"].string, model);
  EXPECT_GT(v.object["arena_mb"].number, 0);

  CommandResult table = RunCli({"bench", model, "--runs", "2", "--warmup", "0"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("median"), std::string::npos) << table.out;
}

TEST_F(CliModelsTest, BenchProfileListsOpsAndSlowestNodes) {
  const std::string model = Model("selfie_segmentation");
  CommandResult r = RunCli({"bench", model, "--runs", "3", "--warmup", "0", "--threads", "1", "--profile-nodes", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("per-op profile"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Convolution2DTransposeBias"), std::string::npos) << r.out;
  const size_t nodes = r.out.find("slowest 4 nodes");
  ASSERT_NE(nodes, std::string::npos) << r.out;
  // Four rows after the header, each with the node's input and output shapes.
  std::vector<std::string> lines;
  std::istringstream in(r.out.substr(nodes));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 6u) << r.out;
  for (size_t i = 2; i < lines.size(); ++i) EXPECT_NE(lines[i].find("[1,"), std::string::npos) << lines[i];
  ExpectErrorLine(RunCli({"bench", model, "--profile-nodes", "0"}), {"--profile-nodes"});
}

TEST_F(CliModelsTest, InspectValidModel) {
  CommandResult r = RunCli({"inspect", Model(kMobilenet)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"inputs", "outputs", "operators", "tensors", "CONV_2D", "DEPTHWISE_CONV_2D", "SOFTMAX",
                        "arena", "persistent", "operator counts", "constant", "scale="})
    EXPECT_NE(r.out.find(s), std::string::npos) << "'" << s << "' missing";
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST_F(CliModelsTest, InspectFloat16Model) {
  CommandResult r = RunCli({"inspect", Model("face_detection_short_range")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DEQUANTIZE"), std::string::npos);
  EXPECT_NE(r.out.find("float16"), std::string::npos);
}

TEST_F(CliModelsTest, InspectUnknownCustomOp) {
  CommandResult r = RunCli({"inspect", Model("model_invoking_error")});
  ExpectErrorLine(r, {"fake-op-double"});
  // The model-level tables are still printed from the flatbuffer.
  EXPECT_NE(r.out.find("fake-op-double"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("operators"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tensors"), std::string::npos) << r.out;
  // And what relite lacks, listed apart.
  EXPECT_NE(r.out.find("not supported by relite (1 kind)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no kernel (custom op)"), std::string::npos) << r.out;

  ExpectErrorLine(RunCli({"run", Model("model_invoking_error")}), {"fake-op-double"});
  ExpectErrorLine(RunCli({"bench", Model("model_invoking_error"), "--json"}), {"fake-op-double"});
}


// --- The CLI soft spots of the untrusted-model probe (issue 13) ---

TEST_F(CliModelsTest, TopNeedsLabelsAndLabelsMustHoldSome) {
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--top", "3"}), {"--top needs --labels"});
  const std::string empty = tmp_ / "empty_labels.txt";
  WriteBinaryFile(empty, "", 0);
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--labels", empty, "--top", "3"}), {"empty_labels.txt", "holds no labels"});
}

// A PNG written by hand: 8-bit RGB, one stored (uncompressed) deflate block.
std::vector<uint8_t> MakePng(int w, int h) {
  auto crc32 = [](const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
  };
  auto be32 = [](std::vector<uint8_t>& v, uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(x >> s));
  };
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  auto chunk = [&](const char* type, const std::vector<uint8_t>& data) {
    be32(png, static_cast<uint32_t>(data.size()));
    std::vector<uint8_t> body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    png.insert(png.end(), body.begin(), body.end());
    be32(png, crc32(body.data(), body.size()));
  };
  std::vector<uint8_t> ihdr;
  be32(ihdr, static_cast<uint32_t>(w));
  be32(ihdr, static_cast<uint32_t>(h));
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
  chunk("IHDR", ihdr);
  std::vector<uint8_t> raw;
  for (int y = 0; y < h; ++y) {
    raw.push_back(0);  // filter: none
    for (int x = 0; x < w * 3; ++x) raw.push_back(static_cast<uint8_t>(x * 17 + y * 29));
  }
  std::vector<uint8_t> z = {0x78, 0x01, 0x01};
  const auto len = static_cast<uint16_t>(raw.size());
  z.insert(z.end(), {static_cast<uint8_t>(len), static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(~len),
                     static_cast<uint8_t>(static_cast<uint16_t>(~len) >> 8)});
  z.insert(z.end(), raw.begin(), raw.end());
  uint32_t a = 1, b = 0;
  for (uint8_t v : raw) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  be32(z, (b << 16) | a);
  chunk("IDAT", z);
  chunk("IEND", {});
  return png;
}

TEST_F(CliModelsTest, PngWithABadCrcIsRejected) {
  std::vector<uint8_t> png = MakePng(8, 8);
  const std::string good = tmp_ / "good.png";
  WriteBinaryFile(good, png.data(), png.size());
  CommandResult ok = RunCli({"run", Model(kMobilenet), "--input", good});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  png[60] ^= 0x40;  // a pixel byte inside IDAT: stb_image alone would decode it
  const std::string bad = tmp_ / "bad_crc.png";
  WriteBinaryFile(bad, png.data(), png.size());
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--input", bad}), {"bad_crc.png", "chunk 'IDAT'", "bad CRC"});
  const std::string cut = tmp_ / "cut.png";
  WriteBinaryFile(cut, png.data(), 50);
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--input", cut}), {"cut.png"});
}

// A float32 model (nothing quantized) written by the test.
std::string WriteFloatModel(const std::string& path, const std::string& tensor_name = "x") {
  relite::ModelWriter m;
  const int in = m.AddTensor(relite::DataType::kFloat32, {1, 4}, tensor_name);
  const int out = m.AddTensor(relite::DataType::kFloat32, {1, 4}, "y");
  m.AddOp(relite::BuiltinOp::kRelu, {in}, {out});
  m.SetInputs({in});
  m.SetOutputs({out});
  EXPECT_TRUE(m.WriteFile(path).ok());
  return path;
}

TEST_F(CliModelsTest, ConvertDequantizeRefusesAFloatModel) {
  const std::string f32 = WriteFloatModel(tmp_ / "float.tflite");
  ExpectErrorLine(RunCli({"convert", f32, "--dequantize", "--out", tmp_ / "copy.tflite"}),
                  {"float.tflite", "no quantized tensors", "nothing to dequantize"});
  EXPECT_FALSE(fs::exists(tmp_ / "copy.tflite"));
  // float16 weights: already float16 is a copy; float32 weights are a real conversion.
  ExpectErrorLine(RunCli({"convert", Model("selfie_segmentation"), "--dequantize", "--weights", "float16", "--out",
                          tmp_ / "copy16.tflite"}),
                  {"already float16"});
}

TEST_F(CliModelsTest, NamesFromTheFileAreEscaped) {
  const std::string model = WriteFloatModel(tmp_ / "names.tflite", "evil\x1b]2;pwned\x07\x1b[2J\xff");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", model}, std::vector<std::string>{"run", model}}) {
    CommandResult r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("evil\\x1b]2;pwned\\x07\\x1b[2J\\xff"), std::string::npos) << r.out;
    for (char c : r.out + r.err) {
      EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << "raw control byte " << static_cast<int>(c);
    }
  }
  // In an error line too: the .npy dtype check names the input.
  const std::string npy = tmp_ / "wrong.npy";
  WriteNpy(npy, "<f8", {1, 4}, std::vector<uint8_t>(32, 0));
  CommandResult r = RunCli({"run", model, "--input", npy});
  ExpectErrorLine(r, {"evil\\x1b]2;pwned"});
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

TEST_F(CliModelsTest, ResourceLimitFlags) {
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--max-macs", "1M"}), {"node", "multiply-accumulates", "--max-macs"});
  ExpectErrorLine(RunCli({"bench", Model(kMobilenet), "--max-tensor-bytes", "4K"}), {"tensor", "--max-tensor-bytes"});
  ExpectErrorLine(RunCli({"inspect", Model(kMobilenet), "--max-arena-bytes", "64K"}), {"activation arena", "--max-arena-bytes"});
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--max-arena-bytes", "4X"}), {"--max-arena-bytes", "suffix"});
  ExpectErrorLine(RunCli({"run", Model(kMobilenet), "--max-macs=-5"}), {"--max-macs", ">= 0"});
  CommandResult ok = RunCli({"run", Model(kMobilenet), "--max-macs", "0", "--max-arena-bytes", "1G", "--max-tensor-bytes", "64M"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}


// --- relite diff ---

// in -> CONV_2D(w1) -> RELU -> CONV_2D(w2) -> out; w2_scale multiplies one weight of the second convolution.
std::string WriteTwoConvModel(const std::string& path, float w2_scale) {
  relite::ModelWriter m;
  namespace w = relite::writer;
  const int in = m.AddTensor(relite::DataType::kFloat32, {1, 8, 8, 4}, "input");
  std::vector<float> w1(4 * 9 * 4), w2(4 * 9 * 4);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = 0.05f * static_cast<float>(static_cast<int>(i % 7) - 3);
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = 0.04f * static_cast<float>(static_cast<int>(i % 5) - 2);
  w2[10] *= w2_scale;
  const int f1 = m.AddConstantOf<float>({4, 3, 3, 4}, "w1", w1);
  const int c1 = m.AddTensor(relite::DataType::kFloat32, {1, 8, 8, 4}, "conv1");
  m.AddOp(relite::BuiltinOp::kConv2D, {in, f1}, {c1}, w::Conv2DOptions{});
  const int r1 = m.AddTensor(relite::DataType::kFloat32, {1, 8, 8, 4}, "relu1");
  m.AddOp(relite::BuiltinOp::kRelu, {c1}, {r1});
  const int f2 = m.AddConstantOf<float>({4, 3, 3, 4}, "w2", w2);
  const int out = m.AddTensor(relite::DataType::kFloat32, {1, 8, 8, 4}, "conv2");
  m.AddOp(relite::BuiltinOp::kConv2D, {r1, f2}, {out}, w::Conv2DOptions{});
  m.SetInputs({in});
  m.SetOutputs({out});
  EXPECT_TRUE(m.WriteFile(path).ok());
  return path;
}

TEST_F(CliModelsTest, DiffOfIdenticalConfigurationsIsZero) {
  CommandResult r = RunCli({"diff", Model("selfie_segmentation"), "--json", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"max_abs\": 0,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"over_bound\": 1"), std::string::npos) << r.out;
  CommandResult q = RunCli({"diff", Model(kMobilenet), "--per-layer", "--threads", "2"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_NE(q.out.find("every tensor is within the bound"), std::string::npos) << q.out;
}

TEST_F(CliModelsTest, DiffFindsThePerturbedLayer) {
  const std::string a = WriteTwoConvModel(tmp_ / "a.tflite", 1.f);
  const std::string b = WriteTwoConvModel(tmp_ / "b.tflite", 50.f);
  CommandResult r = RunCli({"diff", a, "--ref-model", b, "--per-layer", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // conv1 and relu1 agree; the second convolution is where they part.
  EXPECT_NE(r.out.find("\"first_over_bound\": \"tensor 5 ('conv2') written by node 2 (CONV_2D)\""), std::string::npos) << r.out;
  CommandResult text = RunCli({"diff", a, "--ref-model", b, "--per-layer"});
  EXPECT_NE(text.out.find("first tensor past the bound: tensor 5 ('conv2')"), std::string::npos) << text.out;
  ExpectErrorLine(RunCli({"diff", a, "--ref-model", Model(kMobilenet)}), {"input 0 differs"});
}

TEST_F(CliModelsTest, DiffGpuFp16AgainstTheCpu) {
  CommandResult r = RunCli({"diff", Model("selfie_segmentation"), "--delegate", "gpu", "--precision", "fp16", "--json",
                            "--atol", "5e-2", "--rtol", "5e-2"});
  if (r.exit_code == 0 && r.err.find("WARNING") != std::string::npos && r.err.find("running on the CPU") != std::string::npos) {
    GTEST_SKIP() << "no OpenCL device: " << r.err;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"test\": \"gpu fp16"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"max_abs\": 0,"), std::string::npos) << "fp16 storage should change something: " << r.out;
  EXPECT_NE(r.out.find("\"over_bound\": 0"), std::string::npos) << r.out;
}


// The GPU kernel cache across processes: the second bench loads what the
// first compiled, and says so.
TEST_F(CliModelsTest, SecondProcessHitsTheGpuKernelCache) {
  const std::string dir = tmp_ / "kernel_cache";
  const std::vector<std::string> args = {"bench", Model("face_detection_short_range"), "--delegate", "gpu", "--runs", "2",
                                         "--serialization-dir", dir, "--json"};
  CommandResult cold = RunCli(args);
  if (cold.err.find("running on the CPU") != std::string::npos) GTEST_SKIP() << "no OpenCL device: " << cold.err;
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_NE(cold.out.find("\"cache\": \"miss\""), std::string::npos) << cold.out;
  CommandResult warm = RunCli(args);
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_NE(warm.out.find("\"cache\": \"hit\""), std::string::npos) << warm.out;
  EXPECT_NE(warm.out.find("\"programs_compiled\": 0,"), std::string::npos) << warm.out;
  CommandResult list = RunCli({"cache", dir});
  EXPECT_NE(list.out.find("1 entry"), std::string::npos) << list.out;
  CommandResult clear = RunCli({"cache", dir, "--clear"});
  EXPECT_NE(clear.out.find("removed 1 cache entry"), std::string::npos) << clear.out;
  ExpectErrorLine(RunCli({"run", Model("face_detection_short_range"), "--delegate", "gpu", "--model-token", "x"}),
                  {"--model-token needs --serialization-dir"});
}

}  // namespace
}  // namespace relite::cli_testing
