// Interpreter behaviour with custom kernels registered by the test itself:
// execution order, arena reuse, constant folding, resizing, error paths.
#include <algorithm>
#include <atomic>

#include <gtest/gtest.h>

#include "relite/relite.h"
#include "src/core/interpreter/denormal_mode.h"
#include "tests/testing/graph_builder.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

constexpr int32_t kCustom = 32;

// y = x * factor, factor from the first custom-options byte.
class ScaleKernel : public Kernel {
 public:
  explicit ScaleKernel(float factor, std::atomic<int>* evals) : factor_(factor), evals_(evals) {}
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1 || ctx.num_outputs() != 1) return ctx.Error("expects 1 input and 1 output");
    if (ctx.input(0).type != DataType::kFloat32) return ctx.Error("expects float32");
    return ctx.ResizeOutput(0, ctx.input(0).shape);
  }
  Status Eval(KernelContext& ctx) override {
    if (evals_) evals_->fetch_add(1);
    const float* x = ctx.input(0).data_as<float>();
    float* y = ctx.output(0).data_as<float>();
    ctx.ParallelFor(ctx.input(0).num_elements(), 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = x[i] * factor_;
    });
    return Status::Ok();
  }

 private:
  float factor_;
  std::atomic<int>* evals_;
};

// y = a + b (same shapes).
class AddKernel : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    if (ctx.input(0).shape != ctx.input(1).shape) return ctx.Error("shapes differ");
    ctx.RequestScratch(64);
    return ctx.ResizeOutput(0, ctx.input(0).shape);
  }
  Status Eval(KernelContext& ctx) override {
    if (ctx.scratch() == nullptr) return ctx.Error("scratch was requested but not provided");
    for (int64_t i = 0; i < ctx.input(0).num_elements(); ++i) {
      ctx.output(0).data_as<float>()[i] = ctx.input(0).data_as<float>()[i] + ctx.input(1).data_as<float>()[i];
    }
    return Status::Ok();
  }
};

class InterpreterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    resolver_.AddCustom("Scale", [this](const Node& node) -> StatusOr<std::unique_ptr<Kernel>> {
      if (node.custom_options_size < 1) return InvalidArgumentError(node.Describe() + ": missing factor");
      return std::unique_ptr<Kernel>(new ScaleKernel(static_cast<float>(node.custom_options[0]), &evals_));
    });
    resolver_.AddCustom("Add", [](const Node&) -> StatusOr<std::unique_ptr<Kernel>> {
      return std::unique_ptr<Kernel>(new AddKernel());
    });
  }

  // in -> Scale(2) -> a -> Scale(3) -> b -> Scale(5) -> c ; out = c + Scale(7)(const)
  std::vector<uint8_t> ChainModel() {
    testing::GraphBuilder g;
    const int scale = g.AddOpCode(kCustom, "Scale");
    const int add = g.AddOpCode(kCustom, "Add");
    const Shape shape = {1, 4, 4, 8};
    const int in = g.AddTensor(DataType::kFloat32, shape);
    const int a = g.AddTensor(DataType::kFloat32, shape);
    const int b = g.AddTensor(DataType::kFloat32, shape);
    const int c = g.AddTensor(DataType::kFloat32, shape);
    const int k = g.AddTensor(DataType::kFloat32, shape, g.AddBufferOf(std::vector<float>(128, 1.f)));
    const int k7 = g.AddTensor(DataType::kFloat32, shape);
    const int out = g.AddTensor(DataType::kFloat32, shape);
    g.AddOp(scale, {in}, {a}, {2});
    g.AddOp(scale, {a}, {b}, {3});
    g.AddOp(scale, {b}, {c}, {5});
    g.AddOp(scale, {k}, {k7}, {7});
    g.AddOp(add, {c, k7}, {out});
    g.SetInputs({in});
    g.SetOutputs({out});
    return g.Finish();
  }

  std::atomic<int> evals_{0};
  OpResolver resolver_;
};

