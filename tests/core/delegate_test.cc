// Delegates end to end: partitioning of real models, CPU fallback, the
// placement report, options, several delegates, failures leaving the
// interpreter unchanged. The test delegate runs the CPU kernels inside its
// partitions, so every delegated run must equal the CPU run exactly.
#include <cstdlib>
#include <map>
#include <memory>

#include <gtest/gtest.h>

#include "relite/relite.h"
#include "tests/testing/graph_builder.h"
#include "tests/testing/test_delegate.h"

namespace relite {
namespace {

using testing::TestDelegate;

constexpr int32_t kAdd = 0, kLogistic = 14, kMul = 18, kRelu = 19, kTanh = 28;

// Small float graphs of [1,8] tensors.
class Net {
 public:
  int Tensor() { return g_.AddTensor(DataType::kFloat32, {1, 8}); }
  int Const(float v) { return g_.AddTensor(DataType::kFloat32, {1, 8}, g_.AddBufferOf(std::vector<float>(8, v))); }
  int Op(int32_t code, const std::vector<int>& inputs) {
    auto it = codes_.find(code);
    if (it == codes_.end()) it = codes_.emplace(code, g_.AddOpCode(code)).first;
    const int out = Tensor();
    g_.AddOp(it->second, inputs, {out});
    return out;
  }
  std::vector<uint8_t> Finish(const std::vector<int>& inputs, const std::vector<int>& outputs) {
    g_.SetInputs(inputs);
    g_.SetOutputs(outputs);
    return g_.Finish();
  }

