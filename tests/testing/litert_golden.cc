#include "tests/testing/litert_golden.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace relite::testing {
namespace {

namespace fs = std::filesystem;

bool Required() {
  const char* v = std::getenv("RELITE_REQUIRE_TFLITE");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

std::string ReadText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void WriteBytes(const fs::path& p, const void* data, size_t n) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

std::string DimsText(const Shape& s) {
  std::string t;
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on
  // "literal" + std::string temporaries.
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0) t += ',';
    t += std::to_string(s[i]);
  }
  return t.empty() ? "-" : t;
}

// Where LiteRT's Python is: RELITE_LITERT_PYTHON, else the setup venv.
std::string LiteRtPython() {
  if (const char* p = std::getenv("RELITE_LITERT_PYTHON"); p != nullptr && *p != '\0') return p;
  return std::string(RELITE_SOURCE_DIR) + "/build/tflite-venv/bin/python";
}

struct RelitesOutput {
  Shape shape;
  DataType type;
  std::vector<uint8_t> bytes;
};

std::string Compare(const GoldenCase::Check& check, const RelitesOutput& got, const fs::path& dir) {
  const std::string meta = ReadText(dir / ("out_" + std::to_string(check.tensor) + ".txt"));
  if (meta.empty()) return "LiteRT wrote no output for tensor " + std::to_string(check.tensor);
  std::istringstream in(meta);
  std::string dtype, dims;
  in >> dtype >> dims;
  if (dtype != DataTypeName(got.type)) return "type: relite " + DataTypeName(got.type) + ", LiteRT " + dtype;
  if (dims != DimsText(got.shape)) return "shape: relite " + DimsText(got.shape) + ", LiteRT " + dims;
  const std::string want = ReadText(dir / ("out_" + std::to_string(check.tensor) + ".bin"));
  if (want.size() != got.bytes.size()) {
    return "bytes: relite " + std::to_string(got.bytes.size()) + ", LiteRT " + std::to_string(want.size());
  }
  const bool floats = got.type == DataType::kFloat32 || got.type == DataType::kComplex64;  // complex: (re, im) pairs
  if (floats && (check.rtol > 0 || check.atol > 0)) {
    const size_t n = want.size() / sizeof(float);
    int bad = 0;
    std::string report;
    for (size_t i = 0; i < n; ++i) {
      float a, b;
      std::memcpy(&a, got.bytes.data() + i * 4, 4);
      std::memcpy(&b, want.data() + i * 4, 4);
      const bool same = (std::isnan(a) && std::isnan(b)) || a == b ||
                        std::fabs(static_cast<double>(a) - b) <= check.atol + check.rtol * std::fabs(static_cast<double>(b));
      if (!same && bad++ < 5) report += " [" + std::to_string(i) + "] relite " + std::to_string(a) + " LiteRT " + std::to_string(b);
    }
    return bad == 0 ? "" : std::to_string(bad) + " of " + std::to_string(n) + " values differ:" + report;
  }
  if (std::memcmp(want.data(), got.bytes.data(), want.size()) == 0) return "";
  // Not bit-exact: say where, in the element type's size.
  const size_t es = std::max<size_t>(1, DataTypeSize(got.type));
  int bad = 0;
  std::string report;
  for (size_t i = 0; i * es < want.size(); ++i) {
    if (std::memcmp(want.data() + i * es, got.bytes.data() + i * es, es) == 0) continue;
    if (bad++ < 5) {
      auto value = [&](const uint8_t* p) {
        switch (got.type) {
          case DataType::kFloat32: { float v; std::memcpy(&v, p, 4); return std::to_string(v); }
          case DataType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return std::to_string(v); }
          case DataType::kInt64: { int64_t v; std::memcpy(&v, p, 8); return std::to_string(v); }
          case DataType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return std::to_string(v); }
          case DataType::kInt8: return std::to_string(static_cast<int8_t>(*p));
          default: return std::to_string(*p);
        }
      };
      report += " [" + std::to_string(i) + "] relite " + value(got.bytes.data() + i * es) + " LiteRT " +
                value(reinterpret_cast<const uint8_t*>(want.data()) + i * es);
    }
  }
  return std::to_string(bad) + " values differ (bit-exact expected):" + report;
}

}  // namespace

