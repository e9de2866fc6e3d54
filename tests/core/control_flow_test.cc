// Models with several subgraphs: IF, WHILE, CALL_ONCE and resource variables
// (VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE) against hand-computed values
// and native LiteRT; malformed control flow refused at load with the node
// named; SHAPE folded over a resized input.
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relite/relite.h"
#include "tests/testing/litert_golden.h"
#include "tests/testing/multi_graph_builder.h"

namespace relite {
namespace {

using testing::MultiGraphBuilder;
using tflite::BuiltinOperator;
using Options = MultiGraphBuilder::Options;

Options IfOpts(int then_index, int else_index) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::IfOptions, tflite::CreateIfOptions(fbb, then_index, else_index).Union());
  };
}
Options WhileOpts(int cond, int body) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::WhileOptions, tflite::CreateWhileOptions(fbb, cond, body).Union());
  };
}
Options CallOnceOpts(int init) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::CallOnceOptions, tflite::CreateCallOnceOptions(fbb, init).Union());
  };
}
Options VarHandleOpts(const std::string& name) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::VarHandleOptions,
                          tflite::CreateVarHandleOptions(fbb, fbb.CreateString(""), fbb.CreateString(name)).Union());
  };
}
Options AddOpts() {
  return [](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::AddOptions, tflite::CreateAddOptions(fbb).Union());
  };
}
Options MulOpts() {
  return [](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::MulOptions, tflite::CreateMulOptions(fbb).Union());
  };
}

// The "then" branch of the IF models: x + 1 over a float [3].
void AddPlusOneBranch(MultiGraphBuilder& g, int op_add) {
  g.AddSubgraph("then");
  const int a = g.AddTensor(DataType::kFloat32, {3});
  const int one = g.AddConstant<float>(DataType::kFloat32, {3}, {1, 1, 1});
  const int sum = g.AddTensor(DataType::kFloat32, {3});
  g.AddOp(op_add, {a, one}, {sum}, AddOpts());
  g.SetInputs({a});
  g.SetOutputs({sum});
}

// main: out = IF(cond, x): then x + 1, else x * 2. `else_index` and the
// else branch's output type can be changed to write malformed models.
std::vector<uint8_t> IfModel(int then_index = 1, int else_index = 2, DataType else_out = DataType::kFloat32) {
  MultiGraphBuilder g;
  const int op_if = g.AddOpCode(BuiltinOperator::IF);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_mul = g.AddOpCode(BuiltinOperator::MUL);
  const int op_cast = g.AddOpCode(BuiltinOperator::CAST);
  g.AddSubgraph("main");
  const int cond = g.AddTensor(DataType::kBool, {}, 0, "cond");
  const int x = g.AddTensor(DataType::kFloat32, {3}, 0, "x");
  const int out = g.AddTensor(DataType::kFloat32, {3}, 0, "out");
  g.AddOp(op_if, {cond, x}, {out}, IfOpts(then_index, else_index));
  g.SetInputs({cond, x});
  g.SetOutputs({out});
  AddPlusOneBranch(g, op_add);
  g.AddSubgraph("else");
  const int a = g.AddTensor(DataType::kFloat32, {3});
  const int two = g.AddConstant<float>(DataType::kFloat32, {3}, {2, 2, 2});
  int prod = g.AddTensor(DataType::kFloat32, {3});
  g.AddOp(op_mul, {a, two}, {prod}, MulOpts());
  if (else_out != DataType::kFloat32) {
    const int cast = g.AddTensor(else_out, {3});
    g.AddOp(op_cast, {prod}, {cast});
    prod = cast;
  }
  g.SetInputs({a});
  g.SetOutputs({prod});
  return g.Finish();
}

