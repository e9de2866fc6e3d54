// The interpreter's kernel fusions. Residual: CONV_2D -> ADD(other) [-> RELU]
// runs as one kernel that adds the other operand before its clamp, and a PAD
// that only appends zero channels to that operand is skipped too. HARD_SWISH:
// CONV_2D or DEPTHWISE_CONV_2D [+ clamp] -> HARD_SWISH runs as one kernel.
// Expansion: a 1x1 CONV_2D [+ clamp] -> DEPTHWISE_CONV_2D runs as the
// depthwise kernel, which makes the expanded rows itself. Projection: a
// 3x3 DEPTHWISE_CONV_2D [-> HARD_SWISH] -> 1x1 CONV_2D [+ ADD] runs as the
// depthwise kernel, which multiplies its rows while they are in L1.
// Every case is compared with the same model run unfused
// (SetPreserveAllTensors), which must give the same bits: the fused kernel
// does the same float operations.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relite/model_writer.h"
#include "relite/relite.h"

namespace relite {
namespace {

using writer::Activation;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

struct Spec {
  int h = 6, w = 7, cin = 5, cout = 8;
  int kernel = 1;                        // 1x1 (direct) or 3x3 (im2col)
  int groups = 1;                        // grouped convolution: filter [cout, k, k, cin / groups]
  bool channel_pad = false;              // the other operand is PAD(x) from cin to cout channels
  bool other_after_conv = false;         // the other operand is computed after the convolution
  Activation conv_act = Activation::kNone;
  Activation add_act = Activation::kNone;
  bool relu_after = false;               // a RELU node after the ADD
  bool bias = true;
};

// The model's bytes (empty, and a test failure, when the writer refuses it).
std::vector<uint8_t> Finished(const ModelWriter& m) {
  auto bytes = m.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? std::move(*bytes) : std::vector<uint8_t>{};
}

struct Built {
  std::vector<uint8_t> bytes;
  int conv = -1, add = -1, pad = -1, relu = -1;
};

Built Build(const Spec& s) {
  ModelWriter m;
  Built b;
  const int x = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cin}, "x");
  const int group_in = s.cin / s.groups;
  const int filter = m.AddConstantOf<float>({s.cout, s.kernel, s.kernel, group_in}, "filter",
                                            Random(static_cast<size_t>(s.cout) * s.kernel * s.kernel * group_in, 1));
  std::vector<int> conv_inputs = {x, filter};
  if (s.bias) conv_inputs.push_back(m.AddConstantOf<float>({s.cout}, "bias", Random(static_cast<size_t>(s.cout), 2)));
  const int conv_out = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cout}, "conv");
  writer::Conv2DOptions conv_options;
  conv_options.activation = s.conv_act;
  // The other operand: x itself (cin == cout), x channel-padded, or a RELU6 of x.
  int other = x;
  auto add_other = [&] {
    if (s.channel_pad) {
      const int paddings =
          m.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 0, 0, 0, 0, 0, s.cout - s.cin});
      other = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cout}, "padded");
      b.pad = m.AddOp(BuiltinOp::kPad, {x, paddings}, {other});
    } else if (s.other_after_conv) {
      other = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cin}, "relu6");
      m.AddOp(BuiltinOp::kRelu6, {x}, {other});
    }
  };
  if (!s.other_after_conv) add_other();
  b.conv = m.AddOp(BuiltinOp::kConv2D, conv_inputs, {conv_out}, conv_options);
  if (s.other_after_conv) add_other();
  const int sum = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cout}, "sum");
  writer::ArithmeticOptions add_options;
  add_options.activation = s.add_act;
  b.add = m.AddOp(BuiltinOp::kAdd, {other, conv_out}, {sum}, add_options);
  int out = sum;
  if (s.relu_after) {
    out = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cout}, "out");
    b.relu = m.AddOp(BuiltinOp::kRelu, {sum}, {out});
  }
  m.SetInputs({x});
  m.SetOutputs({out});
  b.bytes = Finished(m);
  return b;
}

// A case of a table-driven test: what it covers, and its model's spec.
template <typename SpecT>
struct NamedCase {
  const char* what;
  SpecT spec;
};

struct RunResult {
  std::vector<float> out;
  std::vector<bool> fused;
};

