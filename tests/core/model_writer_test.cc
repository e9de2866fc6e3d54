// ModelWriter: small multi-op models written in memory, loaded through the
// verifier, run on the CPU interpreter and compared with the naive reference
// ops; the format facts TFLite relies on; the errors Finish() reports.
#include "relite/model_writer.h"

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "relite/relite.h"
#include "tests/testing/reference/conv_reference.h"
#include "tests/testing/reference/elementwise_reference.h"
#include "tflite_generated.h"

namespace relite {
namespace {

namespace ref = relite::testing::reference;
using namespace relite::writer;  // NOLINT

std::vector<float> Random(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct Loaded {
  std::unique_ptr<Model> model;
  BuiltinOpResolver resolver;
  std::unique_ptr<Interpreter> interp;
};

void Load(const ModelWriter& w, Loaded* out) {
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size(), "written");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  out->model = std::move(*model);
  auto interp = InterpreterBuilder(*out->model, out->resolver).SetNumThreads(1).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  out->interp = std::move(*interp);
  ASSERT_TRUE(out->interp->AllocateTensors().ok());
}

// conv 3x3 (2->4, RELU6, SAME) -> depthwise 3x3 stride 2 -> ADD constant ->
// mean over H,W -> FC (4->3) -> softmax, all float32.
struct SmallNet {
  std::vector<float> conv_w = Random(4 * 3 * 3 * 2, 1), conv_b = Random(4, 2);
  std::vector<float> dw_w = Random(3 * 3 * 4, 3), dw_b = Random(4, 4);
  std::vector<float> add_c = Random(4, 5);
  std::vector<float> fc_w = Random(3 * 4, 6), fc_b = Random(3, 7);

  void Write(ModelWriter* w, bool float16) const {
    auto constant = [&](const Shape& s, const std::string& name, const std::vector<float>& v) {
      if (!float16) return w->AddConstantOf<float>(s, name, v);
      const int h = w->AddFloat16Constant(s, name + "_fp16", v);
      const int f = w->AddTensor(DataType::kFloat32, s, name);
      w->AddOp(BuiltinOp::kDequantize, {h}, {f});
      return f;
    };
    const int in = w->AddTensor(DataType::kFloat32, {1, 6, 6, 2}, "input");
    const int cw = constant({4, 3, 3, 2}, "conv/w", conv_w), cb = constant({4}, "conv/b", conv_b);
    const int dw = constant({1, 3, 3, 4}, "dw/w", dw_w), db = constant({4}, "dw/b", dw_b);
    const int ac = constant({4}, "add/c", add_c);
    const int fw = constant({3, 4}, "fc/w", fc_w), fb = constant({3}, "fc/b", fc_b);
    const int axes = w->AddConstantOf<int32_t>({2}, "mean/axes", {1, 2});
    const int c1 = w->AddTensor(DataType::kFloat32, {1, 6, 6, 4}, "conv");
    const int d1 = w->AddTensor(DataType::kFloat32, {1, 3, 3, 4}, "dw");
    const int a1 = w->AddTensor(DataType::kFloat32, {1, 3, 3, 4}, "add");
    const int m1 = w->AddTensor(DataType::kFloat32, {1, 4}, "mean");
    const int f1 = w->AddTensor(DataType::kFloat32, {1, 3}, "fc");
    const int out = w->AddTensor(DataType::kFloat32, {1, 3}, "softmax");
    w->AddOp(BuiltinOp::kConv2D, {in, cw, cb}, {c1}, Conv2DOptions{Padding::kSame, 1, 1, Activation::kRelu6});
    w->AddOp(BuiltinOp::kDepthwiseConv2D, {c1, dw, db}, {d1},
             DepthwiseConv2DOptions{Padding::kSame, 2, 2, 1, Activation::kNone});
    w->AddOp(BuiltinOp::kAdd, {d1, ac}, {a1}, ArithmeticOptions{Activation::kRelu});
    w->AddOp(BuiltinOp::kMean, {a1, axes}, {m1}, ReducerOptions{false});
    w->AddOp(BuiltinOp::kFullyConnected, {m1, fw, fb}, {f1}, FullyConnectedOptions{});
    w->AddOp(BuiltinOp::kSoftmax, {f1}, {out}, SoftmaxOptions{1.0f});
    w->SetInputs({in});
    w->SetOutputs({out, c1});
  }