// main: (i, x, y) = WHILE(i < 5) { i + 1, x * 2, y }, y passed through the
// body unchanged; with `swap`, also (p, q) -> (q, p) each iteration.
std::vector<uint8_t> WhileModel(bool swap, DataType cond_type = DataType::kBool) {
  MultiGraphBuilder g;
  const int op_while = g.AddOpCode(BuiltinOperator::WHILE);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_mul = g.AddOpCode(BuiltinOperator::MUL);
  const int op_less = g.AddOpCode(BuiltinOperator::LESS);
  const int op_cast = g.AddOpCode(BuiltinOperator::CAST);
  const int vars = swap ? 5 : 3;
  const std::vector<std::pair<DataType, Shape>> types = {
      {DataType::kInt32, {}}, {DataType::kFloat32, {2}}, {DataType::kFloat32, {2}},
      {DataType::kFloat32, {3}}, {DataType::kFloat32, {3}}};
  g.AddSubgraph("main");
  std::vector<int> in, out;
  for (int k = 0; k < vars; ++k) in.push_back(g.AddTensor(types[static_cast<size_t>(k)].first, types[static_cast<size_t>(k)].second, 0, "in" + std::to_string(k)));
  for (int k = 0; k < vars; ++k) out.push_back(g.AddTensor(types[static_cast<size_t>(k)].first, types[static_cast<size_t>(k)].second, 0, "out" + std::to_string(k)));
  g.AddOp(op_while, in, out, WhileOpts(1, 2));
  g.SetInputs(in);
  g.SetOutputs(out);
  g.AddSubgraph("cond");
  std::vector<int> c_in;
  for (int k = 0; k < vars; ++k) c_in.push_back(g.AddTensor(types[static_cast<size_t>(k)].first, types[static_cast<size_t>(k)].second));
  const int five = g.AddConstant<int32_t>(DataType::kInt32, {}, {5});
  int less = g.AddTensor(DataType::kBool, {});
  g.AddOp(op_less, {c_in[0], five}, {less});
  if (cond_type != DataType::kBool) {
    const int cast = g.AddTensor(cond_type, {});
    g.AddOp(op_cast, {less}, {cast});
    less = cast;
  }
  g.SetInputs(c_in);
  g.SetOutputs({less});
  g.AddSubgraph("body");
  std::vector<int> b_in;
  for (int k = 0; k < vars; ++k) b_in.push_back(g.AddTensor(types[static_cast<size_t>(k)].first, types[static_cast<size_t>(k)].second));
  const int one = g.AddConstant<int32_t>(DataType::kInt32, {}, {1});
  const int next = g.AddTensor(DataType::kInt32, {});
  g.AddOp(op_add, {b_in[0], one}, {next}, AddOpts());
  const int two = g.AddConstant<float>(DataType::kFloat32, {}, {2});
  const int doubled = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(op_mul, {b_in[1], two}, {doubled}, MulOpts());
  g.SetInputs(b_in);
  std::vector<int> b_out = {next, doubled, b_in[2]};
  if (swap) {
    b_out.push_back(b_in[4]);
    b_out.push_back(b_in[3]);
  }
  g.SetOutputs(b_out);
  return g.Finish();
}

Options ConcatOpts(int axis) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::ConcatenationOptions,
                          tflite::CreateConcatenationOptions(fbb, axis).Union());
  };
}

// main: out = IF(cond, x): then x + 1 (shape [3]), else CONCAT(x, x) (shape
// [6]): the output's shape depends on the condition.
std::vector<uint8_t> IfShapesModel() {
  MultiGraphBuilder g;
  const int op_if = g.AddOpCode(BuiltinOperator::IF);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_concat = g.AddOpCode(BuiltinOperator::CONCATENATION);
  g.AddSubgraph("main");
  const int cond = g.AddTensor(DataType::kBool, {}, 0, "cond");
  const int x = g.AddTensor(DataType::kFloat32, {3}, 0, "x");
  const int out = g.AddTensor(DataType::kFloat32, {3}, 0, "out");
  g.AddOp(op_if, {cond, x}, {out}, IfOpts(1, 2));
  g.SetInputs({cond, x});
  g.SetOutputs({out});
  AddPlusOneBranch(g, op_add);
  g.AddSubgraph("else");
  const int a = g.AddTensor(DataType::kFloat32, {3});
  const int both = g.AddTensor(DataType::kFloat32, {6});
  g.AddOp(op_concat, {a, a}, {both}, ConcatOpts(0));
  g.SetInputs({a});
  g.SetOutputs({both});
  return g.Finish();
}

// main: (i, s) = WHILE(i < n) { i + 1, CONCAT(s, s * 2) }: s doubles in
// length at each iteration (a loop variable that changes shape).
std::vector<uint8_t> GrowingWhileModel() {
  MultiGraphBuilder g;
  const int op_while = g.AddOpCode(BuiltinOperator::WHILE);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_mul = g.AddOpCode(BuiltinOperator::MUL);
  const int op_less = g.AddOpCode(BuiltinOperator::LESS);
  const int op_concat = g.AddOpCode(BuiltinOperator::CONCATENATION);
  g.AddSubgraph("main");
  const int i = g.AddTensor(DataType::kInt32, {}, 0, "i");
  const int n = g.AddTensor(DataType::kInt32, {}, 0, "n");
  const int s = g.AddTensor(DataType::kFloat32, {1}, 0, "s");
  const int i_out = g.AddTensor(DataType::kInt32, {}, 0, "i_out");
  const int n_out = g.AddTensor(DataType::kInt32, {}, 0, "n_out");
  const int s_out = g.AddTensor(DataType::kFloat32, {1}, 0, "s_out");
  g.AddOp(op_while, {i, n, s}, {i_out, n_out, s_out}, WhileOpts(1, 2));
  g.SetInputs({i, n, s});
  g.SetOutputs({i_out, s_out});
  g.AddSubgraph("cond");
  int ci = g.AddTensor(DataType::kInt32, {});
  int cn = g.AddTensor(DataType::kInt32, {});
  int cs = g.AddTensor(DataType::kFloat32, {1});
  const int less = g.AddTensor(DataType::kBool, {});
  g.AddOp(op_less, {ci, cn}, {less});
  g.SetInputs({ci, cn, cs});
  g.SetOutputs({less});
  g.AddSubgraph("body");
  ci = g.AddTensor(DataType::kInt32, {});
  cn = g.AddTensor(DataType::kInt32, {});
  cs = g.AddTensor(DataType::kFloat32, {1});
  const int one = g.AddConstant<int32_t>(DataType::kInt32, {}, {1});
  const int next = g.AddTensor(DataType::kInt32, {});
  g.AddOp(op_add, {ci, one}, {next}, AddOpts());
  const int two = g.AddConstant<float>(DataType::kFloat32, {1}, {2});
  const int doubled = g.AddTensor(DataType::kFloat32, {1});
  g.AddOp(op_mul, {cs, two}, {doubled}, MulOpts());
  const int grown = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(op_concat, {cs, doubled}, {grown}, ConcatOpts(0));
  g.SetInputs({ci, cn, cs});
  g.SetOutputs({next, cn, grown});
  return g.Finish();
}

