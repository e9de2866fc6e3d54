// relite zoo: every architecture is written by the CLI, passes the verifier,
// runs on the CPU interpreter with finite, non-constant outputs; a few layers
// are recomputed with the naive reference ops from the weights in the file;
// the SSD anchors are checked against hand-computed values.
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "relite/relite.h"
#include "tests/testing/reference/conv_reference.h"
#include "tests/tools/cli_test_util.h"
#include "tflite_generated.h"

namespace relite {
namespace {

namespace ref = relite::testing::reference;
using cli_testing::RunCli;
using cli_testing::TempDir;

struct ZooRun {
  std::unique_ptr<Model> model;
  BuiltinOpResolver resolver;
  std::unique_ptr<Interpreter> interp;
  std::map<std::string, int> by_name;

  const Tensor& Named(const std::string& name) {
    auto it = by_name.find(name);
    EXPECT_NE(it, by_name.end()) << name;
    return *interp->tensor(it == by_name.end() ? 0 : it->second);
  }
  std::vector<float> Floats(const std::string& name) {
    const Tensor& t = Named(name);
    const float* p = static_cast<const float*>(t.data);
    return std::vector<float>(p, p + NumElements(t.shape));
  }
};

// Deterministic input in [-1, 1] (what a normalised image looks like).
void FillInput(Tensor* t) {
  float* p = static_cast<float*>(t->data);
  uint32_t s = 12345;
  for (int64_t i = 0; i < NumElements(t->shape); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) / 8388608.0f - 1.0f;
  }
}

void WriteAndRun(const std::string& name, const std::string& path, ZooRun* r, const std::string& weights = "float32") {
  auto res = RunCli({"zoo", name, "--out", path, "--seed", "7", "--weights", weights});
  ASSERT_EQ(res.exit_code, 0) << res.err;
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  r->model = std::move(*model);
  auto interp = InterpreterBuilder(*r->model, r->resolver).SetNumThreads(2).SetPreserveAllTensors(true).Build();
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  r->interp = std::move(*interp);
  ASSERT_TRUE(r->interp->AllocateTensors().ok());
  for (int i = 0; i < r->interp->tensors_size(); ++i) r->by_name[r->interp->tensor(i)->name] = i;
  ASSERT_EQ(r->interp->num_inputs(), 1);
  ASSERT_EQ(r->interp->input_tensor(0)->type, DataType::kFloat32);
  FillInput(r->interp->input_tensor(0));
  const Status s = r->interp->Invoke();
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// Every float output finite; `nonconstant` ones vary.
void ExpectSane(Interpreter& interp, int output, bool nonconstant = true) {
  const Tensor* t = interp.output_tensor(output);
  ASSERT_EQ(t->type, DataType::kFloat32);
  const float* p = static_cast<const float*>(t->data);
  const int64_t n = NumElements(t->shape);
  float lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(std::isfinite(p[i])) << "output " << output << " element " << i;
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  if (nonconstant) {
    EXPECT_GT(hi - lo, 1e-6f) << "output " << output << " is constant " << lo;
  }
}

std::map<std::string, int> OpCounts(const Model& m) {
  std::map<std::string, int> counts;
  const auto* fb = m.fb();
  for (const auto* op : *fb->subgraphs()->Get(0)->operators()) {
    const auto* c = fb->operator_codes()->Get(op->opcode_index());
    counts[c->custom_code() ? c->custom_code()->str() : tflite::EnumNameBuiltinOperator(c->builtin_code())]++;
  }
  return counts;
}

Shape OutShape(Interpreter& i, int k) { return i.output_tensor(k)->shape; }

TEST(ZooTest, MobileNetV1MatchesReferenceLayers) {
  TempDir tmp;
  ZooRun r;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("mobilenet_v1", tmp / "m.tflite", &r));
  EXPECT_EQ(OutShape(*r.interp, 0), (Shape{1, 1001}));
  ExpectSane(*r.interp, 0);
  auto counts = OpCounts(*r.model);
  EXPECT_EQ(counts["CONV_2D"], 15);
  EXPECT_EQ(counts["DEPTHWISE_CONV_2D"], 13);
  EXPECT_EQ(counts["SOFTMAX"], 1);

  // Conv2d_0: 3x3 stride 2 SAME (TFLite pads 0 before, 1 after), RELU6.
  ref::ConvGeometry g;
  g.in_h = g.in_w = 224;
  g.in_c = 3;
  g.out_h = g.out_w = 112;
  g.out_c = 32;
  g.filter_h = g.filter_w = 3;
  g.stride_h = g.stride_w = 2;
  const auto x = r.Floats("input");
  const auto conv0 = ref::Conv2D(g, x, r.Floats("MobilenetV1/Conv2d_0/weights"), r.Floats("MobilenetV1/Conv2d_0/bias"),
                                 0.0f, 6.0f);
  const auto got0 = r.Floats("MobilenetV1/Conv2d_0");
  ASSERT_EQ(got0.size(), conv0.size());
  int clamped = 0;
  for (size_t i = 0; i < conv0.size(); ++i) {
    ASSERT_NEAR(got0[i], conv0[i], 1e-4) << i;
    clamped += conv0[i] == 0.0f;
  }
  EXPECT_GT(clamped, 0);
  EXPECT_LT(clamped, static_cast<int>(conv0.size()));
  // Conv2d_1_depthwise: 3x3 stride 1 SAME on the layer above.
  ref::ConvGeometry d;
  d.in_h = d.in_w = d.out_h = d.out_w = 112;
  d.in_c = d.out_c = 32;
  d.filter_h = d.filter_w = 3;
  d.pad_top = d.pad_left = 1;
  const auto dw1 = ref::DepthwiseConv2D(d, conv0, r.Floats("MobilenetV1/Conv2d_1_depthwise/depthwise_weights"),
                                        r.Floats("MobilenetV1/Conv2d_1_depthwise/bias"), 0.0f, 6.0f);
  const auto got1 = r.Floats("MobilenetV1/Conv2d_1_depthwise");
  for (size_t i = 0; i < dw1.size(); ++i) ASSERT_NEAR(got1[i], dw1[i], 1e-4) << i;
  // The softmax is the softmax of the logits.
  const auto logits = r.Floats("MobilenetV1/Logits/Reshape");
  const auto probs = r.Floats("MobilenetV1/Logits/Predictions");
  double sum = 0, mx = *std::max_element(logits.begin(), logits.end());
  for (float l : logits) sum += std::exp(l - mx);
  for (size_t i = 0; i < logits.size(); i += 97) EXPECT_NEAR(probs[i], std::exp(logits[i] - mx) / sum, 1e-6);
}

TEST(ZooTest, MobileNetV2) {
  TempDir tmp;
  ZooRun r;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("mobilenet_v2", tmp / "m.tflite", &r));
  EXPECT_EQ(OutShape(*r.interp, 0), (Shape{1, 1001}));
  ExpectSane(*r.interp, 0);
  auto counts = OpCounts(*r.model);  // the published model's op pattern
  EXPECT_EQ(counts["CONV_2D"], 36);
  EXPECT_EQ(counts["DEPTHWISE_CONV_2D"], 17);
  EXPECT_EQ(counts["ADD"], 10);
}