  // Reference with the given (possibly float16-rounded) weights.
  std::vector<float> Reference(const std::vector<float>& x, bool float16, std::vector<float>* conv_out) const {
    auto r = [&](std::vector<float> v) {
      if (float16)
        for (auto& f : v) f = static_cast<float>(ref::HalfToDouble(ref::DoubleToHalf(f)));
      return v;
    };
    ref::ConvGeometry g;
    g.in_h = g.in_w = 6;
    g.in_c = 2;
    g.out_h = g.out_w = 6;
    g.out_c = 4;
    g.filter_h = g.filter_w = 3;
    g.pad_top = g.pad_left = 1;
    *conv_out = ref::Conv2D(g, x, r(conv_w), r(conv_b), 0.0f, 6.0f);
    ref::ConvGeometry d = g;
    d.in_c = 4;
    d.out_h = d.out_w = 3;
    d.stride_h = d.stride_w = 2;
    ref::SamePadding(true, 6, 3, 2, 1, &d.out_h, &d.pad_top);
    d.pad_left = d.pad_top;
    d.out_w = d.out_h;
    auto dw = ref::DepthwiseConv2D(d, *conv_out, r(dw_w), r(dw_b), -INFINITY, INFINITY);
    std::vector<float> mean(4, 0.0f);
    const auto ac = r(add_c);
    for (size_t i = 0; i < dw.size(); ++i) mean[i % 4] += std::max(0.0f, dw[i] + ac[i % 4]) / 9.0f;
    auto fc = ref::FullyConnected(1, 4, 3, mean, r(fc_w), r(fc_b), -INFINITY, INFINITY);
    float mx = *std::max_element(fc.begin(), fc.end()), sum = 0;
    for (auto& v : fc) sum += (v = std::exp(v - mx));
    for (auto& v : fc) v /= sum;
    return fc;
  }
};


TEST(ModelWriterTest, FloatMultiOpModelMatchesReference) {
  SmallNet net;
  ModelWriter w;
  net.Write(&w, false);
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(Load(w, &l));
  const auto x = Random(72, 9, -2.0f, 2.0f);
  std::memcpy(l.interp->typed_input<float>(0), x.data(), x.size() * sizeof(float));
  ASSERT_TRUE(l.interp->Invoke().ok());
  std::vector<float> conv;
  const auto want = net.Reference(x, false, &conv);
  const float* got = l.interp->typed_output<float>(0);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  const float* got_conv = l.interp->typed_output<float>(1);
  for (size_t i = 0; i < conv.size(); ++i) EXPECT_NEAR(got_conv[i], conv[i], 1e-5) << i;
  // Not a degenerate case: the softmax is not uniform, RELU6 clamps something.
  EXPECT_GT(std::fabs(want[0] - want[1]) + std::fabs(want[1] - want[2]), 1e-3);
  EXPECT_NE(std::count(conv.begin(), conv.end(), 0.0f), 0);
}

TEST(ModelWriterTest, Float16WeightsWithDequantize) {
  SmallNet net;
  ModelWriter w;
  net.Write(&w, true);
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(Load(w, &l));
  const auto x = Random(72, 10, -2.0f, 2.0f);
  std::memcpy(l.interp->typed_input<float>(0), x.data(), x.size() * sizeof(float));
  ASSERT_TRUE(l.interp->Invoke().ok());
  std::vector<float> conv;
  const auto want = net.Reference(x, true, &conv);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(l.interp->typed_output<float>(0)[i], want[i], 1e-5) << i;
  // The float16 DEQUANTIZE is version 3, the float convs version 1.
  const tflite::Model* fb = l.model->fb();
  bool saw_dequantize = false;
  for (const auto* c : *fb->operator_codes()) {
    if (c->builtin_code() == tflite::BuiltinOperator::DEQUANTIZE) {
      EXPECT_EQ(c->version(), 3);
      saw_dequantize = true;
    }
    if (c->builtin_code() == tflite::BuiltinOperator::CONV_2D) {
      EXPECT_EQ(c->version(), 1);
    }
  }
  EXPECT_TRUE(saw_dequantize);
}

TEST(ModelWriterTest, FormatFacts) {
  SmallNet net;
  ModelWriter w("facts");
  net.Write(&w, false);
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok());
  ASSERT_GE(bytes->size(), 8u);
  EXPECT_EQ(std::memcmp(bytes->data() + 4, "TFL3", 4), 0);
  const tflite::Model* fb = tflite::GetModel(bytes->data());
  EXPECT_EQ(fb->version(), 3u);
  ASSERT_EQ(fb->subgraphs()->size(), 1u);
  const auto* sg = fb->subgraphs()->Get(0);
  EXPECT_EQ(sg->name()->str(), "main");
  // Buffer 0 is empty; every constant has its own 16-byte aligned buffer;
  // activations use buffer 0; no shape_signature.
  ASSERT_TRUE(fb->buffers()->Get(0)->data() == nullptr || fb->buffers()->Get(0)->data()->size() == 0);
  std::vector<int> uses(fb->buffers()->size(), 0);
  for (const auto* t : *sg->tensors()) {
    EXPECT_EQ(t->shape_signature(), nullptr);
    if (t->buffer() == 0) continue;
    EXPECT_EQ(++uses[t->buffer()], 1) << t->name()->str();
    const auto* data = fb->buffers()->Get(t->buffer())->data();
    ASSERT_NE(data, nullptr);
    EXPECT_EQ((data->data() - bytes->data()) % 16, 0) << t->name()->str();
  }
  EXPECT_EQ(std::count(uses.begin(), uses.end(), 1), static_cast<long>(fb->buffers()->size()) - 1);
  for (const auto* c : *fb->operator_codes()) {
    EXPECT_EQ(static_cast<int>(c->deprecated_builtin_code()), std::min(static_cast<int>(c->builtin_code()), 127));
    EXPECT_EQ(c->version(), 1);  // float ops without dilation
  }
  // Options are written typed.
  const auto* conv = sg->operators()->Get(0);
  ASSERT_EQ(conv->builtin_options_type(), tflite::BuiltinOptions::Conv2DOptions);
  EXPECT_EQ(conv->builtin_options_as_Conv2DOptions()->fused_activation_function(),
            tflite::ActivationFunctionType::RELU6);
}

// int8 per-channel CONV_2D (TFLite's int8 scheme: symmetric per-channel
// weights along dim 0, int32 bias at in_scale * w_scale) is version 3 and
// runs within one quantization step of the float reference.
TEST(ModelWriterTest, Int8PerChannelConv) {
  const int cout = 3;
  const auto xf = Random(1 * 4 * 4 * 2, 11, -1.0f, 1.0f);
  const auto wf = Random(cout * 2, 12, -1.0f, 1.0f);  // 1x1 kernel
  const std::vector<float> bf = {0.1f, -0.2f, 0.3f};
  const float in_scale = 2.0f / 255.0f, out_scale = 4.0f / 255.0f;
  const int64_t in_zp = 0, out_zp = -1;
  std::vector<float> w_scale(cout);
  std::vector<int8_t> wq(wf.size());
  for (int c = 0; c < cout; ++c) {
    w_scale[c] = std::max(std::fabs(wf[c * 2]), std::fabs(wf[c * 2 + 1])) / 127.0f;
    for (int k = 0; k < 2; ++k) wq[c * 2 + k] = static_cast<int8_t>(std::lround(wf[c * 2 + k] / w_scale[c]));
  }
  std::vector<int32_t> bq(cout);
  for (int c = 0; c < cout; ++c) bq[c] = static_cast<int32_t>(std::lround(bf[c] / (in_scale * w_scale[c])));
  ModelWriter w;
  Quantization qin{{in_scale}, {in_zp}, 0}, qout{{out_scale}, {out_zp}, 0};
  Quantization qw{w_scale, std::vector<int64_t>(cout, 0), 0};
  Quantization qb{{}, std::vector<int64_t>(cout, 0), 0};
  for (int c = 0; c < cout; ++c) qb.scale.push_back(in_scale * w_scale[c]);
  const int in = w.AddTensor(DataType::kInt8, {1, 4, 4, 2}, "in", qin);
  const int wt = w.AddConstantOf<int8_t>({cout, 1, 1, 2}, "w", wq, qw);
  const int bt = w.AddConstantOf<int32_t>({cout}, "b", bq, qb);
  const int out = w.AddTensor(DataType::kInt8, {1, 4, 4, cout}, "out", qout);
  w.AddOp(BuiltinOp::kConv2D, {in, wt, bt}, {out}, Conv2DOptions{Padding::kValid, 1, 1, Activation::kNone});
  w.SetInputs({in});
  w.SetOutputs({out});
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(Load(w, &l));
  EXPECT_EQ(l.model->fb()->operator_codes()->Get(0)->version(), 3);
  std::vector<float> xr(xf.size());
  int8_t* x = l.interp->typed_input<int8_t>(0);
  for (size_t i = 0; i < xf.size(); ++i) {
    x[i] = static_cast<int8_t>(std::clamp<long>(std::lround(xf[i] / in_scale) + in_zp, -128, 127));
    xr[i] = (x[i] - in_zp) * in_scale;
  }
  ASSERT_TRUE(l.interp->Invoke().ok());
  const int8_t* y = l.interp->typed_output<int8_t>(0);
  for (int p = 0; p < 16; ++p)
    for (int c = 0; c < cout; ++c) {
      double acc = bq[c] * in_scale * w_scale[c];
      for (int k = 0; k < 2; ++k) acc += xr[p * 2 + k] * wq[c * 2 + k] * w_scale[c];
      const double want = std::clamp(std::round(acc / out_scale) + out_zp, -128.0, 127.0);
      EXPECT_NEAR(y[p * cout + c], want, 1.0) << p << "," << c;
    }
}

TEST(ModelWriterTest, CustomOpAndRawOptions) {
  ModelWriter w;
  const int a = w.AddTensor(DataType::kFloat32, {2, 3}, "a");
  const int b = w.AddTensor(DataType::kFloat32, {2, 3}, "b");
  const int c = w.AddTensor(DataType::kFloat32, {2, 3}, "c");
  w.AddCustomOp("MyOp", {a}, {b}, {1, 2, 3});
  // ADD through the callback form of the options.
  RawOptions raw;
  raw.union_type = static_cast<uint8_t>(tflite::BuiltinOptions::AddOptions);
  raw.build = [](flatbuffers::FlatBufferBuilder& fbb) {
    return tflite::CreateAddOptions(fbb, tflite::ActivationFunctionType::RELU).Union();
  };
  w.AddOp(BuiltinOp::kAdd, {b, b}, {c}, raw);
  w.SetInputs({a});
  w.SetOutputs({c});
  auto bytes = w.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const auto* fb = (*model)->fb();
  ASSERT_EQ(fb->operator_codes()->size(), 2u);
  EXPECT_EQ(fb->operator_codes()->Get(0)->builtin_code(), tflite::BuiltinOperator::CUSTOM);
  EXPECT_EQ(fb->operator_codes()->Get(0)->deprecated_builtin_code(), 32);
  EXPECT_EQ(fb->operator_codes()->Get(0)->custom_code()->str(), "MyOp");
  const auto* op0 = fb->subgraphs()->Get(0)->operators()->Get(0);
  ASSERT_NE(op0->custom_options(), nullptr);
  EXPECT_EQ(std::vector<uint8_t>(op0->custom_options()->begin(), op0->custom_options()->end()),
            (std::vector<uint8_t>{1, 2, 3}));
  const auto* op1 = fb->subgraphs()->Get(0)->operators()->Get(1);
  ASSERT_EQ(op1->builtin_options_type(), tflite::BuiltinOptions::AddOptions);
  EXPECT_EQ(op1->builtin_options_as_AddOptions()->fused_activation_function(), tflite::ActivationFunctionType::RELU);
}

TEST(ModelWriterTest, OperatorCodesAreSharedPerVersion) {
  ModelWriter w;
  const int a = w.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "a");
  const int k = w.AddConstantOf<float>({1, 3, 3, 4}, "k", std::vector<float>(36, 0.1f));
  const int b = w.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "b");
  const int c = w.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "c");
  const int d = w.AddTensor(DataType::kFloat32, {1, 8, 8, 4}, "d");
  w.AddOp(BuiltinOp::kDepthwiseConv2D, {a, k, -1}, {b}, DepthwiseConv2DOptions{});
  w.AddOp(BuiltinOp::kDepthwiseConv2D, {b, k, -1}, {c}, DepthwiseConv2DOptions{});
  DepthwiseConv2DOptions dilated;
  dilated.dilation_w = dilated.dilation_h = 2;
  w.AddOp(BuiltinOp::kDepthwiseConv2D, {c, k, -1}, {d}, dilated);
  w.SetInputs({a});
  w.SetOutputs({d});
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(Load(w, &l));
  const auto* codes = l.model->fb()->operator_codes();
  ASSERT_EQ(codes->size(), 2u);
  EXPECT_EQ(codes->Get(0)->version(), 1);
  EXPECT_EQ(codes->Get(1)->version(), 2);  // dilation
}