 private:
  testing::GraphBuilder g_;
  std::map<int32_t, int> codes_;
};

struct Loaded {
  std::unique_ptr<Model> model;
  std::unique_ptr<Interpreter> interp;
};

Loaded Load(const std::vector<uint8_t>& bytes, const OpResolver& resolver, bool preserve = false) {
  Loaded l;
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "net");
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return l;
  l.model = std::move(*model);
  auto interp = InterpreterBuilder(*l.model, resolver).SetNumThreads(2).SetPreserveAllTensors(preserve).Build();
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  if (interp.ok()) l.interp = std::move(*interp);
  return l;
}

// Allocates, feeds every input with distinct values, invokes, returns all outputs.
std::vector<std::vector<float>> RunAll(Interpreter& it) {
  std::vector<std::vector<float>> outs;
  Status s = it.AllocateTensors();
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return outs;
  for (int i = 0; i < it.num_inputs(); ++i) {
    float* in = it.typed_input<float>(i);
    for (int k = 0; k < 8; ++k) in[k] = 0.37f * static_cast<float>(k) - 1.1f + 0.5f * static_cast<float>(i);
  }
  s = it.Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  for (int o = 0; o < it.num_outputs(); ++o) {
    const float* p = it.typed_output<float>(o);
    outs.emplace_back(p, p + 8);
  }
  return outs;
}

std::vector<std::vector<float>> CpuRun(const std::vector<uint8_t>& bytes, const OpResolver& resolver) {
  Loaded l = Load(bytes, resolver);
  return RunAll(*l.interp);
}

// in -> ADD(in,in) -> MUL(a,in) -> LOGISTIC -> out
std::vector<uint8_t> ChainModel(int* mid = nullptr, bool mid_is_output = false) {
  Net n;
  const int in = n.Tensor();
  const int a = n.Op(kAdd, {in, in});
  const int b = n.Op(kMul, {a, in});
  const int out = n.Op(kLogistic, {b});
  if (mid) *mid = a;
  return n.Finish({in}, mid_is_output ? std::vector<int>{out, a} : std::vector<int>{out});
}

TEST(Delegate, WholeGraphIsOnePartition) {
  BuiltinOpResolver resolver;
  const auto bytes = ChainModel();
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(l.interp->execution_plan().size(), 1u);
  EXPECT_EQ(l.interp->execution_plan()[0], 3) << "the partition node follows the model's nodes";
  EXPECT_EQ(l.interp->node(3).op_name, "DELEGATE:test");
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(l.interp->node_is_delegated(i));
  ASSERT_EQ(d.partitions().size(), 1u);
  EXPECT_EQ(d.partitions()[0].nodes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(d.partitions()[0].inputs, (std::vector<int>{0}));
  EXPECT_EQ(d.partitions()[0].outputs, (std::vector<int>{3}));
  const auto got = RunAll(*l.interp);
  EXPECT_EQ(got, CpuRun(bytes, resolver));
  EXPECT_EQ(d.evals(), 1);
  // Internal tensors need no CPU memory.
  EXPECT_EQ(l.interp->tensor(1)->data, nullptr);
  EXPECT_EQ(l.interp->tensor(2)->data, nullptr);
  ASSERT_EQ(l.interp->delegation_reports().size(), 1u);
  EXPECT_EQ(l.interp->delegation_reports()[0].Lines(),
            (std::vector<std::string>{"3 of 3 operations will run on the TEST in 1 partition(s); the rest on the CPU."}));
}

// A delegate that uses CPU threads of its own learns the interpreter's count.
TEST(Delegate, SeesTheInterpretersThreadCount) {
  struct ThreadCountDelegate : TestDelegate {
    using TestDelegate::TestDelegate;
    Status CheckGraph(const DelegateGraph& graph) override {
      seen = graph.num_threads();
      return Status::Ok();
    }
    int seen = 0;
  };
  BuiltinOpResolver resolver;
  const auto bytes = ChainModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "net");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (int threads : {1, 3}) {
    ThreadCountDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
    auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(threads).AddDelegate(&d).Build();
    ASSERT_TRUE(interp.ok()) << interp.status().ToString();
    EXPECT_EQ(d.seen, threads);
  }
}

// in -> ADD -> TANH -> MUL -> ADD -> TANH -> LOGISTIC -> out
std::vector<uint8_t> SplitModel() {
  Net n;
  const int in = n.Tensor();
  int x = n.Op(kAdd, {in, in});
  x = n.Op(kTanh, {x});
  x = n.Op(kMul, {x, in});
  x = n.Op(kAdd, {x, in});
  x = n.Op(kTanh, {x});
  x = n.Op(kLogistic, {x});
  return n.Finish({in}, {x});
}

TEST(Delegate, UnsupportedOpInTheMiddleGivesTwoPartitionsAndTheWarning) {
  BuiltinOpResolver resolver;
  const auto bytes = SplitModel();
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 3u) << "ADD | TANH | MUL ADD | TANH | LOGISTIC";
  EXPECT_EQ(d.partitions()[0].nodes, (std::vector<int>{0}));
  EXPECT_EQ(d.partitions()[1].nodes, (std::vector<int>{2, 3}));
  EXPECT_EQ(d.partitions()[1].inputs, (std::vector<int>{2, 0})) << "in order of first use";
  EXPECT_EQ(l.interp->execution_plan(), (std::vector<int>{6, 1, 7, 4, 8}));
  const DelegationReport& r = l.interp->delegation_reports().at(0);
  EXPECT_EQ(r.ToString(),
            "WARNING: op code #28 (TANH v1) cannot be handled by the TEST delegate: TANH is not in the test "
            "delegate's op list\n"
            "4 of 6 operations will run on the TEST in 3 partition(s); the rest on the CPU.\n");
  EXPECT_EQ(r.nodes[1].where, NodePlacement::Where::kCpu);
  EXPECT_EQ(r.nodes[2].where, NodePlacement::Where::kDelegate);
  EXPECT_EQ(r.nodes[2].partition, 1);
  EXPECT_EQ(DelegationReport::PlacementName(r.nodes[2], r.display_name), "TEST partition 1");
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
}

TEST(Delegate, TwoPartitionsAroundOneUnsupportedOp) {
  // The case: exactly one unsupported op in the middle.
  BuiltinOpResolver resolver;
  Net n;
  const int in = n.Tensor();
  int x = n.Op(kAdd, {in, in});
  x = n.Op(kMul, {x, in});
  x = n.Op(kTanh, {x});
  x = n.Op(kAdd, {x, in});
  x = n.Op(kLogistic, {x});
  const auto bytes = n.Finish({in}, {x});
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"}, "gpu", "GPU");
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  EXPECT_EQ(l.interp->delegation_reports()[0].Lines(),
            (std::vector<std::string>{
                "WARNING: op code #28 (TANH v1) cannot be handled by the GPU delegate: TANH is not in the test "
                "delegate's op list",
                "4 of 5 operations will run on the GPU in 2 partition(s); the rest on the CPU."}));
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
  EXPECT_EQ(d.evals(), 2);
}