std::string RunAgainstLiteRt(std::vector<std::unique_ptr<GoldenCase>>& cases) {
#ifdef RELITE_LITERT_GOLDEN_HOST_ONLY
  (void)cases;
  return "cross build: LiteRT is the host's (x86-64) runtime; the native build runs these cases against it";
#endif
  const std::string python = LiteRtPython();
  if (!fs::exists(python)) {
    const std::string why = "LiteRT's Python (" + python + ") is missing; run scripts/setup.sh --tflite";
    if (!Required()) return why;
    ADD_FAILURE() << why << " (RELITE_REQUIRE_TFLITE=1)";
    return "";
  }
  char tmpl[] = "/tmp/relite_litert_golden_XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    ADD_FAILURE() << "cannot create a temporary folder";
    return "";
  }
  const fs::path root(tmpl);
  // relite first: each case's outputs, and the folder LiteRT reads.
  std::vector<std::vector<RelitesOutput>> outputs(cases.size());
  std::vector<bool> ran(cases.size(), false);
  for (size_t i = 0; i < cases.size(); ++i) {
    GoldenCase& c = *cases[i];
    // The case's interpreter: SingleOpModel's, or one over model_file.
    std::unique_ptr<Model> own_model;
    std::unique_ptr<Interpreter> own_interpreter;
    BuiltinOpResolver resolver;
    Interpreter* interp = nullptr;
    const std::vector<uint8_t>* bytes = &c.model_file;
    if (c.model_file.empty()) {
      const Status built = c.model.Build();
      if (!built.ok()) {
        ADD_FAILURE() << c.name << ": relite cannot build it: " << built.ToString();
        continue;
      }
      interp = &c.model.interpreter();
      bytes = &c.model.model_bytes();
    } else {
      auto model = Model::FromBuffer(c.model_file.data(), c.model_file.size(), c.name);
      if (!model.ok()) {
        ADD_FAILURE() << c.name << ": relite cannot load it: " << model.status().ToString();
        continue;
      }
      own_model = std::move(model).value();
      auto built = InterpreterBuilder(*own_model, resolver).SetNumThreads(1).Build();
      Status allocated = built.ok() ? (*built)->AllocateTensors() : built.status();
      if (!allocated.ok()) {
        ADD_FAILURE() << c.name << ": relite cannot build it: " << allocated.ToString();
        continue;
      }
      own_interpreter = std::move(built).value();
      interp = own_interpreter.get();
    }
    const fs::path dir = root / ("case_" + std::to_string(i));
    fs::create_directories(dir);
    WriteBytes(dir / "model.tflite", bytes->data(), bytes->size());
    if (c.litert_reference_kernels) std::ofstream(dir / "reference_kernels");
    std::ofstream list(dir / "inputs.txt");
    int steps = 1;
    for (const GoldenCase::FedInput& f : c.feeds) steps = std::max(steps, f.step + 1);
    steps = std::max(steps, c.invokes);
    std::ofstream(dir / "invokes.txt") << steps << "\n";
    Status invoked = Status::Ok();
    for (int step = 0; step < steps && invoked.ok(); ++step) {
      for (size_t k = 0; k < c.feeds.size(); ++k) {
        const GoldenCase::FedInput& f = c.feeds[k];
        if (f.step != step) continue;
        // Step 0 keeps the one-Invoke format; later steps name their step.
        const std::string step_text = std::to_string(f.step);
        std::string file = "in_" + std::to_string(f.tensor);
        if (f.step != 0) file += "_" + step_text;
        list << f.tensor << " " << DataTypeName(f.type) << " " << DimsText(f.shape);
        if (f.step != 0) list << " " << step_text;
        list << "\n";
        WriteBytes(dir / (file + ".bin"), f.bytes.data(), f.bytes.size());
        Tensor* t = interp->tensor(f.tensor);
        if (t == nullptr || t->bytes != f.bytes.size()) {
          ADD_FAILURE() << c.name << ": input " << f.tensor << " takes " << (t ? t->bytes : 0) << " bytes, fed "
                        << f.bytes.size();
        } else if (!f.bytes.empty()) {
          std::memcpy(t->data, f.bytes.data(), f.bytes.size());
        }
      }
      invoked = interp->Invoke();
    }
    if (!invoked.ok()) {
      ADD_FAILURE() << c.name << ": relite Invoke failed: " << invoked.ToString();
      continue;
    }
    for (const GoldenCase::Check& check : c.checks) {
      const Tensor* t = interp->tensor(check.tensor);
      RelitesOutput o{t->shape, t->type, std::vector<uint8_t>(t->bytes)};
      if (t->bytes > 0) std::memcpy(o.bytes.data(), t->data, t->bytes);
      outputs[i].push_back(std::move(o));
    }
    ran[i] = true;
  }
  // LiteRT, once over every case.
  const std::string log = (root / "litert.log").string();
  const std::string cmd = "'" + python + "' '" + std::string(RELITE_SOURCE_DIR) + "/tests/tools/litert_golden_run.py' '" +
                          root.string() + "' > '" + log + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    ADD_FAILURE() << "LiteRT run failed (" << cmd << "):\n" << ReadText(log);
    return "";
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!ran[i]) continue;
    const fs::path dir = root / ("case_" + std::to_string(i));
    const std::string error = ReadText(dir / "error.txt");
    if (!error.empty()) {
      ADD_FAILURE() << cases[i]->name << ": LiteRT cannot run it: " << error;
      continue;
    }
    for (size_t k = 0; k < cases[i]->checks.size(); ++k) {
      const std::string diff = Compare(cases[i]->checks[k], outputs[i][k], dir);
      if (!diff.empty()) ADD_FAILURE() << cases[i]->name << ": output tensor " << cases[i]->checks[k].tensor << ": " << diff;
    }
  }
  if (!::testing::Test::HasFailure()) fs::remove_all(root);
  return "";
}

}  // namespace relite::testing