TEST(ModelWriterTest, ReducerOptionsOnSum) {
  ModelWriter w;
  const int a = w.AddTensor(DataType::kFloat32, {2, 3}, "a");
  const int axis = w.AddConstantOf<int32_t>({1}, "axis", {1});
  const int b = w.AddTensor(DataType::kFloat32, {2, 1}, "b");
  w.AddOp(BuiltinOp::kSum, {a, axis}, {b}, ReducerOptions{true});
  w.SetInputs({a});
  w.SetOutputs({b});
  Loaded l;
  ASSERT_NO_FATAL_FAILURE(Load(w, &l));
  const float x[6] = {1, 2, 3, 10, 20, 30.5f};
  std::memcpy(l.interp->typed_input<float>(0), x, sizeof(x));
  ASSERT_TRUE(l.interp->Invoke().ok());
  EXPECT_EQ(l.interp->output_tensor(0)->shape, (Shape{2, 1}));
  EXPECT_FLOAT_EQ(l.interp->typed_output<float>(0)[0], 6.0f);
  EXPECT_FLOAT_EQ(l.interp->typed_output<float>(0)[1], 60.5f);
}

void ExpectError(const ModelWriter& w, const std::string& fragment) {
  auto bytes = w.Finish();
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bytes.status().message().find(fragment), std::string::npos) << bytes.status().message();
}