TEST_F(InterpreterTest, RunsChainFoldsConstantsAndReusesArena) {
  const auto bytes = ChainModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "chain");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto interp = InterpreterBuilder(**model, resolver_).SetNumThreads(2).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  Interpreter& it = **interp;
  EXPECT_EQ(it.typed_input<float>(0), nullptr) << "no data before AllocateTensors";
  EXPECT_FALSE(it.Invoke().ok());
  ASSERT_TRUE(it.AllocateTensors().ok());
  EXPECT_EQ(evals_.load(), 1) << "the constant Scale(7) node is folded at allocation";
  EXPECT_TRUE(it.node_is_folded(3));
  EXPECT_FALSE(it.node_is_folded(0));
  EXPECT_EQ(it.typed_input<int32_t>(0), nullptr) << "wrong dtype gives null";
  float* in = it.typed_input<float>(0);
  ASSERT_NE(in, nullptr);
  for (int i = 0; i < 128; ++i) in[i] = static_cast<float>(i);
  ASSERT_TRUE(it.Invoke().ok());
  const float* out = it.typed_output<float>(0);
  for (int i = 0; i < 128; ++i) EXPECT_FLOAT_EQ(out[i], i * 30.f + 7.f);
  EXPECT_EQ(evals_.load(), 4);
  // in, a, b, c, out each 512 bytes: a/c can share; the input keeps its
  // bytes (as in TFLite), so a second Invoke without setting it again gives
  // the same result.
  EXPECT_LT(it.arena_bytes(), it.unplanned_bytes());
  for (int i = 0; i < 128; ++i) EXPECT_EQ(in[i], static_cast<float>(i)) << "the input was overwritten";
  ASSERT_TRUE(it.Invoke().ok());
  for (int i = 0; i < 128; ++i) EXPECT_FLOAT_EQ(out[i], i * 30.f + 7.f);
  EXPECT_GT(it.persistent_bytes(), 0u);
}

TEST_F(InterpreterTest, ResizeInputPropagatesShapes) {
  const auto bytes = ChainModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "chain");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver_).SetNumThreads(1).Build();
  ASSERT_TRUE(interp.ok());
  Interpreter& it = **interp;
  ASSERT_TRUE(it.AllocateTensors().ok());
  // The constant operand keeps its shape, so the Add kernel must reject a resize.
  ASSERT_TRUE(it.ResizeInputTensor(0, {2, 4, 4, 8}).ok());
  EXPECT_FALSE(it.Invoke().ok()) << "resize requires AllocateTensors again";
  const Status s = it.AllocateTensors();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("shapes differ"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("node 4 (Add v1)"), std::string::npos) << s.ToString();
  EXPECT_FALSE(it.ResizeInputTensor(5, {1}).ok());
  EXPECT_FALSE(it.ResizeInputTensor(0, {-1, 2}).ok());
}

TEST_F(InterpreterTest, ResizeInputReallocates) {
  testing::GraphBuilder g;
  const int scale = g.AddOpCode(kCustom, "Scale");
  const int in = g.AddTensor(DataType::kFloat32, {1, 2});
  const int out = g.AddTensor(DataType::kFloat32, {1, 2});
  g.AddOp(scale, {in}, {out}, {3});
  g.SetInputs({in});
  g.SetOutputs({out});
  const auto bytes = g.Finish();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_TRUE(interp.ok());
  Interpreter& it = **interp;
  ASSERT_TRUE(it.ResizeInputTensor(0, {3, 5}).ok());
  ASSERT_TRUE(it.AllocateTensors().ok());
  EXPECT_EQ(it.output_tensor(0)->shape, (Shape{3, 5}));
  EXPECT_EQ(it.output_tensor(0)->bytes, 60u);
  for (int i = 0; i < 15; ++i) it.typed_input<float>(0)[i] = 1.f;
  ASSERT_TRUE(it.Invoke().ok());
  EXPECT_FLOAT_EQ(it.typed_output<float>(0)[14], 3.f);
}