// A streaming accumulator: state (resource "acc", zeroed by a CALL_ONCE
// initializer) += x; out = the new state.
std::vector<uint8_t> StreamingModel(bool with_initializer = true) {
  MultiGraphBuilder g;
  const int op_call_once = g.AddOpCode(BuiltinOperator::CALL_ONCE);
  const int op_handle = g.AddOpCode(BuiltinOperator::VAR_HANDLE);
  const int op_read = g.AddOpCode(BuiltinOperator::READ_VARIABLE);
  const int op_assign = g.AddOpCode(BuiltinOperator::ASSIGN_VARIABLE);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  g.AddSubgraph("main");
  const int x = g.AddTensor(DataType::kFloat32, {2}, 0, "x");
  const int h = g.AddTensor(DataType::kResource, {}, 0, "handle");
  const int state = g.AddTensor(DataType::kFloat32, {2}, 0, "state");
  const int sum = g.AddTensor(DataType::kFloat32, {2}, 0, "sum");
  if (with_initializer) g.AddOp(op_call_once, {}, {}, CallOnceOpts(1));
  g.AddOp(op_handle, {}, {h}, VarHandleOpts("acc"));
  g.AddOp(op_read, {h}, {state});
  g.AddOp(op_add, {state, x}, {sum}, AddOpts());
  g.AddOp(op_assign, {h, sum}, {});
  g.SetInputs({x});
  g.SetOutputs({sum});
  g.AddSubgraph("init");
  const int h1 = g.AddTensor(DataType::kResource, {});
  const int zeros = g.AddConstant<float>(DataType::kFloat32, {2}, {0, 0});
  g.AddOp(op_handle, {}, {h1}, VarHandleOpts("acc"));
  g.AddOp(op_assign, {h1, zeros}, {});
  return g.Finish();
}