RunResult Invoke(const std::vector<uint8_t>& bytes, bool preserve, int threads, int batch = 1) {
  RunResult r;
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return r;
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(threads).SetPreserveAllTensors(preserve).Build();
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  if (!interp.ok()) return r;
  Interpreter& it = **interp;
  if (batch != 1) {
    Shape shape = it.input_tensor(0)->shape;
    shape[0] = batch;
    const Status s = it.ResizeInputTensor(0, shape);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  const Status alloc = it.AllocateTensors();
  EXPECT_TRUE(alloc.ok()) << alloc.ToString();
  if (!alloc.ok()) return r;
  for (int i = 0; i < it.num_inputs(); ++i) {
    const std::vector<float> x = Random(static_cast<size_t>(it.input_tensor(i)->num_elements()), 3 + i);
    std::copy(x.begin(), x.end(), it.typed_input<float>(i));
  }
  const Status inv = it.Invoke();
  EXPECT_TRUE(inv.ok()) << inv.ToString();
  const Tensor* out = it.output_tensor(0);
  r.out.assign(it.typed_output<float>(0), it.typed_output<float>(0) + out->num_elements());
  for (int i = 0; i < it.nodes_size(); ++i) r.fused.push_back(it.node_is_fused(i));
  return r;
}

// What "the same bits" allows per compiler. GCC (the release build) gives
// the fused and unfused graphs the same bits. clang (the sanitizer build,
// kernels at -O3 -ffp-contract=fast) rounds some register tiles' sums
// differently by tile height and epilogue: outputs have differed by 1-2
// units in the last place (5e-7 on values near 2) in a few rows.
#if defined(__clang__)
constexpr float kSameBitsRtol = 1e-6f;
#else
constexpr float kSameBitsRtol = 0.f;
#endif

// Runs fused (threads 1 and 2 unless told) and unfused, expects the same
// bits (see kSameBitsRtol) and the nodes `must_fuse` fused in every run;
// returns the last fused run's flags. `rtol` > 0: within rtol * (1 +
// |unfused|) instead.
std::vector<bool> ExpectSameAsUnfused(const std::vector<uint8_t>& bytes, const std::vector<int>& must_fuse = {},
                                      int batch = 1, float rtol = 0.f, const std::vector<int>& thread_counts = {1, 2}) {
  if (rtol == 0.f) rtol = kSameBitsRtol;
  const RunResult plain = Invoke(bytes, /*preserve=*/true, 1, batch);
  for (bool f : plain.fused) EXPECT_FALSE(f);
  std::vector<bool> fused;
  for (int threads : thread_counts) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const RunResult run = Invoke(bytes, /*preserve=*/false, threads, batch);
    if (rtol == 0.f || run.out.size() != plain.out.size()) {
      EXPECT_EQ(run.out, plain.out);
    } else {
      double worst = 0.0;  // largest |difference| / (1 + |unfused|)
      for (size_t i = 0; i < run.out.size(); ++i) {
        worst = std::max(worst, std::fabs(double{run.out[i]} - plain.out[i]) / (1.0 + std::fabs(double{plain.out[i]})));
      }
      EXPECT_LE(worst, rtol);
    }
    EXPECT_EQ(run.fused.size(), plain.fused.size());
    for (int node : must_fuse) {
      EXPECT_TRUE(node >= 0 && static_cast<size_t>(node) < run.fused.size() && run.fused[static_cast<size_t>(node)])
          << "node " << node << " was not fused";
    }
    fused = run.fused;
  }
  return fused;
}
std::vector<bool> ExpectSameAsUnfused(const Spec& s, int batch = 1) {
  return ExpectSameAsUnfused(Build(s).bytes, {}, batch);
}

TEST(ResidualFusion, ConvAddReluRunsAsOneKernel) {
  for (int kernel : {1, 3}) {
    for (bool bias : {true, false}) {
      SCOPED_TRACE("kernel " + std::to_string(kernel) + (bias ? " with bias" : " without bias"));
      Spec s;
      s.cin = s.cout = 8;
      s.kernel = kernel;
      s.bias = bias;
      s.relu_after = true;
      const Built b = Build(s);
      const std::vector<bool> fused = ExpectSameAsUnfused(s);
      ASSERT_EQ(fused.size(), 3u);
      EXPECT_FALSE(fused[static_cast<size_t>(b.conv)]);
      EXPECT_TRUE(fused[static_cast<size_t>(b.add)]);
      EXPECT_TRUE(fused[static_cast<size_t>(b.relu)]);  // the RELU follows the sum into the same kernel
    }
  }
}

TEST(ResidualFusion, AddActivationIsAppliedAfterTheSum) {
  for (Activation act : {Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1}) {
    Spec s;
    s.cin = s.cout = 24;
    s.kernel = 3;
    s.add_act = act;
    const Built b = Build(s);
    EXPECT_TRUE(ExpectSameAsUnfused(s)[static_cast<size_t>(b.add)]);
  }
}

TEST(ResidualFusion, ChannelPaddedOperandSkipsThePad) {
  // 6x7 gathers every 3x3 window (im2col); 12x15 reads the inner windows in place (segmented rows).
  for (int cout : {8, 13, 20}) for (int kernel : {1, 3}) for (int w : {7, 15}) {
      SCOPED_TRACE("cout " + std::to_string(cout) + " kernel " + std::to_string(kernel) + " w " + std::to_string(w));
      Spec s;
      s.w = w;
      s.h = w == 7 ? 6 : 12;
      s.cin = 5;
      s.cout = cout;
      s.kernel = kernel;
      s.channel_pad = true;
      s.relu_after = true;
      const Built b = Build(s);
      const std::vector<bool> fused = ExpectSameAsUnfused(s);
      EXPECT_TRUE(fused[static_cast<size_t>(b.pad)]);
      EXPECT_TRUE(fused[static_cast<size_t>(b.add)]);
      EXPECT_TRUE(fused[static_cast<size_t>(b.relu)]);
  }
}

TEST(ResidualFusion, WideOutputsAddTheResidualInPanelPairs) {
  // 32 and 48 columns: pairs of 16-column panels take the residual in
  // registers (AVX-512), 24 and 40 a panel with the 8-column panel after it;
  // 40 with a channel-padded operand of 20 columns ends the residual inside
  // the first pair, which then runs panel by panel.
  for (int cout : {24, 32, 40, 48}) for (bool pad : {false, true}) {
      SCOPED_TRACE("cout " + std::to_string(cout) + (pad ? " padded operand" : ""));
      Spec s;
      s.h = 5;
      s.w = 7;  // 35 rows: two 12-row tiles and a short one
      s.cin = pad ? 20 : cout;
      s.cout = cout;
      s.kernel = 1;
      s.channel_pad = pad;
      s.relu_after = true;
      const Built b = Build(s);
      EXPECT_TRUE(ExpectSameAsUnfused(s)[static_cast<size_t>(b.add)]);
  }
}

TEST(ResidualFusion, GroupedConvolutionAddsEachGroupsChannels) {
  // Two groups of 12 output channels; the padded operand has 16 channels, so
  // the second group gets the residual in its first 4 columns only.
  for (bool pad : {false, true}) {
    Spec s;
    s.cin = pad ? 16 : 24;
    s.cout = 24;
    s.groups = 2;
    s.kernel = 3;
    s.channel_pad = pad;
    const Built b = Build(s);
    EXPECT_TRUE(ExpectSameAsUnfused(s)[static_cast<size_t>(b.add)]);
  }
}