TEST_F(InterpreterTest, FactoryErrorsNameTheNode) {
  testing::GraphBuilder g;
  const int scale = g.AddOpCode(kCustom, "Scale");
  const int in = g.AddTensor(DataType::kFloat32, {2});
  const int out = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(scale, {in}, {out});  // no custom options
  g.SetInputs({in});
  g.SetOutputs({out});
  const auto bytes = g.Finish();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "m.tflite");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_FALSE(interp.ok());
  EXPECT_NE(interp.status().message().find("node 0 (Scale v1): missing factor"), std::string::npos)
      << interp.status().ToString();
}

TEST_F(InterpreterTest, UnregisteredOpsAreReported) {
  testing::GraphBuilder g;
  const int custom = g.AddOpCode(kCustom, "NoSuchOp");
  const int in = g.AddTensor(DataType::kFloat32, {2});
  const int out = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(custom, {in}, {out});
  g.SetInputs({in});
  g.SetOutputs({out});
  auto bytes = g.Finish();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "m.tflite");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_FALSE(interp.ok());
  EXPECT_NE(interp.status().message().find("custom op 'NoSuchOp' has no registered kernel"), std::string::npos)
      << interp.status().ToString();

  // A version outside the registered range.
  testing::GraphBuilder g2;
  const int scale = g2.AddOpCode(kCustom, "Add", 1);
  (void)scale;
  resolver_.AddCustom("Versioned", [](const Node&) -> StatusOr<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(new AddKernel());
  }, 1, 2);
  const int v3 = g2.AddOpCode(kCustom, "Versioned", 3);
  const int a = g2.AddTensor(DataType::kFloat32, {2});
  const int b = g2.AddTensor(DataType::kFloat32, {2});
  g2.AddOp(v3, {a, a}, {b});
  g2.SetInputs({a});
  g2.SetOutputs({b});
  bytes = g2.Finish();
  model = Model::FromBuffer(bytes.data(), bytes.size(), "m.tflite");
  ASSERT_TRUE(model.ok());
  interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_FALSE(interp.ok());
  EXPECT_NE(interp.status().message().find("version 3 is not supported (registered versions 1..2)"),
            std::string::npos)
      << interp.status().ToString();
}

TEST_F(InterpreterTest, UnsupportedBuiltinIsReported) {
  testing::GraphBuilder g;
  const int gelu = g.AddOpCode(150);  // GELU: valid code, no kernel registered here
  const int in = g.AddTensor(DataType::kFloat32, {2});
  const int out = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(gelu, {in}, {out});
  g.SetInputs({in});
  g.SetOutputs({out});
  const auto bytes = g.Finish();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "m.tflite");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_FALSE(interp.ok());
  EXPECT_NE(interp.status().message().find("builtin op GELU (code 150) is not supported"), std::string::npos)
      << interp.status().ToString();
}

TEST_F(InterpreterTest, EveryUnsupportedOpIsReportedAtOnce) {
  // GELU twice, SIN once and an unknown custom op: one error names them all,
  // with their nodes, so fixing one does not merely reveal the next.
  testing::GraphBuilder g;
  const int gelu = g.AddOpCode(150);
  const int sin = g.AddOpCode(66);
  const int custom = g.AddOpCode(kCustom, "NoSuchOp");
  std::vector<int> t;
  for (int i = 0; i < 5; ++i) t.push_back(g.AddTensor(DataType::kFloat32, {2}));
  g.AddOp(gelu, {t[0]}, {t[1]});
  g.AddOp(sin, {t[1]}, {t[2]});
  g.AddOp(gelu, {t[2]}, {t[3]});
  g.AddOp(custom, {t[3]}, {t[4]});
  g.SetInputs({t[0]});
  g.SetOutputs({t[4]});
  const auto bytes = g.Finish();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "m.tflite");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_FALSE(interp.ok());
  const std::string& m = interp.status().message();
  EXPECT_NE(m.find("4 nodes cannot run"), std::string::npos) << m;
  EXPECT_NE(m.find("builtin op GELU (code 150) is not supported by relite at nodes 0, 2"), std::string::npos) << m;
  EXPECT_NE(m.find("builtin op SIN (code 66) is not supported by relite at node 1"), std::string::npos) << m;
  EXPECT_NE(m.find("custom op 'NoSuchOp' has no registered kernel"), std::string::npos) << m;
  EXPECT_NE(m.find("at node 3"), std::string::npos) << m;
}

}  // namespace
}  // namespace relite