// main: h = VAR_HANDLE("acc") (zeroed by a CALL_ONCE initializer); (i, h) =
// WHILE(i < n) { acc += x; i + 1, h } with the handle a loop variable (the
// body reads and assigns through a resource passed in); out = acc after it.
std::vector<uint8_t> ResourceLoopModel() {
  MultiGraphBuilder g;
  const int op_call_once = g.AddOpCode(BuiltinOperator::CALL_ONCE);
  const int op_handle = g.AddOpCode(BuiltinOperator::VAR_HANDLE);
  const int op_read = g.AddOpCode(BuiltinOperator::READ_VARIABLE);
  const int op_assign = g.AddOpCode(BuiltinOperator::ASSIGN_VARIABLE);
  const int op_while = g.AddOpCode(BuiltinOperator::WHILE);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_less = g.AddOpCode(BuiltinOperator::LESS);
  g.AddSubgraph("main");
  const int n = g.AddTensor(DataType::kInt32, {}, 0, "n");
  const int x = g.AddTensor(DataType::kFloat32, {2}, 0, "x");
  const int zero = g.AddConstant<int32_t>(DataType::kInt32, {}, {0});
  const int h = g.AddTensor(DataType::kResource, {}, 0, "handle");
  const int i_out = g.AddTensor(DataType::kInt32, {}, 0, "i_out");
  const int n_out = g.AddTensor(DataType::kInt32, {}, 0, "n_out");
  const int x_out = g.AddTensor(DataType::kFloat32, {2}, 0, "x_out");
  const int h_out = g.AddTensor(DataType::kResource, {}, 0, "h_out");
  const int acc = g.AddTensor(DataType::kFloat32, {2}, 0, "acc");
  g.AddOp(op_call_once, {}, {}, CallOnceOpts(3));
  g.AddOp(op_handle, {}, {h}, VarHandleOpts("acc"));
  g.AddOp(op_while, {zero, n, x, h}, {i_out, n_out, x_out, h_out}, WhileOpts(1, 2));
  g.AddOp(op_read, {h}, {acc});
  g.SetInputs({n, x});
  g.SetOutputs({acc});
  g.AddSubgraph("cond");
  std::vector<int> c_in = {g.AddTensor(DataType::kInt32, {}), g.AddTensor(DataType::kInt32, {}),
                           g.AddTensor(DataType::kFloat32, {2}), g.AddTensor(DataType::kResource, {})};
  const int less = g.AddTensor(DataType::kBool, {});
  g.AddOp(op_less, {c_in[0], c_in[1]}, {less});
  g.SetInputs(c_in);
  g.SetOutputs({less});
  g.AddSubgraph("body");
  std::vector<int> b_in = {g.AddTensor(DataType::kInt32, {}), g.AddTensor(DataType::kInt32, {}),
                           g.AddTensor(DataType::kFloat32, {2}), g.AddTensor(DataType::kResource, {})};
  const int one = g.AddConstant<int32_t>(DataType::kInt32, {}, {1});
  const int next = g.AddTensor(DataType::kInt32, {});
  const int value = g.AddTensor(DataType::kFloat32, {2});
  const int sum = g.AddTensor(DataType::kFloat32, {2});
  g.AddOp(op_add, {b_in[0], one}, {next}, AddOpts());
  g.AddOp(op_read, {b_in[3]}, {value});
  g.AddOp(op_add, {value, b_in[2]}, {sum}, AddOpts());
  g.AddOp(op_assign, {b_in[3], sum}, {});
  g.SetInputs(b_in);
  g.SetOutputs({next, b_in[1], b_in[2], b_in[3]});
  g.AddSubgraph("init");
  const int h1 = g.AddTensor(DataType::kResource, {});
  const int zeros = g.AddConstant<float>(DataType::kFloat32, {2}, {0, 0});
  g.AddOp(op_handle, {}, {h1}, VarHandleOpts("acc"));
  g.AddOp(op_assign, {h1, zeros}, {});
  return g.Finish();
}

struct Loaded {
  std::unique_ptr<Model> model;
  std::unique_ptr<Interpreter> interp;
  Status status;
};

Loaded Load(const std::vector<uint8_t>& bytes, const ResourceLimits& limits = ResourceLimits()) {
  static BuiltinOpResolver resolver;
  Loaded l;
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "m.tflite");
  if (!model.ok()) {
    l.status = model.status();
    return l;
  }
  l.model = std::move(model).value();
  auto interp = InterpreterBuilder(*l.model, resolver).SetNumThreads(1).SetResourceLimits(limits).Build();
  if (!interp.ok()) {
    l.status = interp.status();
    return l;
  }
  l.interp = std::move(interp).value();
  l.status = l.interp->AllocateTensors();
  return l;
}

template <typename T>
void Set(Interpreter& in, int input, const std::vector<T>& v) {
  if (!v.empty()) std::memcpy(in.input_tensor(input)->data, v.data(), v.size() * sizeof(T));
}
template <typename T>
std::vector<T> Get(Interpreter& in, int output) {
  const Tensor* t = in.output_tensor(output);
  std::vector<T> v(t->bytes / sizeof(T));
  if (t->bytes > 0) std::memcpy(v.data(), t->data, t->bytes);  // an empty output may have no memory
  return v;
}

TEST(ControlFlowTest, IfRunsTheChosenBranch) {
  Loaded l = Load(IfModel());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  EXPECT_EQ(l.interp->num_subgraphs_built(), 3);
  for (bool cond : {true, false, true}) {
    Set<uint8_t>(*l.interp, 0, {static_cast<uint8_t>(cond)});
    Set<float>(*l.interp, 1, {1.5f, -2.f, 4.f});
    ASSERT_TRUE(l.interp->Invoke().ok());
    EXPECT_EQ(Get<float>(*l.interp, 0), cond ? (std::vector<float>{2.5f, -1.f, 5.f}) : (std::vector<float>{3.f, -4.f, 8.f}));
  }
}