TEST(Delegate, DiamondThroughTheCpuDoesNotFormACycle) {
  // x = ADD(in,in); y = TANH(x) on the CPU; z = MUL(x,in); out = ADD(y,z).
  BuiltinOpResolver resolver;
  Net n;
  const int in = n.Tensor();
  const int x = n.Op(kAdd, {in, in});
  const int y = n.Op(kTanh, {x});
  const int z = n.Op(kMul, {x, in});
  const int out = n.Op(kAdd, {y, z});
  const auto bytes = n.Finish({in}, {out});
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 2u);
  EXPECT_EQ(d.partitions()[0].nodes, (std::vector<int>{0, 2}));
  EXPECT_EQ(d.partitions()[0].outputs, (std::vector<int>{x, z})) << "x is read by TANH outside";
  EXPECT_EQ(d.partitions()[1].nodes, (std::vector<int>{3}));
  EXPECT_EQ(l.interp->execution_plan(), (std::vector<int>{4, 1, 5}));
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
}

// ADD | TANH | ADD MUL | TANH | LOGISTIC: groups {0}, {2,3}, {5}.
std::vector<uint8_t> ThreeGroupModel() {
  Net n;
  const int in = n.Tensor();
  int x = n.Op(kAdd, {in, in});
  x = n.Op(kTanh, {x});
  x = n.Op(kAdd, {x, in});
  x = n.Op(kMul, {x, in});
  x = n.Op(kTanh, {x});
  x = n.Op(kLogistic, {x});
  return n.Finish({in}, {x});
}

TEST(Delegate, MaxPartitionsKeepsTheLargestEstimatedBenefit) {
  BuiltinOpResolver resolver;
  const auto bytes = ThreeGroupModel();
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  d.mutable_options().max_delegated_partitions = 1;
  d.SetNodeCost(5, 1000.0);  // the one-node LOGISTIC partition outweighs ADD+MUL
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 1u);
  EXPECT_EQ(d.partitions()[0].nodes, (std::vector<int>{5}));
  const DelegationReport& r = l.interp->delegation_reports()[0];
  EXPECT_EQ(r.nodes[2].where, NodePlacement::Where::kCpu);
  EXPECT_FALSE(r.nodes[2].op_unsupported);
  EXPECT_NE(r.nodes[2].reason.find("max_delegated_partitions (1)"), std::string::npos) << r.nodes[2].reason;
  EXPECT_EQ(r.Summary(), "1 of 6 operations will run on the TEST in 1 partition(s); the rest on the CPU.");
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));

  // Equal costs: the larger partition wins.
  Loaded l2 = Load(bytes, resolver);
  TestDelegate d2(resolver, {"ADD", "MUL", "LOGISTIC"});
  d2.mutable_options().max_delegated_partitions = 1;
  ASSERT_TRUE(l2.interp->ModifyGraphWithDelegate(&d2).ok());
  ASSERT_EQ(d2.partitions().size(), 1u);
  EXPECT_EQ(d2.partitions()[0].nodes, (std::vector<int>{2, 3}));
}

TEST(Delegate, MinNodesPerPartition) {
  BuiltinOpResolver resolver;
  const auto bytes = ThreeGroupModel();
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  d.mutable_options().min_nodes_per_partition = 2;
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 1u);
  EXPECT_EQ(d.partitions()[0].nodes, (std::vector<int>{2, 3}));
  const DelegationReport& r = l.interp->delegation_reports()[0];
  EXPECT_EQ(r.nodes[0].reason, "its partition has 1 node(s), fewer than min_nodes_per_partition (2)");
  EXPECT_EQ(r.Lines().size(), 2u) << "dropped partitions are not op warnings";
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
}