TEST(ResidualFusion, ResizedBatchStillMatches) {
  Spec s;
  s.cin = 5;
  s.cout = 16;
  s.channel_pad = true;
  const Built b = Build(s);
  EXPECT_TRUE(ExpectSameAsUnfused(s, /*batch=*/3)[static_cast<size_t>(b.add)]);
}

TEST(ResidualFusion, NotFusedWhenTheOperandComesLaterOrTheConvClamps) {
  {
    SCOPED_TRACE("operand computed after the convolution");
    Spec s;
    s.cin = s.cout = 8;
    s.other_after_conv = true;
    const Built b = Build(s);
    EXPECT_FALSE(ExpectSameAsUnfused(s)[static_cast<size_t>(b.add)]);
  }
  {
    SCOPED_TRACE("convolution with its own RELU");
    Spec s;
    s.cin = s.cout = 8;
    s.conv_act = Activation::kRelu;
    const Built b = Build(s);
    EXPECT_FALSE(ExpectSameAsUnfused(s)[static_cast<size_t>(b.add)]);
  }
}

// DEPTHWISE_CONV_2D -> ADD(R): MobileNet v3 / MediaPipe blocks add the
// depthwise input back after the depthwise's own RELU. The row is finished
// first, so the depthwise may keep its activation; the ADD's clamp (or a
// RELU after it) applies to the sum.
struct DepthwiseAddSpec {
  int h = 12, w = 15, c = 16, kernel = 3, multiplier = 1;
  Activation dw_act = Activation::kRelu;
  Activation add_act = Activation::kNone;
  bool relu_after = false;
  bool operand_is_input = true;  // R = the depthwise's input; else RELU6 of it, computed before
};

struct DepthwiseAddBuilt {
  std::vector<uint8_t> bytes;
  int dw = -1, add = -1, pad = -1, relu = -1;
};

DepthwiseAddBuilt BuildDepthwiseAdd(const DepthwiseAddSpec& s) {
  ModelWriter m;
  DepthwiseAddBuilt b;
  const int cout = s.c * s.multiplier;
  const int x = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.c}, "x");
  int other = x;
  if (!s.operand_is_input) {
    other = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.c}, "relu6");
    m.AddOp(BuiltinOp::kRelu6, {x}, {other});
  }
  if (s.multiplier != 1) {  // R channel-padded from c to c * multiplier
    const int paddings = m.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 0, 0, 0, 0, 0, cout - s.c});
    const int padded = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "padded");
    b.pad = m.AddOp(BuiltinOp::kPad, {other, paddings}, {padded});
    other = padded;
  }
  const int filter = m.AddConstantOf<float>({1, s.kernel, s.kernel, cout}, "filter",
                                            Random(static_cast<size_t>(s.kernel) * s.kernel * cout, 1));
  const int bias = m.AddConstantOf<float>({cout}, "bias", Random(static_cast<size_t>(cout), 2));
  const int d = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "dw");
  writer::DepthwiseConv2DOptions o;
  o.activation = s.dw_act;
  o.depth_multiplier = s.multiplier;
  b.dw = m.AddOp(BuiltinOp::kDepthwiseConv2D, {x, filter, bias}, {d}, o);
  const int sum = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "sum");
  writer::ArithmeticOptions add_options;
  add_options.activation = s.add_act;
  b.add = m.AddOp(BuiltinOp::kAdd, {other, d}, {sum}, add_options);
  int out = sum;
  if (s.relu_after) {
    out = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "out");
    b.relu = m.AddOp(BuiltinOp::kRelu, {sum}, {out});
  }
  m.SetInputs({x});
  m.SetOutputs({out});
  b.bytes = Finished(m);
  return b;
}

TEST(ResidualFusion, DepthwiseAddMatchesTheUnfusedGraph) {
  using Case = NamedCase<DepthwiseAddSpec>;
  std::vector<Case> cases;
  DepthwiseAddSpec s;
  cases.push_back({"depthwise+RELU, ADD of its input", s});
  s.dw_act = Activation::kNone;
  s.add_act = Activation::kRelu6;
  s.operand_is_input = false;
  cases.push_back({"ADD with RELU6, operand computed before", s});
  s = DepthwiseAddSpec{};
  s.relu_after = true;
  s.c = 13;
  cases.push_back({"RELU after the ADD, 13 channels", s});
  s = DepthwiseAddSpec{};
  s.kernel = 5;
  s.h = 20;
  s.w = 23;
  cases.push_back({"5x5", s});
  s.h = 7;
  s.w = 8;
  s.c = 40;
  cases.push_back({"5x5 on a small map (padded slices; two threads split row 3)", s});
  s = DepthwiseAddSpec{};
  s.c = 4;
  s.multiplier = 2;
  cases.push_back({"multiplier 2, operand channel-padded", s});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const DepthwiseAddBuilt b = BuildDepthwiseAdd(c.spec);
    std::vector<int> must_fuse = {b.add};
    if (b.pad >= 0) must_fuse.push_back(b.pad);
    if (b.relu >= 0) must_fuse.push_back(b.relu);
    ExpectSameAsUnfused(b.bytes, must_fuse);
  }
}