TEST(ControlFlowTest, WhileLoopsPassesThroughAndSwaps) {
  for (bool swap : {false, true}) {
    SCOPED_TRACE(swap ? "swap" : "plain");
    Loaded l = Load(WhileModel(swap));
    ASSERT_TRUE(l.status.ok()) << l.status.ToString();
    Set<int32_t>(*l.interp, 0, {1});
    Set<float>(*l.interp, 1, {1.f, -3.f});
    Set<float>(*l.interp, 2, {7.f, 8.f});
    if (swap) {
      Set<float>(*l.interp, 3, {1, 2, 3});
      Set<float>(*l.interp, 4, {4, 5, 6});
    }
    ASSERT_TRUE(l.interp->Invoke().ok());
    EXPECT_EQ(Get<int32_t>(*l.interp, 0), (std::vector<int32_t>{5}));  // 4 iterations
    EXPECT_EQ(Get<float>(*l.interp, 1), (std::vector<float>{16.f, -48.f}));
    EXPECT_EQ(Get<float>(*l.interp, 2), (std::vector<float>{7.f, 8.f}));
    if (swap) {  // swapped 4 times: back in place
      EXPECT_EQ(Get<float>(*l.interp, 3), (std::vector<float>{1, 2, 3}));
      EXPECT_EQ(Get<float>(*l.interp, 4), (std::vector<float>{4, 5, 6}));
      Set<int32_t>(*l.interp, 0, {2});  // 3 iterations: swapped
      ASSERT_TRUE(l.interp->Invoke().ok());
      EXPECT_EQ(Get<float>(*l.interp, 3), (std::vector<float>{4, 5, 6}));
      EXPECT_EQ(Get<float>(*l.interp, 4), (std::vector<float>{1, 2, 3}));
    }
    Set<int32_t>(*l.interp, 0, {9});  // no iteration: the inputs come out
    ASSERT_TRUE(l.interp->Invoke().ok());
    EXPECT_EQ(Get<int32_t>(*l.interp, 0), (std::vector<int32_t>{9}));
    EXPECT_EQ(Get<float>(*l.interp, 1), (std::vector<float>{1.f, -3.f}));
  }
}

TEST(ControlFlowTest, ALoopIsBoundedByTheWorkLimit) {
  // From INT32_MIN the counter needs 2^31 iterations: the work limit stops it.
  ResourceLimits limits;
  limits.max_macs = 1e6;
  Loaded l = Load(WhileModel(false), limits);
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  Set<int32_t>(*l.interp, 0, {INT32_MIN});
  const Status s = l.interp->Invoke();
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_NE(s.message().find("WHILE"), std::string::npos) << s.ToString();
  Set<int32_t>(*l.interp, 0, {1});  // a short loop still runs
  EXPECT_TRUE(l.interp->Invoke().ok());
}

TEST(ControlFlowTest, ResourceVariablesPersistAndReset) {
  Loaded l = Load(StreamingModel());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  for (int n = 1; n <= 3; ++n) {
    Set<float>(*l.interp, 0, {1.f, 2.5f});
    ASSERT_TRUE(l.interp->Invoke().ok());
    EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{1.f * n, 2.5f * n})) << n;
  }
  ASSERT_TRUE(l.interp->ResetVariableTensors().ok());
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{1.f, 2.5f}));
  // Re-allocation keeps the state (the initializer ran once).
  ASSERT_TRUE(l.interp->AllocateTensors().ok());
  Set<float>(*l.interp, 0, {1.f, 2.5f});
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{2.f, 5.f}));
}

TEST(ControlFlowTest, MalformedControlFlowIsRefusedNamingTheNode) {
  auto error = [](const std::vector<uint8_t>& bytes) { return Load(bytes).status; };
  Status s = error(IfModel(1, 7));
  EXPECT_NE(s.message().find("subgraph index 7 is out of range"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("IF"), std::string::npos) << s.ToString();
  s = error(IfModel(1, 0));  // the else branch is the main graph: it calls itself
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s.ToString();
  s = error(IfModel(1, 2, DataType::kInt32));
  EXPECT_NE(s.message().find("the else branch int32"), std::string::npos) << s.ToString();
  s = error(WhileModel(false, DataType::kFloat32));
  EXPECT_NE(s.message().find("must give one bool value"), std::string::npos) << s.ToString();
  s = error(StreamingModel(/*with_initializer=*/false));
  EXPECT_NE(s.message().find("before anything assigns it"), std::string::npos) << s.ToString();
}

TEST(ControlFlowTest, ShapeFoldsOverAResizedInput) {
  // out = FILL(SHAPE(x), 7): shape-derived, folded at allocation, refolded
  // after a resize.
  MultiGraphBuilder g;
  const int op_shape = g.AddOpCode(BuiltinOperator::SHAPE);
  const int op_fill = g.AddOpCode(BuiltinOperator::FILL);
  g.AddSubgraph("main");
  const int x = g.AddTensor(DataType::kFloat32, {2, 3}, 0, "x");
  const int s = g.AddTensor(DataType::kInt32, {2});
  const int seven = g.AddConstant<float>(DataType::kFloat32, {}, {7.f});
  const int out = g.AddTensor(DataType::kFloat32, {2, 3}, 0, "out");
  g.AddOp(op_shape, {x}, {s}, [](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::ShapeOptions,
                          tflite::CreateShapeOptions(fbb, tflite::TensorType::INT32).Union());
  });
  g.AddOp(op_fill, {s, seven}, {out});
  g.SetInputs({x});
  g.SetOutputs({out});
  Loaded l = Load(g.Finish());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{2, 3}));
  EXPECT_EQ(Get<float>(*l.interp, 0), std::vector<float>(6, 7.f));
  EXPECT_TRUE(l.interp->node_is_folded(0) && l.interp->node_is_folded(1));
  ASSERT_TRUE(l.interp->ResizeInputTensor(0, {4, 1, 5}).ok());
  ASSERT_TRUE(l.interp->AllocateTensors().ok());
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{4, 1, 5}));
  EXPECT_EQ(Get<float>(*l.interp, 0), std::vector<float>(20, 7.f));
}