TEST(Delegate, TwoDelegatesInSequence) {
  BuiltinOpResolver resolver;
  Net n;
  const int in = n.Tensor();
  int x = n.Op(kAdd, {in, in});
  x = n.Op(kMul, {x, in});
  x = n.Op(kAdd, {x, in});
  x = n.Op(kTanh, {x});
  const auto bytes = n.Finish({in}, {x});
  TestDelegate first(resolver, {"ADD"}, "first", "FIRST");
  TestDelegate second(resolver, {"ADD", "MUL"}, "second", "SECOND");
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "net");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver).AddDelegate(&first).AddDelegate(&second).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  Interpreter& it = **interp;
  ASSERT_EQ(first.partitions().size(), 2u);
  ASSERT_EQ(second.partitions().size(), 1u);
  EXPECT_EQ(second.partitions()[0].nodes, (std::vector<int>{1})) << "partition nodes are not offered again";
  EXPECT_EQ(it.execution_plan(), (std::vector<int>{4, 6, 5, 3}));
  ASSERT_EQ(it.delegation_reports().size(), 2u);
  EXPECT_EQ(it.delegation_reports()[1].Summary(),
            "1 of 4 operations will run on the SECOND in 1 partition(s); 2 on earlier delegates, the rest on the CPU.");
  EXPECT_EQ(it.delegation_reports()[1].nodes[0].where, NodePlacement::Where::kOtherDelegate);
  EXPECT_EQ(RunAll(it), CpuRun(bytes, resolver));
  EXPECT_EQ(first.evals(), 2);
  EXPECT_EQ(second.evals(), 1);
}

TEST(Delegate, FailedPartitionKernelLeavesTheInterpreterUnchanged) {
  BuiltinOpResolver resolver;
  const auto bytes = SplitModel();
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  d.FailPartition(1);  // after partition 0 was built
  const Status s = l.interp->ModifyGraphWithDelegate(&d);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("delegate 'test'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("simulated failure creating partition 1"), std::string::npos) << s.ToString();
  EXPECT_EQ(l.interp->nodes_size(), 6);
  EXPECT_EQ(l.interp->execution_plan(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  for (int i = 0; i < 6; ++i) EXPECT_FALSE(l.interp->node_is_delegated(i));
  EXPECT_TRUE(l.interp->delegation_reports().empty());
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
  EXPECT_EQ(d.evals(), 0);

  // Through the builder, the same failure fails Build.
  TestDelegate d2(resolver, {"ADD"});
  d2.FailPartition(0);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "net");
  ASSERT_TRUE(model.ok());
  auto interp = InterpreterBuilder(**model, resolver).AddDelegate(&d2).Build();
  EXPECT_FALSE(interp.ok());
  EXPECT_EQ(l.interp->ModifyGraphWithDelegate(nullptr).code(), StatusCode::kInvalidArgument);
}

TEST(Delegate, GraphOutputInsideAPartitionIsABoundaryOutput) {
  BuiltinOpResolver resolver;
  int mid = -1;
  const auto bytes = ChainModel(&mid, /*mid_is_output=*/true);
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 1u);
  EXPECT_EQ(d.partitions()[0].outputs, (std::vector<int>{mid, 3}));
  const auto got = RunAll(*l.interp);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got, CpuRun(bytes, resolver));
  EXPECT_NE(l.interp->tensor(mid)->data, nullptr);
  EXPECT_EQ(l.interp->tensor(2)->data, nullptr) << "MUL's output stays inside";
}

TEST(Delegate, OnlyBeforeTheFirstAllocation) {
  BuiltinOpResolver resolver;
  Loaded l = Load(ChainModel(), resolver);
  ASSERT_TRUE(l.interp->AllocateTensors().ok());
  TestDelegate d(resolver, {"ADD"});
  EXPECT_EQ(l.interp->ModifyGraphWithDelegate(&d).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(d.partitions().empty());
}

TEST(Delegate, FoldedNodesStayOnTheCpuAndAreNotCounted) {
  // k = ADD(c1, c2) is constant: folded at allocation, not offered.
  BuiltinOpResolver resolver;
  Net n;
  const int in = n.Tensor();
  const int k = n.Op(kAdd, {n.Const(1.5f), n.Const(2.f)});
  const int out = n.Op(kMul, {in, k});
  const auto bytes = n.Finish({in}, {out});
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 1u);
  EXPECT_EQ(d.partitions()[0].nodes, (std::vector<int>{1}));
  EXPECT_EQ(d.partitions()[0].inputs, (std::vector<int>{in, k}));
  const DelegationReport& r = l.interp->delegation_reports()[0];
  EXPECT_EQ(r.nodes[0].where, NodePlacement::Where::kFolded);
  EXPECT_EQ(r.Summary(), "1 of 1 operations will run on the TEST in 1 partition(s); the rest on the CPU.");
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
  EXPECT_TRUE(l.interp->node_is_folded(0));
}