// RESIZE_BILINEAR -> ADD(R): the skip connections of decoders (MediaPipe
// pose's heatmap head). Every channel path of the resize: fewer than 8, a
// multiple of 8, and neither.
TEST(ResidualFusion, ResizeAddMatchesTheUnfusedGraph) {
  for (int c : {3, 8, 12}) {
    for (bool relu_after : {false, true}) {
      SCOPED_TRACE("channels " + std::to_string(c) + (relu_after ? " with a RELU after" : ""));
      ModelWriter m;
      const int x = m.AddTensor(DataType::kFloat32, {1, 7, 9, c}, "x");
      const int skip = m.AddTensor(DataType::kFloat32, {1, 14, 18, c}, "skip");
      const int skip_relu6 = m.AddTensor(DataType::kFloat32, {1, 14, 18, c}, "skip_relu6");
      m.AddOp(BuiltinOp::kRelu6, {skip}, {skip_relu6});
      const int size = m.AddConstantOf<int32_t>({2}, "size", {14, 18});
      const int up = m.AddTensor(DataType::kFloat32, {1, 14, 18, c}, "up");
      writer::ResizeBilinearOptions ro;
      ro.half_pixel_centers = true;
      m.AddOp(BuiltinOp::kResizeBilinear, {x, size}, {up}, ro);
      const int sum = m.AddTensor(DataType::kFloat32, {1, 14, 18, c}, "sum");
      writer::ArithmeticOptions ao;
      ao.activation = relu_after ? Activation::kNone : Activation::kRelu6;
      const int add = m.AddOp(BuiltinOp::kAdd, {up, skip_relu6}, {sum}, ao);
      int out = sum, relu = -1;
      if (relu_after) {
        out = m.AddTensor(DataType::kFloat32, {1, 14, 18, c}, "out");
        relu = m.AddOp(BuiltinOp::kRelu, {sum}, {out});
      }
      m.SetInputs({x, skip});
      m.SetOutputs({out});
      ExpectSameAsUnfused(Finished(m), relu >= 0 ? std::vector<int>{add, relu} : std::vector<int>{add});
    }
  }
}

// A skip tensor channel-padded with zeros (PAD 5 -> 12 channels): the PAD is
// skipped and the resize adds the 5 channels it has.
TEST(ResidualFusion, ResizeAddOfAChannelPaddedOperand) {
  ModelWriter m;
  const int x = m.AddTensor(DataType::kFloat32, {1, 7, 9, 12}, "x");
  const int skip = m.AddTensor(DataType::kFloat32, {1, 14, 18, 5}, "skip");
  const int paddings = m.AddConstantOf<int32_t>({4, 2}, "paddings", {0, 0, 0, 0, 0, 0, 0, 7});
  const int padded = m.AddTensor(DataType::kFloat32, {1, 14, 18, 12}, "padded");
  const int pad = m.AddOp(BuiltinOp::kPad, {skip, paddings}, {padded});
  const int size = m.AddConstantOf<int32_t>({2}, "size", {14, 18});
  const int up = m.AddTensor(DataType::kFloat32, {1, 14, 18, 12}, "up");
  m.AddOp(BuiltinOp::kResizeBilinear, {x, size}, {up}, writer::ResizeBilinearOptions{});
  const int sum = m.AddTensor(DataType::kFloat32, {1, 14, 18, 12}, "sum");
  const int add = m.AddOp(BuiltinOp::kAdd, {up, padded}, {sum}, writer::ArithmeticOptions{});
  m.SetInputs({x, skip});
  m.SetOutputs({sum});
  ExpectSameAsUnfused(Finished(m), {add, pad});
}

// HARD_SWISH after a convolution: every CONV_2D path (1x1 read in place,
// 3x3 gathered, 3x3 read in place row by row, columns split between
// threads, at most four output channels) and DEPTHWISE_CONV_2D.
struct SwishSpec {
  int h = 12, w = 15, cin = 5, cout = 8;
  int kernel = 3;
  bool depthwise = false;
  Activation conv_act = Activation::kNone;
  bool relu_after = false;      // a RELU after the HARD_SWISH (must stay its own node)
  bool second_reader = false;   // the convolution's output is also a graph output
};

struct SwishBuilt {
  std::vector<uint8_t> bytes;
  int conv = -1, swish = -1, relu = -1;
};

SwishBuilt BuildSwish(const SwishSpec& s) {
  ModelWriter m;
  SwishBuilt b;
  const int x = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cin}, "x");
  const int cout = s.depthwise ? s.cin : s.cout;
  const int conv_out = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "conv");
  const int bias = m.AddConstantOf<float>({cout}, "bias", Random(static_cast<size_t>(cout), 2));
  if (s.depthwise) {
    const int filter = m.AddConstantOf<float>({1, s.kernel, s.kernel, cout}, "filter",
                                              Random(static_cast<size_t>(s.kernel) * s.kernel * cout, 1));
    writer::DepthwiseConv2DOptions o;
    o.activation = s.conv_act;
    b.conv = m.AddOp(BuiltinOp::kDepthwiseConv2D, {x, filter, bias}, {conv_out}, o);
  } else {
    const int filter = m.AddConstantOf<float>({cout, s.kernel, s.kernel, s.cin}, "filter",
                                              Random(static_cast<size_t>(cout) * s.kernel * s.kernel * s.cin, 1));
    writer::Conv2DOptions o;
    o.activation = s.conv_act;
    b.conv = m.AddOp(BuiltinOp::kConv2D, {x, filter, bias}, {conv_out}, o);
  }
  int out = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "swish");
  b.swish = m.AddOp(BuiltinOp::kHardSwish, {conv_out}, {out});
  if (s.relu_after) {
    const int relu = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, cout}, "relu");
    b.relu = m.AddOp(BuiltinOp::kRelu, {out}, {relu});
    out = relu;
  }
  m.SetInputs({x});
  m.SetOutputs(s.second_reader ? std::vector<int>{out, conv_out} : std::vector<int>{out});
  b.bytes = Finished(m);
  return b;
}