TEST(ControlFlowTest, IfBranchesOfDifferentShapesSizeTheOutputAtInvoke) {
  Loaded l = Load(IfShapesModel());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  for (bool cond : {true, false, true}) {
    SCOPED_TRACE(cond ? "then" : "else");
    Set<uint8_t>(*l.interp, 0, {static_cast<uint8_t>(cond)});
    Set<float>(*l.interp, 1, {1.5f, -2.f, 4.f});
    ASSERT_TRUE(l.interp->Invoke().ok());
    if (cond) {
      EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{3}));
      EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{2.5f, -1.f, 5.f}));
    } else {
      EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{6}));
      EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{1.5f, -2.f, 4.f, 1.5f, -2.f, 4.f}));
    }
  }
}

TEST(ControlFlowTest, ALoopVariableThatGrowsIsSizedAtInvoke) {
  Loaded l = Load(GrowingWhileModel());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  for (int n : {3, 0, 1}) {
    SCOPED_TRACE("n " + std::to_string(n));
    Set<int32_t>(*l.interp, 0, {0});
    Set<int32_t>(*l.interp, 1, {n});
    Set<float>(*l.interp, 2, {1.5f});
    ASSERT_TRUE(l.interp->Invoke().ok());
    EXPECT_EQ(Get<int32_t>(*l.interp, 0), std::vector<int32_t>{n});
    std::vector<float> want = {1.5f};
    for (int k = 0; k < n; ++k) {
      const size_t half = want.size();
      for (size_t j = 0; j < half; ++j) want.push_back(want[j] * 2.f);
    }
    EXPECT_EQ(l.interp->output_tensor(1)->shape, (Shape{static_cast<int32_t>(want.size())}));
    EXPECT_EQ(Get<float>(*l.interp, 1), want);
  }
  // Still bounded by the work limit.
  ResourceLimits limits;
  limits.max_macs = 1e5;
  Loaded bounded = Load(GrowingWhileModel(), limits);
  ASSERT_TRUE(bounded.status.ok()) << bounded.status.ToString();
  Set<int32_t>(*bounded.interp, 0, {0});
  Set<int32_t>(*bounded.interp, 1, {1000});
  Set<float>(*bounded.interp, 2, {1.f});
  const Status s = bounded.interp->Invoke();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("max_macs"), std::string::npos) << s.ToString();
}

TEST(ControlFlowTest, AResourcePassedIntoALoopBodyIsReadAndAssigned) {
  Loaded l = Load(ResourceLoopModel());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  Set<float>(*l.interp, 1, {1.f, -0.5f});
  float total = 0;
  for (int n : {3, 0, 2}) {
    SCOPED_TRACE("n " + std::to_string(n));
    Set<int32_t>(*l.interp, 0, {n});
    ASSERT_TRUE(l.interp->Invoke().ok());
    total += static_cast<float>(n);
    EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{total, -0.5f * total}));
  }
  ASSERT_TRUE(l.interp->ResetVariableTensors().ok());
  Set<int32_t>(*l.interp, 0, {1});
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(Get<float>(*l.interp, 0), (std::vector<float>{1.f, -0.5f}));
}