TEST(ZooTest, DeepLabV3) {
  TempDir tmp;
  ZooRun r;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("deeplab_v3", tmp / "m.tflite", &r));
  EXPECT_EQ(OutShape(*r.interp, 0), (Shape{1, 257, 257, 21}));
  ExpectSane(*r.interp, 0);
  auto counts = OpCounts(*r.model);
  EXPECT_EQ(counts["RESIZE_BILINEAR"], 2);
  EXPECT_EQ(counts["CONCATENATION"], 1);
  // Output stride 16 with dilated depthwise convs after it (version 2).
  const auto* fb = r.model->fb();
  bool dilated = false;
  for (const auto* c : *fb->operator_codes()) {
    if (c->builtin_code() == tflite::BuiltinOperator::DEPTHWISE_CONV_2D && c->version() == 2) dilated = true;
  }
  EXPECT_TRUE(dilated);
  // Image pooling = the mean of the 17x17x320 feature map.
  const auto& feat = r.Named("MobilenetV2/expanded_conv_16/project");
  ASSERT_EQ(feat.shape, (Shape{1, 17, 17, 320}));
  const auto f = r.Floats("MobilenetV2/expanded_conv_16/project");
  const auto pooled = r.Floats("AvgPool2D");
  for (int c = 0; c < 320; c += 37) {
    double s = 0;
    for (int p = 0; p < 289; ++p) s += f[static_cast<size_t>(p) * 320 + c];
    EXPECT_NEAR(pooled[c], s / 289.0, 1e-4) << c;
  }
  // Bilinear upsampling with align_corners keeps the corner logits.
  const auto logits = r.Floats("logits/semantic");
  const float* out = static_cast<const float*>(r.interp->output_tensor(0)->data);
  for (int c = 0; c < 21; ++c) {
    EXPECT_NEAR(out[c], logits[c], 1e-5);
    EXPECT_NEAR(out[(257 * 257 - 1) * 21 + c], logits[(17 * 17 - 1) * 21 + c], 1e-5);
  }
}