TEST(HardSwishFusion, EveryConvolutionPathMatchesTheUnfusedGraph) {
  using Case = NamedCase<SwishSpec>;
  std::vector<Case> cases;
  SwishSpec s;
  s.kernel = 1;
  cases.push_back({"1x1", s});
  s.kernel = 3;
  cases.push_back({"3x3 rows in place", s});
  s.h = 6;
  s.w = 7;
  cases.push_back({"3x3 gathered", s});
  s = SwishSpec{};
  s.cin = 24;
  s.cout = 200;  // few rows, many columns: the columns are split between threads
  s.h = s.w = 3;
  cases.push_back({"3x3 column tasks", s});
  s = SwishSpec{};
  s.cout = 3;
  cases.push_back({"three output channels", s});
  s = SwishSpec{};
  s.conv_act = Activation::kRelu6;
  cases.push_back({"after the convolution's RELU6", s});
  s = SwishSpec{};
  s.depthwise = true;
  s.cin = 16;
  cases.push_back({"depthwise 3x3", s});
  s.kernel = 5;
  s.cin = 13;
  cases.push_back({"depthwise 5x5, 13 channels", s});
  s.h = 7;
  s.w = 9;
  cases.push_back({"depthwise 5x5 on a small map (padded; two threads split row 3)", s});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const SwishBuilt b = BuildSwish(c.spec);
    ExpectSameAsUnfused(b.bytes, {b.swish});
  }
}

TEST(HardSwishFusion, AClampAfterItStaysItsOwnNodeAndASecondReaderBlocksIt) {
  {
    SwishSpec s;
    s.relu_after = true;
    const SwishBuilt b = BuildSwish(s);
    const RunResult plain = Invoke(b.bytes, /*preserve=*/true, 1);
    const RunResult run = Invoke(b.bytes, /*preserve=*/false, 2);
    EXPECT_EQ(run.out, plain.out);
    EXPECT_TRUE(run.fused[static_cast<size_t>(b.swish)]);
    EXPECT_FALSE(run.fused[static_cast<size_t>(b.relu)]);
  }
  {
    SwishSpec s;
    s.second_reader = true;
    const SwishBuilt b = BuildSwish(s);
    const RunResult run = Invoke(b.bytes, /*preserve=*/false, 2);
    EXPECT_FALSE(run.fused[static_cast<size_t>(b.swish)]);
  }
}

// -------------------------------------------- 1x1 expansion -> depthwise
// CONV_2D 1x1 [-> RELU6] -> DEPTHWISE_CONV_2D runs as the depthwise kernel
// making the expanded rows a band at a time (Subgraph::FusePointwiseInputs)
// when the expanded tensor is 1 MiB or more. Bands hold ~256 KiB of
// expanded rows, so these maps take several bands per thread: consecutive
// bands reuse the rows their windows share.
struct ExpansionSpec {
  int h = 64, w = 64, cin = 16, cexp = 64;  // 64x64x64 floats: 1 MiB expanded
  int kernel = 3, stride = 1, dilation = 1, multiplier = 1;
  writer::Padding padding = writer::Padding::kSame;
  Activation conv_act = Activation::kNone;
  bool relu6_node = true;  // a RELU6 node between the two (it joins the convolution first)
  Activation dw_act = Activation::kRelu6;
  bool conv_bias = true;
  bool hard_swish_after = false;
  bool expanded_is_output = false;  // a second reader: not fused
  bool float16_weights = false;     // the convolutions' weights behind DEQUANTIZE (folded after the fusion pass)
  bool expansion = true;            // false: the depthwise reads x (then cexp must equal cin)
  int project = 0;                  // a 1x1 projection to this many channels after the depthwise (0: none)
  bool project_bias = true;
  Activation project_act = Activation::kNone;
  bool project_add = false;         // ADD(projection, x): stride 1, project == cin
  Activation add_act = Activation::kNone;
  bool add_operand_after = false;   // the ADD's operand is RELU(x), computed after the depthwise
  bool depthwise_is_output = false; // a second reader of the depthwise output
};

// More threads than this machine has cores: the threads take each other's
// tasks of output rows, whose bands then start away from the rows they hold.
const std::vector<int> kExpansionThreads = {1, 2, 3, 8, 8, 8, 8, 8, 8};

// The same GEMM and depthwise code as unfused, but the band's GEMM cuts its
// rows into register tiles at other places than CONV_2D does. GCC's -O3
// builds give the same bits; clang's sanitizer build (-O1) rounded some
// tile heights differently in the last bit (3x3/2 over 67x65, 2 threads:
// 1.25e-7 at most).
constexpr float kExpansionRtol = 1e-6f;

struct ExpansionBuilt {
  std::vector<uint8_t> bytes;
  int conv = -1, relu = -1, dw = -1, swish = -1, project = -1, add = -1;
};