TEST(ControlFlowTest, ReshapeByAComputedShapeRunsAtInvoke) {
  // out = RESHAPE(x + x, SHAPE(y)): the shape is known at allocation, the
  // data only at Invoke, so the RESHAPE is prepared then but not folded
  // (folding it read the unallocated sum: basic-pitch's nmp.tflite crashed).
  MultiGraphBuilder g;
  const int op_shape = g.AddOpCode(BuiltinOperator::SHAPE);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_reshape = g.AddOpCode(BuiltinOperator::RESHAPE);
  g.AddSubgraph("main");
  const int x = g.AddTensor(DataType::kFloat32, {2, 6}, 0, "x");
  const int y = g.AddTensor(DataType::kFloat32, {3, 4}, 0, "y");
  const int sum = g.AddTensor(DataType::kFloat32, {2, 6}, 0, "sum");
  const int s = g.AddTensor(DataType::kInt32, {2}, 0, "s");
  const int out = g.AddTensor(DataType::kFloat32, {3, 4}, 0, "out");
  g.AddOp(op_add, {x, x}, {sum}, AddOpts());
  g.AddOp(op_shape, {y}, {s}, [](flatbuffers::FlatBufferBuilder& fbb) {
    return std::make_pair(tflite::BuiltinOptions::ShapeOptions,
                          tflite::CreateShapeOptions(fbb, tflite::TensorType::INT32).Union());
  });
  g.AddOp(op_reshape, {sum, s}, {out});
  g.SetInputs({x, y});
  g.SetOutputs({out});
  Loaded l = Load(g.Finish());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  std::vector<float> xs(12), want(12);
  for (int i = 0; i < 12; ++i) xs[static_cast<size_t>(i)] = static_cast<float>(i), want[static_cast<size_t>(i)] = 2.f * i;
  Set<float>(*l.interp, 0, xs);
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_TRUE(l.interp->node_is_folded(1));
  EXPECT_FALSE(l.interp->node_is_folded(2));
  EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{3, 4}));
  EXPECT_EQ(Get<float>(*l.interp, 0), want);
  ASSERT_TRUE(l.interp->ResizeInputTensor(1, {6, 2}).ok());
  ASSERT_TRUE(l.interp->AllocateTensors().ok());
  Set<float>(*l.interp, 0, xs);
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{6, 2}));
  EXPECT_EQ(Get<float>(*l.interp, 0), want);
}

// Dynamic shapes: out = RANGE(0, n, 1) + RANGE(0, n, 1) with n a graph
// input; where = WHERE(mask); reshaped = RESHAPE(x, shape) with shape a
// graph input. Their shapes come from values known only at Invoke.
std::vector<uint8_t> DynamicModel() {
  MultiGraphBuilder g;
  const int op_range = g.AddOpCode(BuiltinOperator::RANGE);
  const int op_add = g.AddOpCode(BuiltinOperator::ADD);
  const int op_where = g.AddOpCode(BuiltinOperator::WHERE);
  const int op_reshape = g.AddOpCode(BuiltinOperator::RESHAPE);
  g.AddSubgraph("main");
  const int n = g.AddTensor(DataType::kInt32, {}, 0, "n");
  const int mask = g.AddTensor(DataType::kBool, {6}, 0, "mask");
  const int x = g.AddTensor(DataType::kFloat32, {2, 6}, 0, "x");
  const int shape = g.AddTensor(DataType::kInt32, {2}, 0, "shape");
  const int zero = g.AddConstant<int32_t>(DataType::kInt32, {}, {0});
  const int one = g.AddConstant<int32_t>(DataType::kInt32, {}, {1});
  const int range = g.AddTensor(DataType::kInt32, {1}, 0, "range");
  const int doubled = g.AddTensor(DataType::kInt32, {1}, 0, "doubled");
  const int where = g.AddTensor(DataType::kInt64, {1, 1}, 0, "where");
  const int reshaped = g.AddTensor(DataType::kFloat32, {12}, 0, "reshaped");
  g.AddOp(op_range, {zero, n, one}, {range});
  g.AddOp(op_add, {range, range}, {doubled}, AddOpts());
  g.AddOp(op_where, {mask}, {where});
  g.AddOp(op_reshape, {x, shape}, {reshaped});
  g.SetInputs({n, mask, x, shape});
  g.SetOutputs({doubled, where, reshaped});
  return g.Finish();
}

TEST(ControlFlowTest, DynamicShapesAreSizedAtInvoke) {
  Loaded l = Load(DynamicModel());
  ASSERT_TRUE(l.status.ok()) << l.status.ToString();
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  Set<float>(*l.interp, 2, x);
  for (int n : {5, 2, 0, 7}) {
    SCOPED_TRACE("n " + std::to_string(n));
    Set<int32_t>(*l.interp, 0, {n});
    Set<uint8_t>(*l.interp, 1, {1, 0, 0, static_cast<uint8_t>(n > 2), 0, 1});
    Set<int32_t>(*l.interp, 3, n > 4 ? std::vector<int32_t>{3, 4} : std::vector<int32_t>{4, -1});
    ASSERT_TRUE(l.interp->Invoke().ok());
    EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{n}));
    std::vector<int32_t> want;
    for (int i = 0; i < n; ++i) want.push_back(2 * i);
    EXPECT_EQ(Get<int32_t>(*l.interp, 0), want);
    const std::vector<int64_t> where = n > 2 ? std::vector<int64_t>{0, 3, 5} : std::vector<int64_t>{0, 5};
    EXPECT_EQ(l.interp->output_tensor(1)->shape, (Shape{static_cast<int32_t>(where.size()), 1}));
    EXPECT_EQ(Get<int64_t>(*l.interp, 1), where);
    EXPECT_EQ(l.interp->output_tensor(2)->shape, n > 4 ? (Shape{3, 4}) : (Shape{4, 3}));
    EXPECT_EQ(Get<float>(*l.interp, 2), x);
  }
  // A bad runtime value is an Invoke error naming the node.
  Set<int32_t>(*l.interp, 3, {5, 5});
  const Status bad = l.interp->Invoke();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("RESHAPE"), std::string::npos) << bad.ToString();
}