TEST(ZooTest, SsdMobileNetV1) {
  TempDir tmp;
  ZooRun r;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("ssd_mobilenet_v1", tmp / "m.tflite", &r));
  ASSERT_EQ(r.interp->num_outputs(), 4);
  EXPECT_EQ(OutShape(*r.interp, 0), (Shape{1, 10, 4}));
  for (int k = 0; k < 4; ++k) ExpectSane(*r.interp, k, false);
  const float count = r.interp->typed_output<float>(3)[0];
  EXPECT_GT(count, 0.0f);
  EXPECT_LE(count, 10.0f);
  const auto scores = r.Floats("raw_outputs/class_predictions");
  ASSERT_EQ(scores.size(), 1917u * 91u);
  EXPECT_GT(*std::max_element(scores.begin(), scores.end()) - *std::min_element(scores.begin(), scores.end()), 1e-3);
  // Anchors, by hand: [yc, xc, h, w]; first layer 19x19 with 3 anchors
  // (0.1 at ratio 1, 0.2 at ratios 2 and 1/2), last layer 1x1 with 6.
  const auto a = r.Floats("anchors");
  ASSERT_EQ(a.size(), 1917u * 4u);
  const float c0 = 0.5f / 19.0f;
  const std::vector<float> first = {c0, c0, 0.1f, 0.1f, c0, c0, 0.2f / std::sqrt(2.0f), 0.2f * std::sqrt(2.0f),
                                    c0, c0, 0.2f * std::sqrt(2.0f), 0.2f / std::sqrt(2.0f)};
  for (size_t i = 0; i < first.size(); ++i) EXPECT_NEAR(a[i], first[i], 1e-6) << i;
  // Anchor 3 is cell (0, 1) of the first layer.
  EXPECT_NEAR(a[12 + 1], 1.5f / 19.0f, 1e-6);
  // Last layer (1x1, scale 0.95): ratios 1, 2, 1/2, 3, 1/3, then sqrt(0.95 * 1.0) at ratio 1.
  const size_t last = (1917 - 6) * 4;
  EXPECT_NEAR(a[last + 0], 0.5f, 1e-6);
  EXPECT_NEAR(a[last + 2], 0.95f, 1e-6);
  EXPECT_NEAR(a[last + 4 * 3 + 2], 0.95f / std::sqrt(3.0f), 1e-6);
  EXPECT_NEAR(a[last + 4 * 5 + 2], std::sqrt(0.95f), 1e-6);
  EXPECT_NEAR(a[last + 4 * 5 + 3], std::sqrt(0.95f), 1e-6);
  EXPECT_EQ(OpCounts(*r.model)["TFLite_Detection_PostProcess"], 1);
}