ExpansionBuilt BuildExpansion(const ExpansionSpec& s) {
  ModelWriter m;
  ExpansionBuilt b;
  const int x = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cin}, "x");
  auto constant = [&](const Shape& shape, const std::string& name, const std::vector<float>& v) {
    if (!s.float16_weights) return m.AddConstantOf<float>(shape, name, v);
    const int h = m.AddFloat16Constant(shape, name + "_fp16", v);
    const int f = m.AddTensor(DataType::kFloat32, shape, name);
    m.AddOp(BuiltinOp::kDequantize, {h}, {f});
    return f;
  };
  int expanded = x;
  if (s.expansion) {
    const int filter = constant({s.cexp, 1, 1, s.cin}, "expand_filter", Random(static_cast<size_t>(s.cexp) * s.cin, 11));
    std::vector<int> conv_inputs = {x, filter};
    if (s.conv_bias) conv_inputs.push_back(constant({s.cexp}, "expand_bias", Random(static_cast<size_t>(s.cexp), 12)));
    expanded = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cexp}, "expanded");
    writer::Conv2DOptions conv_options;
    conv_options.activation = s.conv_act;
    b.conv = m.AddOp(BuiltinOp::kConv2D, conv_inputs, {expanded}, conv_options);
  }
  if (s.expansion && s.relu6_node) {
    const int clamped = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cexp}, "expanded_relu6");
    b.relu = m.AddOp(BuiltinOp::kRelu6, {expanded}, {clamped});
    expanded = clamped;
  }
  const int cout = s.cexp * s.multiplier;
  const int dw_filter = m.AddConstantOf<float>({1, s.kernel, s.kernel, cout}, "dw_filter",
                                               Random(static_cast<size_t>(s.kernel) * s.kernel * cout, 13));
  const int dw_bias = m.AddConstantOf<float>({cout}, "dw_bias", Random(static_cast<size_t>(cout), 14));
  const int eff = (s.kernel - 1) * s.dilation + 1;
  const bool same = s.padding == writer::Padding::kSame;
  const int oh = same ? (s.h + s.stride - 1) / s.stride : (s.h - eff) / s.stride + 1;
  const int ow = same ? (s.w + s.stride - 1) / s.stride : (s.w - eff) / s.stride + 1;
  const int d = m.AddTensor(DataType::kFloat32, {1, oh, ow, cout}, "dw");
  writer::DepthwiseConv2DOptions o;
  o.padding = s.padding;
  o.stride_h = o.stride_w = s.stride;
  o.dilation_h = o.dilation_w = s.dilation;
  o.depth_multiplier = s.multiplier;
  o.activation = s.dw_act;
  b.dw = m.AddOp(BuiltinOp::kDepthwiseConv2D, {expanded, dw_filter, dw_bias}, {d}, o);
  int out = d;
  if (s.hard_swish_after) {
    out = m.AddTensor(DataType::kFloat32, {1, oh, ow, cout}, "swish");
    b.swish = m.AddOp(BuiltinOp::kHardSwish, {d}, {out});
  }
  const int depthwise_out = out;
  if (s.project > 0) {
    // Created after the depthwise node: with float16 weights their
    // DEQUANTIZE nodes come after it in the plan.
    const int filter = constant({s.project, 1, 1, cout}, "project_filter",
                                Random(static_cast<size_t>(s.project) * cout, 15));
    std::vector<int> inputs = {out, filter};
    if (s.project_bias) inputs.push_back(constant({s.project}, "project_bias", Random(static_cast<size_t>(s.project), 16)));
    int operand = x;
    if (s.add_operand_after) {
      operand = m.AddTensor(DataType::kFloat32, {1, s.h, s.w, s.cin}, "relu_x");
      m.AddOp(BuiltinOp::kRelu, {x}, {operand});
    }
    out = m.AddTensor(DataType::kFloat32, {1, oh, ow, s.project}, "projected");
    writer::Conv2DOptions options;
    options.activation = s.project_act;
    b.project = m.AddOp(BuiltinOp::kConv2D, inputs, {out}, options);
    if (s.project_add) {
      const int sum = m.AddTensor(DataType::kFloat32, {1, oh, ow, s.project}, "sum");
      writer::ArithmeticOptions add_options;
      add_options.activation = s.add_act;
      b.add = m.AddOp(BuiltinOp::kAdd, {out, operand}, {sum}, add_options);
      out = sum;
    }
  }
  m.SetInputs({x});
  std::vector<int> outputs = {out};
  if (s.expanded_is_output) outputs.push_back(expanded);
  if (s.depthwise_is_output) outputs.push_back(depthwise_out);
  m.SetOutputs(outputs);
  b.bytes = Finished(m);
  return b;
}

TEST(PointwiseDepthwiseFusion, MatchesTheUnfusedGraph) {
  using Case = NamedCase<ExpansionSpec>;
  std::vector<Case> cases;
  ExpansionSpec s;
  cases.push_back({"3x3 stride 1 SAME, RELU6 node", s});
  s = ExpansionSpec{};
  s.h = 67, s.w = 65, s.stride = 2;
  cases.push_back({"3x3 stride 2 SAME, odd sizes", s});
  s = ExpansionSpec{};
  s.h = 70, s.w = 61, s.kernel = 5, s.stride = 2, s.padding = writer::Padding::kValid, s.dilation = 2;
  cases.push_back({"5x5 stride 2 VALID, dilation 2", s});
  s = ExpansionSpec{};
  s.cexp = 40, s.h = 80, s.w = 90, s.relu6_node = false, s.conv_act = Activation::kRelu, s.conv_bias = false;
  s.dw_act = Activation::kNone;
  cases.push_back({"40 expanded channels, the convolution's own RELU, no bias", s});
  s = ExpansionSpec{};
  s.multiplier = 2, s.cexp = 48, s.h = 72, s.w = 80;
  cases.push_back({"depth multiplier 2", s});
  s = ExpansionSpec{};
  s.hard_swish_after = true;
  cases.push_back({"HARD_SWISH after the depthwise", s});
  s = ExpansionSpec{};
  s.float16_weights = true;
  cases.push_back({"float16 weights behind DEQUANTIZE", s});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const ExpansionBuilt b = BuildExpansion(c.spec);
    std::vector<int> fused = {b.conv};
    if (b.relu >= 0) fused.push_back(b.relu);
    if (b.swish >= 0) fused.push_back(b.swish);
    const std::vector<bool> run = ExpectSameAsUnfused(b.bytes, fused, 1, kExpansionRtol, kExpansionThreads);
    ASSERT_GT(run.size(), static_cast<size_t>(b.dw));
    EXPECT_FALSE(run[static_cast<size_t>(b.dw)]);  // the depthwise node runs both
  }
}

TEST(PointwiseDepthwiseFusion, BatchesShareNoBand) {
  // Three images: a thread's run of output rows crosses from one image to
  // the next, whose expanded rows must not be taken from the last band.
  ExpansionSpec s;
  s.stride = 2;
  const ExpansionBuilt b = BuildExpansion(s);
  ExpectSameAsUnfused(b.bytes, {b.conv}, /*batch=*/3, kExpansionRtol, kExpansionThreads);
}