namespace relite {
namespace {

TEST_F(InterpreterTest, EmptyConstantIsConstant) {
  // Scale(in) with an extra zero-element operand nobody writes: it must count
  // as a (byte-less) constant, not as an unallocated activation.
  resolver_.AddCustom("CheckConst", [](const Node&) -> StatusOr<std::unique_ptr<Kernel>> {
    struct K : Kernel {
      Status Prepare(KernelContext& ctx) override {
        if (!ctx.input(1).is_constant()) return ctx.Error("operand 1 is not constant");
        return ctx.ResizeOutput(0, ctx.input(0).shape);
      }
      Status Eval(KernelContext&) override { return Status::Ok(); }
    };
    return std::unique_ptr<Kernel>(new K());
  });
  testing::GraphBuilder g;
  const int op = g.AddOpCode(kCustom, "CheckConst");
  const int in = g.AddTensor(DataType::kFloat32, {2});
  const int empty = g.AddTensor(DataType::kInt32, {0});
  const int out = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(op, {in, empty}, {out});
  g.SetInputs({in});
  g.SetOutputs({out});
  const auto bytes = g.Finish();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto interp = InterpreterBuilder(**model, resolver_).Build();
  ASSERT_TRUE(interp.ok());
  const Status s = (*interp)->AllocateTensors();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace relite

namespace relite {
namespace {

// ADD -> RELU: the clamp is merged into ADD unless ADD's output has another reader.
std::vector<uint8_t> AddReluModel(bool second_reader) {
  testing::GraphBuilder g;
  const int add = g.AddOpCode(0);
  const int relu = g.AddOpCode(19);
  const int a = g.AddTensor(DataType::kFloat32, {1, 8});
  const int b = g.AddTensor(DataType::kFloat32, {1, 8});
  const int sum = g.AddTensor(DataType::kFloat32, {1, 8});
  const int out = g.AddTensor(DataType::kFloat32, {1, 8});
  g.AddOp(add, {a, b}, {sum});
  g.AddOp(relu, {sum}, {out});
  g.SetInputs({a, b});
  g.SetOutputs(second_reader ? std::vector<int>{out, sum} : std::vector<int>{out});
  return g.Finish();
}

TEST(ClampFusion, ReluAfterAddIsFusedAndExact) {
  for (bool second_reader : {false, true}) {
    SCOPED_TRACE(second_reader ? "sum is also a graph output" : "relu is the only reader");
    const auto bytes = AddReluModel(second_reader);
    auto model = Model::FromBuffer(bytes.data(), bytes.size());
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    BuiltinOpResolver resolver;
    auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(1).Build();
    ASSERT_TRUE(interp.ok()) << interp.status().ToString();
    Interpreter& it = **interp;
    ASSERT_TRUE(it.AllocateTensors().ok());
    EXPECT_EQ(it.node_is_fused(1), !second_reader);
    EXPECT_FALSE(it.node_is_fused(0));
    for (int i = 0; i < 8; ++i) {
      it.typed_input<float>(0)[i] = static_cast<float>(i) - 4.f;
      it.typed_input<float>(1)[i] = 0.5f;
    }
    ASSERT_TRUE(it.Invoke().ok());
    for (int i = 0; i < 8; ++i) {
      EXPECT_FLOAT_EQ(it.typed_output<float>(0)[i], std::max(0.f, static_cast<float>(i) - 3.5f)) << i;
      if (second_reader) {
        EXPECT_FLOAT_EQ(it.typed_output<float>(1)[i], static_cast<float>(i) - 3.5f) << i;
      }
    }
  }
}

TEST(ClampFusion, PreserveAllTensorsKeepsTheClampNode) {
  const auto bytes = AddReluModel(false);
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).SetPreserveAllTensors(true).Build();
  ASSERT_TRUE(interp.ok());
  ASSERT_TRUE((*interp)->AllocateTensors().ok());
  EXPECT_FALSE((*interp)->node_is_fused(1));
}

// Subnormal products: MUL of 1e-20 by 1e-20 (1e-40, below FLT_MIN), in
// two chunks with two threads. Whether the worker runs one is up to the
// pool (a sleeping worker leaves both to the caller); thread_pool_test's
// WorkersFlushSubnormalsWhenAsked makes sure one does.
std::vector<float> SubnormalProducts(bool flush, int threads, bool* caller_flushes_after) {
  testing::SingleOpModel m;
  const int n = 1 << 16;
  const int a = m.AddInput(DataType::kFloat32, {1, n});
  const int b = m.AddInput(DataType::kFloat32, {1, n});
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::MUL, 1);
  m.SetFlushDenormals(flush);
  const Status built = m.Build(threads);
  EXPECT_TRUE(built.ok()) << built.message();
  if (!built.ok()) return {};
  m.SetInput(a, std::vector<float>(n, 1e-20f));
  m.SetInput(b, std::vector<float>(n, 1e-20f));
  const Status ran = m.Invoke();
  EXPECT_TRUE(ran.ok()) << ran.message();
  *caller_flushes_after = ThisThreadFlushesDenormals();
  return m.GetOutput<float>(out);
}

TEST(DenormalMode, InvokeTakesSubnormalsAsZeroOnEveryThreadAndRestoresTheCaller) {
#if defined(__x86_64__) || defined(__aarch64__)
  ASSERT_FALSE(ThisThreadFlushesDenormals()) << "the test thread starts in the IEEE mode";
  for (int threads : {1, 2}) {
    bool caller_flushes = true;
    const std::vector<float> flushed = SubnormalProducts(true, threads, &caller_flushes);
    ASSERT_EQ(flushed.size(), size_t{1} << 16);
    EXPECT_EQ(std::count(flushed.begin(), flushed.end(), 0.f), static_cast<std::ptrdiff_t>(flushed.size()))
        << threads << " threads: every product is flushed";
    EXPECT_FALSE(caller_flushes) << "Invoke puts the caller's mode back";

    const std::vector<float> kept = SubnormalProducts(false, threads, &caller_flushes);
    ASSERT_EQ(kept.size(), size_t{1} << 16);
    EXPECT_EQ(std::count_if(kept.begin(), kept.end(), [](float v) { return v > 0.f && v < 1.2e-38f; }),
              static_cast<std::ptrdiff_t>(kept.size()))
        << threads << " threads: flush_denormals = false keeps IEEE subnormals";
  }
#else
  GTEST_SKIP() << "no flush-to-zero control on this architecture";
#endif
}

TEST(DenormalMode, AGuardInsideAFlushingThreadLeavesItFlushing) {
#if defined(__x86_64__) || defined(__aarch64__)
  {
    const ScopedFlushDenormals outer(true);
    { const ScopedFlushDenormals inner(true); }
    EXPECT_TRUE(ThisThreadFlushesDenormals());
  }
  EXPECT_FALSE(ThisThreadFlushesDenormals());
#else
  GTEST_SKIP() << "no flush-to-zero control on this architecture";
#endif
}

}  // namespace
}  // namespace relite