TEST(ControlFlowTest, MatchesLiteRt) {
  std::vector<std::unique_ptr<testing::GoldenCase>> cases;
  for (bool cond : {true, false}) {
    auto c = std::make_unique<testing::GoldenCase>(std::string("IF/") + (cond ? "then" : "else"));
    c->model_file = IfModel();
    c->Feed<uint8_t>(0, DataType::kBool, {}, {static_cast<uint8_t>(cond)});
    c->Feed<float>(1, DataType::kFloat32, {3}, {1.5f, -2.f, 4.f});
    c->Expect(2);
    cases.push_back(std::move(c));
  }
  {
    // Without the swap: LiteRT copies pass-through body outputs one by one
    // over the loop state, so two that swap come out equal there ([4,5,6]
    // twice after 3 iterations); relite stages them and swaps (the unit
    // test above).
    auto c = std::make_unique<testing::GoldenCase>("WHILE/counter and pass-through");
    c->model_file = WhileModel(false);
    c->Feed<int32_t>(0, DataType::kInt32, {}, {2});
    c->Feed<float>(1, DataType::kFloat32, {2}, {1.f, -3.f});
    c->Feed<float>(2, DataType::kFloat32, {2}, {7.f, 8.f});
    for (int k = 3; k < 6; ++k) c->Expect(k);
    cases.push_back(std::move(c));
  }
  for (bool cond : {true, false}) {
    auto c = std::make_unique<testing::GoldenCase>(std::string("IF/branch shapes differ/") + (cond ? "then" : "else"));
    c->model_file = IfShapesModel();
    c->Feed<uint8_t>(0, DataType::kBool, {}, {static_cast<uint8_t>(cond)});
    c->Feed<float>(1, DataType::kFloat32, {3}, {1.5f, -2.f, 4.f});
    c->Expect(2);
    cases.push_back(std::move(c));
  }
  {
    auto c = std::make_unique<testing::GoldenCase>("WHILE/a loop variable that grows");
    c->model_file = GrowingWhileModel();
    c->Feed<int32_t>(0, DataType::kInt32, {}, {0});
    c->Feed<int32_t>(1, DataType::kInt32, {}, {4});
    c->Feed<float>(2, DataType::kFloat32, {1}, {0.75f});
    c->Expect(3);
    c->Expect(5);
    cases.push_back(std::move(c));
  }
  {
    auto c = std::make_unique<testing::GoldenCase>("resource variables/a handle passed into a WHILE body, 3 invokes");
    c->model_file = ResourceLoopModel();
    c->invokes = 3;
    c->Feed<int32_t>(0, DataType::kInt32, {}, {2});
    c->Feed<float>(1, DataType::kFloat32, {2}, {1.25f, -3.f});
    c->Expect(8);
    cases.push_back(std::move(c));
  }
  {
    auto c = std::make_unique<testing::GoldenCase>("resource variables/3 invokes");
    c->model_file = StreamingModel();
    c->invokes = 3;
    c->Feed<float>(0, DataType::kFloat32, {2}, {1.f, 2.5f});
    c->Expect(3);
    cases.push_back(std::move(c));
  }
  for (int n : {4, 1}) {
    auto c = std::make_unique<testing::GoldenCase>("dynamic shapes/RANGE, WHERE, RESHAPE n=" + std::to_string(n));
    c->model_file = DynamicModel();
    c->Feed<int32_t>(0, DataType::kInt32, {}, {n});
    c->Feed<uint8_t>(1, DataType::kBool, {6}, {0, 1, 1, 0, static_cast<uint8_t>(n > 2), 1});
    std::vector<float> x(12);
    for (int i = 0; i < 12; ++i) x[static_cast<size_t>(i)] = 0.5f * static_cast<float>(i);
    c->Feed<float>(2, DataType::kFloat32, {2, 6}, x);
    c->Feed<int32_t>(3, DataType::kInt32, {2}, n > 2 ? std::vector<int32_t>{6, 2} : std::vector<int32_t>{-1, 4});
    for (int t : {7, 8, 9}) c->Expect(t);
    cases.push_back(std::move(c));
  }
  if (std::string why = testing::RunAgainstLiteRt(cases); !why.empty()) GTEST_SKIP() << why;
}

}  // namespace
}  // namespace relite