// AllocateTensors must fail with `message`, naming node `node`; node
// `fused` (if any) must have been fused before the failure.
void ExpectAllocateRefusedBy(const std::vector<uint8_t>& bytes, int node, const std::string& message, int fused = -1) {
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  BuiltinOpResolver resolver;
  auto interp = InterpreterBuilder(**model, resolver).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  const Status s = (*interp)->AllocateTensors();
  ASSERT_FALSE(s.ok());
  if (fused >= 0) {
    EXPECT_TRUE((*interp)->node_is_fused(fused));
  }
  EXPECT_NE(s.message().find(message), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("node " + std::to_string(node) + " (DEPTHWISE_CONV_2D"), std::string::npos) << s.ToString();
}

TEST(PointwiseDepthwiseFusion, AFilterWhoseFoldedShapeDisagreesIsAnErrorNamingTheNode) {
  // The pass sees the declared [64,1,1,16] filter; the DEQUANTIZE feeding it
  // folds to the float16 constant's real [64,1,1,17]. The depthwise kernel,
  // which now runs the convolution, must refuse it at AllocateTensors.
  ModelWriter m;
  const int x = m.AddTensor(DataType::kFloat32, {1, 64, 64, 16}, "x");
  const int half = m.AddFloat16Constant({64, 1, 1, 17}, "expand_filter_fp16", Random(64 * 17, 21));
  const int filter = m.AddTensor(DataType::kFloat32, {64, 1, 1, 16}, "expand_filter");
  m.AddOp(BuiltinOp::kDequantize, {half}, {filter});
  const int expanded = m.AddTensor(DataType::kFloat32, {1, 64, 64, 64}, "expanded");
  m.AddOp(BuiltinOp::kConv2D, {x, filter}, {expanded}, writer::Conv2DOptions{});
  const int dw_filter = m.AddConstantOf<float>({1, 3, 3, 64}, "dw_filter", Random(9 * 64, 22));
  const int out = m.AddTensor(DataType::kFloat32, {1, 64, 64, 64}, "dw");
  const int dw = m.AddOp(BuiltinOp::kDepthwiseConv2D, {expanded, dw_filter}, {out}, writer::DepthwiseConv2DOptions{});
  m.SetInputs({x});
  m.SetOutputs({out});
  ExpectAllocateRefusedBy(Finished(m), dw, "fused 1x1 convolution's filter must be [Cout,1,1,16], got [64,1,1,17]");
}

TEST(PointwiseDepthwiseFusion, AnEmptyInputGivesAnEmptyOutput) {
  // The pass fuses on the declared shapes; an input resized to no rows or
  // no columns then reaches the fused kernel, which must plan its bands
  // without dividing by the zero-length row (found by the invoke fuzzer).
  const ExpansionBuilt b = BuildExpansion(ExpansionSpec{});
  for (int axis : {1, 2}) {
    SCOPED_TRACE("empty axis " + std::to_string(axis));
    for (int threads : {1, 2}) {
      auto model = Model::FromBuffer(b.bytes.data(), b.bytes.size());
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      BuiltinOpResolver resolver;
      auto interp = InterpreterBuilder(**model, resolver).SetNumThreads(threads).Build();
      ASSERT_TRUE(interp.ok()) << interp.status().ToString();
      Interpreter& it = **interp;
      Shape shape = it.input_tensor(0)->shape;
      shape[static_cast<size_t>(axis)] = 0;
      ASSERT_TRUE(it.ResizeInputTensor(0, shape).ok());
      const Status alloc = it.AllocateTensors();
      ASSERT_TRUE(alloc.ok()) << alloc.ToString();
      EXPECT_TRUE(it.node_is_fused(b.conv));
      const Status inv = it.Invoke();
      ASSERT_TRUE(inv.ok()) << inv.ToString();
      EXPECT_EQ(it.output_tensor(0)->num_elements(), 0);
      EXPECT_EQ(it.output_tensor(0)->dim(static_cast<int>(axis)), 0);
    }
  }
}

TEST(PointwiseDepthwiseFusion, NotFusedForASecondReaderOrASmallMap) {
  {
    ExpansionSpec s;
    s.expanded_is_output = true;
    const ExpansionBuilt b = BuildExpansion(s);
    const RunResult plain = Invoke(b.bytes, /*preserve=*/true, 1);
    const RunResult run = Invoke(b.bytes, /*preserve=*/false, 2);
    EXPECT_EQ(run.out, plain.out);
    EXPECT_FALSE(run.fused[static_cast<size_t>(b.conv)]);
  }
  {
    ExpansionSpec s;
    s.h = s.w = 28;  // 28x28x64 floats: 196 KiB, stays in L2
    const ExpansionBuilt b = BuildExpansion(s);
    const RunResult run = Invoke(b.bytes, /*preserve=*/false, 2);
    EXPECT_FALSE(run.fused[static_cast<size_t>(b.conv)]);
    EXPECT_TRUE(run.fused[static_cast<size_t>(b.relu)]);  // the RELU6 still joins the convolution
  }
}