TEST(Delegate, ClampAfterAPartitionStaysCorrect) {
  // ADD on the delegate, RELU on the CPU: the partition kernel declines the
  // clamp fusion, so the RELU node keeps running.
  BuiltinOpResolver resolver;
  Net n;
  const int in = n.Tensor();
  const int a = n.Op(kAdd, {in, in});
  const int out = n.Op(kRelu, {a});
  const auto bytes = n.Finish({in}, {out});
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  EXPECT_EQ(RunAll(*l.interp), CpuRun(bytes, resolver));
  EXPECT_FALSE(l.interp->node_is_fused(1));
  // Delegated RELU: the partition contains both, nothing to fuse.
  Loaded l2 = Load(bytes, resolver);
  TestDelegate d2(resolver, {"ADD", "RELU"});
  ASSERT_TRUE(l2.interp->ModifyGraphWithDelegate(&d2).ok());
  EXPECT_EQ(l2.interp->execution_plan().size(), 1u);
  EXPECT_EQ(RunAll(*l2.interp), CpuRun(bytes, resolver));
}

TEST(Delegate, PreserveAllTensorsMakesEveryTensorABoundaryOutput) {
  BuiltinOpResolver resolver;
  const auto bytes = ChainModel();
  Loaded cpu = Load(bytes, resolver, /*preserve=*/true);
  RunAll(*cpu.interp);
  Loaded l = Load(bytes, resolver, /*preserve=*/true);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_EQ(d.partitions().size(), 1u);
  EXPECT_EQ(d.partitions()[0].outputs, (std::vector<int>{1, 2, 3}));
  RunAll(*l.interp);
  for (int t = 1; t <= 3; ++t) {
    ASSERT_NE(l.interp->tensor(t)->data, nullptr) << t;
    const float* a = l.interp->tensor(t)->data_as<float>();
    const float* b = cpu.interp->tensor(t)->data_as<float>();
    EXPECT_EQ(std::vector<float>(a, a + 8), std::vector<float>(b, b + 8)) << "tensor " << t;
  }
}

TEST(Delegate, ResizeAfterDelegationReprepares) {
  BuiltinOpResolver resolver;
  const auto bytes = ChainModel();
  Loaded l = Load(bytes, resolver);
  TestDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  ASSERT_TRUE(l.interp->ResizeInputTensor(0, {2, 8}).ok());
  ASSERT_TRUE(l.interp->AllocateTensors().ok());
  EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{2, 8}));
  for (int i = 0; i < 16; ++i) l.interp->typed_input<float>(0)[i] = 0.f;
  ASSERT_TRUE(l.interp->Invoke().ok());
  for (int i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(l.interp->typed_output<float>(0)[i], 0.5f);
}

// A delegate that gives the tensor arena's memory (as the GPU delegate gives
// page-locked memory on CUDA): counts what it handed out and got back.
struct ArenaDelegate : TestDelegate {
  using TestDelegate::TestDelegate;
  std::shared_ptr<uint8_t> AllocateTensorArena(size_t bytes) override {
    ++asked;
    if (give_nothing) return nullptr;
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(128, (bytes + 128) / 128 * 128));
    blocks.push_back({p + misalign, bytes});
    auto freed_count = freed;
    return std::shared_ptr<uint8_t>(p + misalign, [p, freed_count](uint8_t*) {
      std::free(p);
      ++*freed_count;
    });
  }
  // Whether `t`'s bytes lie in the last block handed out.
  bool InLastBlock(const relite::Tensor& t) const {
    if (blocks.empty() || t.data == nullptr) return false;
    const auto* d = static_cast<const uint8_t*>(t.data);
    return d >= blocks.back().first && d + t.bytes <= blocks.back().first + blocks.back().second;
  }
  int asked = 0;
  bool give_nothing = false;
  size_t misalign = 0;
  std::vector<std::pair<uint8_t*, size_t>> blocks;
  std::shared_ptr<int> freed = std::make_shared<int>(0);
};