TEST(ModelWriterTest, ErrorsNameTheProblem) {
  {
    ModelWriter w;
    const int a = w.AddTensor(DataType::kFloat32, {2}, "a");
    w.AddOp(BuiltinOp::kRelu, {a}, {7});
    w.SetInputs({a});
    w.SetOutputs({a});
    ExpectError(w, "operator 0 (RELU) outputs: tensor index 7 out of range");
  }
  {
    ModelWriter w;
    const int c = w.AddConstantOf<float>({3}, "short", {1.0f, 2.0f});
    w.SetOutputs({c});
    ExpectError(w, "tensor 0 ('short'): 8 bytes of data for float32 [3] (expected 12)");
  }
  {
    ModelWriter w;
    const int a = w.AddTensor(DataType::kFloat32, {1, 2, 2, 1}, "a");
    const int b = w.AddTensor(DataType::kFloat32, {1, 2, 2, 1}, "b");
    w.AddOp(BuiltinOp::kConv2D, {a, a}, {b});
    w.SetInputs({a});
    w.SetOutputs({b});
    ExpectError(w, "operator 0 (CONV_2D): needs its typed options struct");
  }
  {
    ModelWriter w;
    Quantization q{{0.1f, 0.2f}, {0, 0}, 0};
    const int c = w.AddConstantOf<int8_t>({3, 1}, "w", {1, 2, 3}, q);
    w.SetOutputs({c});
    ExpectError(w, "2 per-channel scales do not match dimension 0 of [3,1]");
  }
  {
    ModelWriter w;
    const int a = w.AddTensor(DataType::kFloat32, {2}, "a");
    w.SetInputs({a});
    ExpectError(w, "no outputs");
  }
  {
    ModelWriter w;
    const int a = w.AddTensor(DataType::kFloat32, {2}, "a");
    const int b = w.AddTensor(DataType::kFloat32, {2}, "b");
    w.AddOp(BuiltinOp::kRelu, {a}, {b});
    w.AddOp(BuiltinOp::kRelu, {a}, {b});
    w.SetInputs({a});
    w.SetOutputs({b});
    ExpectError(w, "operator 1 (RELU): tensor 1 is already written by operator 0");
  }
  {
    ModelWriter w;
    const int a = w.AddTensor(DataType::kFloat32, {2}, "a");
    w.SetOutputs({a});
    EXPECT_EQ(w.WriteFile("/nonexistent-dir/x.tflite").code(), StatusCode::kIoError);
  }
}

}  // namespace
}  // namespace relite