// ------------------------------------------- depthwise -> 1x1 projection
// A 3x3 DEPTHWISE_CONV_2D [-> HARD_SWISH] -> 1x1 CONV_2D [-> ADD] runs as
// the depthwise kernel (Subgraph::FusePointwiseOutputs) when the depthwise
// output is 512 KiB or more: its rows are made a few at a time in scratch
// and multiplied there, with the expansion before it fused or not.
TEST(PointwiseProjectionFusion, MatchesTheUnfusedGraph) {
  using Case = NamedCase<ExpansionSpec>;
  std::vector<Case> cases;
  ExpansionSpec s;
  s.expansion = false, s.cin = s.cexp = 24, s.h = s.w = 112, s.project = 16;
  cases.push_back({"depthwise 112x112x24 -> 16, no expansion", s});
  s = ExpansionSpec{};
  s.project = 16, s.project_add = true, s.add_act = Activation::kRelu6;
  cases.push_back({"expansion, depthwise, projection + ADD(x) + RELU6", s});
  s = ExpansionSpec{};
  s.h = 131, s.w = 129, s.stride = 2, s.project = 24, s.project_act = Activation::kRelu6, s.project_bias = false;
  cases.push_back({"stride 2, odd sizes, 24 outputs (a partial panel), RELU6, no bias", s});
  s = ExpansionSpec{};
  s.hard_swish_after = true, s.project = 40;
  cases.push_back({"HARD_SWISH between the depthwise and the projection", s});
  s = ExpansionSpec{};
  s.expansion = false, s.cin = s.cexp = 32, s.h = 70, s.w = 66, s.dilation = 2, s.multiplier = 2, s.project = 8;
  s.padding = writer::Padding::kValid;
  cases.push_back({"no expansion, dilation 2, multiplier 2, VALID, 8 outputs", s});
  s = ExpansionSpec{};
  s.float16_weights = true, s.project = 16, s.project_add = true;
  cases.push_back({"float16 weights: the projection's DEQUANTIZE nodes move before the depthwise", s});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const ExpansionBuilt b = BuildExpansion(c.spec);
    std::vector<int> fused = {b.project};
    for (int node : {b.conv, b.relu, b.swish, b.add}) {
      if (node >= 0) fused.push_back(node);
    }
    const std::vector<bool> run = ExpectSameAsUnfused(b.bytes, fused, 1, kExpansionRtol, kExpansionThreads);
    ASSERT_GT(run.size(), static_cast<size_t>(b.dw));
    EXPECT_FALSE(run[static_cast<size_t>(b.dw)]);  // the depthwise node runs them all
  }
}

TEST(PointwiseProjectionFusion, BatchesMatchTheUnfusedGraph) {
  // Three images: a thread's run of rows crosses from one image to the next.
  for (bool expansion : {true, false}) {
    SCOPED_TRACE(expansion ? "with the expansion" : "without the expansion");
    ExpansionSpec s;
    s.expansion = expansion;
    if (!expansion) s.cin = 64;
    s.project = s.cin, s.project_add = true;
    const ExpansionBuilt b = BuildExpansion(s);
    // (The ADD stays its own node: the pass saw the operand's declared batch of 1.)
    ExpectSameAsUnfused(b.bytes, {b.project}, /*batch=*/3, kExpansionRtol, kExpansionThreads);
  }
}

TEST(PointwiseProjectionFusion, AFilterWhoseFoldedShapeDisagreesIsAnErrorNamingTheNode) {
  // The pass sees the declared [16,1,1,64] filter; its DEQUANTIZE folds to
  // the float16 constant's real [16,1,1,65]. The depthwise kernel, which now
  // runs the projection, must refuse it at AllocateTensors.
  ModelWriter m;
  const int x = m.AddTensor(DataType::kFloat32, {1, 96, 96, 64}, "x");
  const int dw_filter = m.AddConstantOf<float>({1, 3, 3, 64}, "dw_filter", Random(9 * 64, 22));
  const int d = m.AddTensor(DataType::kFloat32, {1, 96, 96, 64}, "dw");
  const int dw = m.AddOp(BuiltinOp::kDepthwiseConv2D, {x, dw_filter}, {d}, writer::DepthwiseConv2DOptions{});
  const int half = m.AddFloat16Constant({16, 1, 1, 65}, "project_filter_fp16", Random(16 * 65, 21));
  const int filter = m.AddTensor(DataType::kFloat32, {16, 1, 1, 64}, "project_filter");
  m.AddOp(BuiltinOp::kDequantize, {half}, {filter});
  const int out = m.AddTensor(DataType::kFloat32, {1, 96, 96, 16}, "projected");
  const int project = m.AddOp(BuiltinOp::kConv2D, {d, filter}, {out}, writer::Conv2DOptions{});
  m.SetInputs({x});
  m.SetOutputs({out});
  ExpectAllocateRefusedBy(Finished(m), dw, "fused 1x1 convolution's filter must be [Cout,1,1,64], got [16,1,1,65]",
                          project);
}

TEST(PointwiseProjectionFusion, NotFusedWhereTheRowsCannotBeMultipliedInPlace) {
  struct NotFused {
    const char* what;
    ExpansionSpec spec;
  };
  std::vector<NotFused> cases;
  ExpansionSpec s;
  s.project = 16, s.depthwise_is_output = true;
  cases.push_back({"the depthwise output is also a graph output", s});
  s = ExpansionSpec{};
  s.project = 16, s.project_add = true, s.add_operand_after = true;
  cases.push_back({"the ADD's operand is computed after the depthwise", s});
  s = ExpansionSpec{};
  s.project = 16, s.h = s.w = 28;
  cases.push_back({"a small map (28x28x64: 196 KiB stays in L2)", s});
  s = ExpansionSpec{};
  s.project = 16, s.kernel = 5, s.expansion = false, s.cin = 64;  // (an expansion would take the 5x5 row path)
  cases.push_back({"a 5x5 window", s});
  s = ExpansionSpec{};
  s.project = 4;
  cases.push_back({"four outputs (CONV_2D's dot-product kernel)", s});
  for (const NotFused& c : cases) {
    SCOPED_TRACE(c.what);
    const ExpansionBuilt b = BuildExpansion(c.spec);
    // (An expansion is still fused: its tiles may round differently.)
    const std::vector<bool> fused = ExpectSameAsUnfused(b.bytes, {}, 1, kExpansionRtol, {2});
    ASSERT_GT(fused.size(), static_cast<size_t>(b.project));
    EXPECT_FALSE(fused[static_cast<size_t>(b.project)]);
  }
  {
    // The operand computed between the two: the ADD still joins the
    // projection's own kernel.
    ExpansionSpec later;
    later.project = 16, later.project_add = true, later.add_operand_after = true;
    const ExpansionBuilt b = BuildExpansion(later);
    const RunResult run = Invoke(b.bytes, /*preserve=*/false, 2);
    EXPECT_TRUE(run.fused[static_cast<size_t>(b.add)]);
  }
}

}  // namespace
}  // namespace relite