TEST(Delegate, TensorArenaComesFromTheDelegateThatTookPartitions) {
  BuiltinOpResolver resolver;
  const auto bytes = SplitModel();
  const auto want = CpuRun(bytes, resolver);
  std::shared_ptr<int> freed;
  {
    Loaded l = Load(bytes, resolver);
    ArenaDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"});
    freed = d.freed;
    ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
    EXPECT_EQ(RunAll(*l.interp), want);
    EXPECT_EQ(d.asked, 1);
    ASSERT_EQ(d.blocks.size(), 1u);
    // The partitions' boundary tensors (and the CPU node's) are in it.
    EXPECT_TRUE(d.InLastBlock(*l.interp->input_tensor(0)));
    EXPECT_TRUE(d.InLastBlock(*l.interp->output_tensor(0)));
    EXPECT_EQ(*freed, 0);
    // A larger input needs a larger arena: asked again, the first given back.
    ASSERT_TRUE(l.interp->ResizeInputTensor(0, {4, 8}).ok());
    ASSERT_TRUE(l.interp->AllocateTensors().ok());
    EXPECT_EQ(d.asked, 2);
    EXPECT_EQ(*freed, 1);
    EXPECT_TRUE(d.InLastBlock(*l.interp->input_tensor(0)));
    EXPECT_TRUE(d.InLastBlock(*l.interp->output_tensor(0)));
    for (int i = 0; i < 32; ++i) l.interp->typed_input<float>(0)[i] = 0.f;
    ASSERT_TRUE(l.interp->Invoke().ok());
  }
  EXPECT_EQ(*freed, 2) << "the interpreter gives the arena back when it goes";
}

TEST(Delegate, TensorArenaIsOrdinaryMemoryUnlessADelegateWithPartitionsGivesIt) {
  BuiltinOpResolver resolver;
  const auto bytes = SplitModel();
  const auto want = CpuRun(bytes, resolver);
  {
    Loaded l = Load(bytes, resolver);
    ArenaDelegate none(resolver, {"CONV_2D"});  // takes nothing: never asked
    ArenaDelegate declines(resolver, {"ADD"});
    declines.give_nothing = true;
    ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&none).ok());
    ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&declines).ok());
    EXPECT_EQ(RunAll(*l.interp), want);
    EXPECT_EQ(none.asked, 0);
    EXPECT_EQ(declines.asked, 1);
    EXPECT_NE(l.interp->input_tensor(0)->data, nullptr);
  }
  {
    // The first delegate applied that gives memory is the one used.
    Loaded l = Load(bytes, resolver);
    ArenaDelegate first(resolver, {"ADD"}, "first", "FIRST"), second(resolver, {"MUL", "LOGISTIC"}, "second", "SECOND");
    ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&first).ok());
    ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&second).ok());
    EXPECT_EQ(RunAll(*l.interp), want);
    EXPECT_EQ(first.asked, 1);
    EXPECT_EQ(second.asked, 0);
    EXPECT_TRUE(first.InLastBlock(*l.interp->input_tensor(0)));
  }
}

TEST(Delegate, MisalignedTensorArenaIsAnErrorNamingTheDelegate) {
  BuiltinOpResolver resolver;
  const auto bytes = ChainModel();
  Loaded l = Load(bytes, resolver);
  ArenaDelegate d(resolver, {"ADD", "MUL", "LOGISTIC"}, "pinned", "PINNED");
  d.misalign = 16;
  ASSERT_TRUE(l.interp->ModifyGraphWithDelegate(&d).ok());
  const Status s = l.interp->AllocateTensors();
  EXPECT_EQ(s.code(), StatusCode::kInternal) << s.ToString();
  EXPECT_NE(s.message().find("delegate 'pinned' gave tensor arena memory not aligned to 64 bytes"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(*d.freed, 1) << "the refused memory is given back";
}

}  // namespace
}  // namespace relite