TEST(ZooTest, PoseNet) {
  TempDir tmp;
  ZooRun r;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("posenet", tmp / "m.tflite", &r));
  ASSERT_EQ(r.interp->num_outputs(), 4);
  const int channels[4] = {17, 34, 32, 32};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(OutShape(*r.interp, k), (Shape{1, 17, 17, channels[k]}));
    ExpectSane(*r.interp, k);
  }
}

TEST(ZooTest, InceptionV3) {
  TempDir tmp;
  ZooRun r;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("inception_v3", tmp / "m.tflite", &r));
  EXPECT_EQ(OutShape(*r.interp, 0), (Shape{1, 1001}));
  ExpectSane(*r.interp, 0);
  EXPECT_EQ(r.Named("InceptionV3/Mixed_7c/concat").shape, (Shape{1, 8, 8, 2048}));
  EXPECT_EQ(r.Named("InceptionV3/Mixed_6e/concat").shape, (Shape{1, 17, 17, 768}));
  EXPECT_EQ(OpCounts(*r.model)["CONV_2D"], 95);
}

TEST(ZooTest, Float16WeightsAndDeterminism) {
  TempDir tmp;
  ZooRun f32, f16;
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("mobilenet_v1", tmp / "a.tflite", &f32));
  ASSERT_NO_FATAL_FAILURE(WriteAndRun("mobilenet_v1", tmp / "b.tflite", &f16, "float16"));
  // float16 weights, each dequantized by a version-3 DEQUANTIZE: half the file.
  EXPECT_LT(f16.model->size(), f32.model->size() * 6 / 10);
  for (const auto* c : *f16.model->fb()->operator_codes()) {
    if (c->builtin_code() == tflite::BuiltinOperator::DEQUANTIZE) {
      EXPECT_EQ(c->version(), 3);
    }
  }
  EXPECT_EQ(OpCounts(*f16.model)["DEQUANTIZE"], 2 * 28);
  // Same weights up to float16 rounding: the same predictions, nearly.
  const float* a = f32.interp->typed_output<float>(0);
  const float* b = f16.interp->typed_output<float>(0);
  for (int i = 0; i < 1001; ++i) EXPECT_NEAR(a[i], b[i], 2e-3) << i;
  // The same seed writes the same bytes; another seed, other weights.
  ASSERT_EQ(RunCli({"zoo", "mobilenet_v1", "--out", tmp / "c.tflite", "--seed", "7"}).exit_code, 0);
  ASSERT_EQ(RunCli({"zoo", "mobilenet_v1", "--out", tmp / "d.tflite", "--seed", "8"}).exit_code, 0);
  const auto ca = cli_testing::ReadBinaryFile(tmp / "a.tflite");
  EXPECT_EQ(ca, cli_testing::ReadBinaryFile(tmp / "c.tflite"));
  EXPECT_NE(ca, cli_testing::ReadBinaryFile(tmp / "d.tflite"));
}

TEST(ZooTest, Errors) {
  TempDir tmp;
  auto r = RunCli({"zoo", "resnet50", "--out", tmp / "x.tflite"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no model named 'resnet50'"), std::string::npos) << r.err;
  r = RunCli({"zoo", "posenet", "--out", tmp / "x.tflite", "--weights", "int8"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--weights must be float32 or float16"), std::string::npos) << r.err;
  r = RunCli({"zoo", "posenet", "--out", tmp / "no-such-dir/x.tflite"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
  r = RunCli({"zoo", "--list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("ssd_mobilenet_v1"), std::string::npos);
}

}  // namespace
}  // namespace relite
