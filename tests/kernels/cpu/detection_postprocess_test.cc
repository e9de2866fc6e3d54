// TFLite_Detection_PostProcess: box decoding arithmetic, NMS suppression and
// ordering (fast and regular), score/IoU threshold semantics, quantized
// inputs, truncation, empty results, option and shape errors, and a small
// SSD-style model (LOGISTIC feeding the op, constant boxes and anchors).
// Expected values are worked out by hand in the comments. (Random cases were
// also compared bit for bit with LiteRT 2.3's kernel while writing this.)
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flatbuffers/flexbuffers.h"
#include "relite/relite.h"
#include "tests/testing/graph_builder.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;

struct Opts {
  int max_detections = 3;
  int max_classes_per_detection = 1;
  int detections_per_class = 100;
  bool use_regular_nms = false;
  float score_threshold = 0.0f;
  float iou_threshold = 0.5f;
  int num_classes = 2;
  float y_scale = 10, x_scale = 10, h_scale = 5, w_scale = 5;
};

std::vector<uint8_t> Flex(const std::function<void(flexbuffers::Builder&)>& body) {
  flexbuffers::Builder fb;
  fb.Map([&] { body(fb); });
  fb.Finish();
  return fb.GetBuffer();
}

std::vector<uint8_t> Flex(const Opts& o) {
  return Flex([&](flexbuffers::Builder& fb) {
    fb.Int("max_detections", o.max_detections);
    fb.Int("max_classes_per_detection", o.max_classes_per_detection);
    fb.Int("detections_per_class", o.detections_per_class);
    fb.Bool("use_regular_nms", o.use_regular_nms);
    fb.Float("nms_score_threshold", o.score_threshold);
    fb.Float("nms_iou_threshold", o.iou_threshold);
    fb.Int("num_classes", o.num_classes);
    fb.Float("y_scale", o.y_scale);
    fb.Float("x_scale", o.x_scale);
    fb.Float("h_scale", o.h_scale);
    fb.Float("w_scale", o.w_scale);
  });
}

struct Result {
  std::vector<float> boxes, classes, scores;
  int count = -1;
  Shape boxes_shape;
};

// Float inputs: encodings [1,N,enc_width], scores [1,N,C], anchors [N,4].
struct Case {
  std::vector<float> encodings, scores, anchors;
  int num_anchors = 0;
  int columns = 0;
  int enc_width = 4;
};

Status RunFloat(const Case& c, const std::vector<uint8_t>& options, Result* r) {
  SingleOpModel m;
  const int in_b = m.AddInput(DataType::kFloat32, {1, c.num_anchors, c.enc_width});
  const int in_s = m.AddInput(DataType::kFloat32, {1, c.num_anchors, c.columns});
  const int in_a = m.AddInput(DataType::kFloat32, {c.num_anchors, 4});
  const int o0 = m.AddOutput(DataType::kFloat32), o1 = m.AddOutput(DataType::kFloat32);
  const int o2 = m.AddOutput(DataType::kFloat32), o3 = m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("TFLite_Detection_PostProcess", options);
  RELITE_RETURN_IF_ERROR(m.Build());
  m.SetInput(in_b, c.encodings);
  m.SetInput(in_s, c.scores);
  m.SetInput(in_a, c.anchors);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  r->boxes = m.GetOutput<float>(o0);
  r->classes = m.GetOutput<float>(o1);
  r->scores = m.GetOutput<float>(o2);
  r->count = static_cast<int>(m.GetOutput<float>(o3).at(0));
  r->boxes_shape = m.GetOutputShape(o0);
  return Status::Ok();
}

// Six unit-height boxes given as anchors (zero encodings decode to the
// anchor box itself): a0 [0,0,1,1], a1 shifted right by 0.1, a2 left by 0.1,
// a3 at x 10, a4 at x 10.1, a5 at x 100. IoU(a0,a1) = IoU(a0,a2) =
// IoU(a3,a4) = 0.9/1.1 = 0.818; IoU(a1,a2) = 0.8/1.2 = 0.667; other pairs 0.
// Scores (background, class 0, class 1).
Case SixBoxes() {
  Case c;
  c.num_anchors = 6;
  c.columns = 3;
  c.encodings.assign(6 * 4, 0.0f);
  c.anchors = {0.5f, 0.5f, 1, 1, 0.5f, 0.6f, 1, 1, 0.5f, 0.4f, 1, 1,
               0.5f, 10.5f, 1, 1, 0.5f, 10.6f, 1, 1, 0.5f, 100.5f, 1, 1};
  c.scores = {0, 0.9f, 0.8f, 0, 0.75f, 0.72f, 0, 0.6f, 0.5f, 0, 0.93f, 0.95f, 0, 0.5f, 0.4f, 0, 0.3f, 0.2f};
  return c;
}

void ExpectBox(const Result& r, int row, float ymin, float xmin, float ymax, float xmax) {
  SCOPED_TRACE("row " + std::to_string(row));
  const size_t i = static_cast<size_t>(row) * 4;
  EXPECT_NEAR(r.boxes.at(i), ymin, 1e-5);
  EXPECT_NEAR(r.boxes.at(i + 1), xmin, 1e-5);
  EXPECT_NEAR(r.boxes.at(i + 2), ymax, 1e-5);
  EXPECT_NEAR(r.boxes.at(i + 3), xmax, 1e-5);
}

TEST(DetectionPostProcess, DecodesCenterSizeEncoding) {
  // Anchor (yc 0.5, xc 0.25, h 2, w 0.5); encoding (1, -2, 0, 5 ln 2) with
  // scales y=x=10, h=w=5:
  //   yc = 1/10*2 + 0.5 = 0.7     xc = -2/10*0.5 + 0.25 = 0.15
  //   hh = 0.5*exp(0)*2 = 1       hw = 0.5*exp(ln 2)*0.5 = 0.5
  //   box = (-0.3, -0.35, 1.7, 0.65)
  // A fifth encoding column (keypoints in some models) is ignored.
  Case c;
  c.num_anchors = 1;
  c.columns = 2;
  c.enc_width = 5;
  c.encodings = {1.0f, -2.0f, 0.0f, 5.0f * std::log(2.0f), 123.0f};
  c.anchors = {0.5f, 0.25f, 2.0f, 0.5f};
  c.scores = {0.0f, 0.7f};
  Opts o;
  o.num_classes = 1;
  o.max_detections = 2;
  Result r;
  ASSERT_TRUE(RunFloat(c, Flex(o), &r).ok());
  EXPECT_EQ(r.boxes_shape, (Shape{1, 2, 4}));
  ASSERT_EQ(r.count, 1);
  ExpectBox(r, 0, -0.3f, -0.35f, 1.7f, 0.65f);
  EXPECT_EQ(r.classes[0], 0.0f);
  EXPECT_FLOAT_EQ(r.scores[0], 0.7f);
  // The unused row is zero.
  EXPECT_EQ(r.scores[1], 0.0f);
  ExpectBox(r, 1, 0, 0, 0, 0);
}

TEST(DetectionPostProcess, DecodingMatchesDoubleFormulaOnRandomInputs) {
  const int n = 50;
  Case c;
  c.num_anchors = n;
  c.columns = 2;
  uint32_t state = 12345;
  auto rnd = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1 << 24);
  };
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 4; ++k) c.encodings.push_back(rnd() * 4 - 2);
    c.anchors.insert(c.anchors.end(), {rnd(), rnd(), 0.05f + rnd(), 0.05f + rnd()});
    // Distinct, decreasing scores and far-apart boxes are not needed: keep
    // every box by making them all class 0 with IoU threshold 1.
    c.scores.insert(c.scores.end(), {0.0f, 1.0f - static_cast<float>(i) / n});
  }
  Opts o;
  o.num_classes = 1;
  o.max_detections = n;
  o.iou_threshold = 1.0f;
  o.y_scale = 10;
  o.x_scale = 8;
  o.h_scale = 5;
  o.w_scale = 4;
  Result r;
  ASSERT_TRUE(RunFloat(c, Flex(o), &r).ok());
  ASSERT_EQ(r.count, n);
  for (int i = 0; i < n; ++i) {
    const float* e = &c.encodings[static_cast<size_t>(i) * 4];
    const float* a = &c.anchors[static_cast<size_t>(i) * 4];
    const float yc = static_cast<float>(double{e[0]} / 10.0 * a[2] + a[0]);
    const float xc = static_cast<float>(double{e[1]} / 8.0 * a[3] + a[1]);
    const float hh = static_cast<float>(0.5 * std::exp(double{e[2]} / 5.0) * a[2]);
    const float hw = static_cast<float>(0.5 * std::exp(double{e[3]} / 4.0) * a[3]);
    SCOPED_TRACE("anchor " + std::to_string(i));
    // Scores decrease with i, so row i is anchor i.
    EXPECT_EQ(r.boxes[static_cast<size_t>(i) * 4 + 0], yc - hh);
    EXPECT_EQ(r.boxes[static_cast<size_t>(i) * 4 + 1], xc - hw);
    EXPECT_EQ(r.boxes[static_cast<size_t>(i) * 4 + 2], yc + hh);
    EXPECT_EQ(r.boxes[static_cast<size_t>(i) * 4 + 3], xc + hw);
  }
}

TEST(DetectionPostProcess, FastNmsSuppressesAndOrders) {
  // Max class score per anchor: a0 .9 (c0), a1 .75, a2 .6, a3 .95 (c1),
  // a4 .5, a5 .3. In order: a3 kept; a0 kept; a1, a2 overlap a0 (0.818 >
  // 0.5); a4 overlaps a3; a5 kept.
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(Opts{}), &r).ok());
  EXPECT_EQ(r.boxes_shape, (Shape{1, 3, 4}));
  ASSERT_EQ(r.count, 3);
  ExpectBox(r, 0, 0, 10, 1, 11);
  ExpectBox(r, 1, 0, 0, 1, 1);
  ExpectBox(r, 2, 0, 100, 1, 101);
  EXPECT_EQ(r.classes, (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f, 0.9f, 0.3f}));
}

TEST(DetectionPostProcess, FastNmsEmitsSeveralClassesPerBox) {
  // max_classes_per_detection 2: each selected anchor gives rows 2k, 2k+1
  // with its two best classes; num_detections counts anchors.
  Opts o;
  o.max_classes_per_detection = 2;
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  EXPECT_EQ(r.boxes_shape, (Shape{1, 6, 4}));
  ASSERT_EQ(r.count, 3);
  EXPECT_EQ(r.classes, (std::vector<float>{1, 0, 0, 1, 0, 1}));
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f, 0.93f, 0.9f, 0.8f, 0.3f, 0.2f}));
  ExpectBox(r, 1, 0, 10, 1, 11);
  ExpectBox(r, 3, 0, 0, 1, 1);
  ExpectBox(r, 5, 0, 100, 1, 101);
}

TEST(DetectionPostProcess, FastNmsMoreClassesPerBoxThanClassesLeavesZeroRows) {
  // max_classes_per_detection 3 > num_classes 2: rows 3k+2 stay zero.
  Opts o;
  o.max_classes_per_detection = 3;
  o.max_detections = 1;
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  ASSERT_EQ(r.count, 1);
  EXPECT_EQ(r.classes, (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f, 0.93f, 0.0f}));
  ExpectBox(r, 2, 0, 0, 0, 0);
}

TEST(DetectionPostProcess, RegularNmsPerClassThenTopOverall) {
  // Class 0: a3 .93, a0 .9, (a1, a2 suppressed by a0; a4 by a3), a5 .3.
  // Class 1: a3 .95, a0 .8, a5 .2. Top 3 overall: a3/c1, a3/c0, a0/c0.
  Opts o;
  o.use_regular_nms = true;
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  ASSERT_EQ(r.count, 3);
  EXPECT_EQ(r.classes, (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f, 0.93f, 0.9f}));
  ExpectBox(r, 0, 0, 10, 1, 11);
  ExpectBox(r, 1, 0, 10, 1, 11);
  ExpectBox(r, 2, 0, 0, 1, 1);
}

TEST(DetectionPostProcess, RegularNmsDetectionsPerClassLimit) {
  // One detection per class: c0 -> a3 .93, c1 -> a3 .95; six slots, two used.
  Opts o;
  o.use_regular_nms = true;
  o.detections_per_class = 1;
  o.max_detections = 6;
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  ASSERT_EQ(r.count, 2);
  EXPECT_EQ(r.classes[0], 1.0f);
  EXPECT_EQ(r.classes[1], 0.0f);
  EXPECT_EQ(r.scores[0], 0.95f);
  EXPECT_EQ(r.scores[1], 0.93f);
  for (int row = 2; row < 6; ++row) EXPECT_EQ(r.scores[static_cast<size_t>(row)], 0.0f);
}

TEST(DetectionPostProcess, RegularNmsTiesKeepClassThenAnchorOrder) {
  // Three far-apart boxes, every score 0.5: the merge is stable, so class 0's
  // detections (anchor order) come before class 1's.
  Case c;
  c.num_anchors = 3;
  c.columns = 3;
  c.encodings.assign(12, 0.0f);
  c.anchors = {0.5f, 0.5f, 1, 1, 0.5f, 5.5f, 1, 1, 0.5f, 9.5f, 1, 1};
  c.scores.assign(9, 0.5f);
  Opts o;
  o.use_regular_nms = true;
  o.max_detections = 4;
  Result r;
  ASSERT_TRUE(RunFloat(c, Flex(o), &r).ok());
  ASSERT_EQ(r.count, 4);
  EXPECT_EQ(r.classes, (std::vector<float>{0, 0, 0, 1}));
  ExpectBox(r, 0, 0, 0, 1, 1);
  ExpectBox(r, 1, 0, 5, 1, 6);
  ExpectBox(r, 2, 0, 9, 1, 10);
  ExpectBox(r, 3, 0, 0, 1, 1);
}

TEST(DetectionPostProcess, EqualScoresKeepAnchorOrder) {
  // Fast NMS, two far-apart boxes with the same score: lower anchor first.
  Case c;
  c.num_anchors = 2;
  c.columns = 2;
  c.encodings.assign(8, 0.0f);
  c.anchors = {0.5f, 5.5f, 1, 1, 0.5f, 0.5f, 1, 1};
  c.scores = {0, 0.6f, 0, 0.6f};
  Opts o;
  o.num_classes = 1;
  Result r;
  ASSERT_TRUE(RunFloat(c, Flex(o), &r).ok());
  ASSERT_EQ(r.count, 2);
  ExpectBox(r, 0, 0, 5, 1, 6);
  ExpectBox(r, 1, 0, 0, 1, 1);
}

TEST(DetectionPostProcess, ScoreThresholdIsInclusive) {
  // score >= threshold is kept: 0.3 == 0.3 keeps a5; 0.30001 drops it.
  Opts o;
  o.score_threshold = 0.3f;
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  EXPECT_EQ(r.count, 3);
  o.score_threshold = 0.30001f;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f, 0.9f, 0.0f}));
}

TEST(DetectionPostProcess, IouThresholdSuppressesOnlyAbove) {
  // Boxes [0,0,1,1] and [0,0,1,0.5]: IoU exactly 0.5 (all values exact in
  // binary). Threshold 0.5 keeps both (IoU > threshold suppresses); 0.49
  // suppresses the second.
  Case c;
  c.num_anchors = 2;
  c.columns = 2;
  c.encodings.assign(8, 0.0f);
  c.anchors = {0.5f, 0.5f, 1, 1, 0.5f, 0.25f, 1, 0.5f};
  c.scores = {0, 0.9f, 0, 0.8f};
  Opts o;
  o.num_classes = 1;
  Result r;
  ASSERT_TRUE(RunFloat(c, Flex(o), &r).ok());
  EXPECT_EQ(r.count, 2);
  o.iou_threshold = 0.49f;
  ASSERT_TRUE(RunFloat(c, Flex(o), &r).ok());
  EXPECT_EQ(r.count, 1);
}

TEST(DetectionPostProcess, MaxDetectionsTruncates) {
  Opts o;
  o.max_detections = 1;
  Result r;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  EXPECT_EQ(r.boxes_shape, (Shape{1, 1, 4}));
  ASSERT_EQ(r.count, 1);
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f}));
  o.use_regular_nms = true;
  ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
  ASSERT_EQ(r.count, 1);
  EXPECT_EQ(r.classes, (std::vector<float>{1}));
}

TEST(DetectionPostProcess, NothingAboveThresholdGivesEmptyResult) {
  for (bool regular : {false, true}) {
    Opts o;
    o.use_regular_nms = regular;
    o.score_threshold = 0.99f;
    Result r;
    ASSERT_TRUE(RunFloat(SixBoxes(), Flex(o), &r).ok());
    EXPECT_EQ(r.count, 0);
    EXPECT_EQ(r.scores, (std::vector<float>{0, 0, 0}));
    EXPECT_EQ(r.boxes, std::vector<float>(12, 0.0f));
  }
}

TEST(DetectionPostProcess, NoBackgroundColumn) {
  // num_classes == columns: class indices are the columns themselves.
  Case c = SixBoxes();
  std::vector<float> no_bg;
  for (int i = 0; i < 6; ++i) no_bg.insert(no_bg.end(), {c.scores[static_cast<size_t>(i) * 3 + 1], c.scores[static_cast<size_t>(i) * 3 + 2]});
  c.scores = no_bg;
  c.columns = 2;
  Result r;
  ASSERT_TRUE(RunFloat(c, Flex(Opts{}), &r).ok());
  ASSERT_EQ(r.count, 3);
  EXPECT_EQ(r.classes, (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(r.scores, (std::vector<float>{0.95f, 0.9f, 0.3f}));
}

// The SixBoxes case with 8-bit inputs equals the float case run on the
// dequantized values, bit for bit.
template <typename Q>
void CheckQuantizedMatchesDequantized(DataType type, int zp_shift, bool regular) {
  const Case f = SixBoxes();
  // Encodings: scale 0.05, zero point 128 (+shift); small non-zero values.
  // Scores: scale 1/256, zero point 0 (+shift). Anchors: scale 0.5, zero point 0 (+shift)
  // scaled x2 so they are representable: (ycenter, xcenter, h, w) in halves.
  const std::vector<int> enc_q = {130, 126, 128, 129, 128, 128, 128, 128, 120, 131, 127, 128,
                                  128, 128, 125, 128, 129, 129, 129, 129, 128, 128, 128, 128};
  const std::vector<int> anc_q = {1, 1, 2, 2, 1, 2, 2, 2, 1, 0, 2, 2, 1, 21, 2, 2, 1, 22, 2, 2, 1, 201, 2, 2};
  std::vector<int> score_q(f.scores.size());
  for (size_t i = 0; i < f.scores.size(); ++i) score_q[i] = static_cast<int>(std::lround(f.scores[i] * 255));
  Quantization qe, qs, qa;
  qe.scale = {0.05f};
  qe.zero_point = {128 + zp_shift};
  qs.scale = {1.0f / 256};
  qs.zero_point = {zp_shift};
  qa.scale = {0.5f};
  qa.zero_point = {zp_shift};
  auto to_q = [&](const std::vector<int>& v) {
    std::vector<Q> out;
    for (int x : v) out.push_back(static_cast<Q>(x + zp_shift));
    return out;
  };
  auto deq = [](const std::vector<int>& v, float scale, int zp) {
    std::vector<float> out;
    for (int x : v) out.push_back((static_cast<float>(x) - static_cast<float>(zp)) * scale);
    return out;
  };
  Opts o;
  o.use_regular_nms = regular;
  o.max_classes_per_detection = 2;
  o.score_threshold = 0.25f;

  SingleOpModel m;
  const int in_b = m.AddInput(type, {1, 6, 4}, qe);
  const int in_s = m.AddInput(type, {1, 6, 3}, qs);
  const int in_a = m.AddInput(type, {6, 4}, qa);
  const int o0 = m.AddOutput(DataType::kFloat32), o1 = m.AddOutput(DataType::kFloat32);
  const int o2 = m.AddOutput(DataType::kFloat32), o3 = m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("TFLite_Detection_PostProcess", Flex(o));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput(in_b, to_q(enc_q));
  m.SetInput(in_s, to_q(score_q));
  m.SetInput(in_a, to_q(anc_q));
  ASSERT_TRUE(m.Invoke().ok());

  Case d;
  d.num_anchors = 6;
  d.columns = 3;
  d.encodings = deq(enc_q, 0.05f, 128);
  d.scores = deq(score_q, 1.0f / 256, 0);
  d.anchors = deq(anc_q, 0.5f, 0);
  Result r;
  ASSERT_TRUE(RunFloat(d, Flex(o), &r).ok());
  EXPECT_GT(r.count, 1);
  EXPECT_EQ(m.GetOutput<float>(o0), r.boxes);
  EXPECT_EQ(m.GetOutput<float>(o1), r.classes);
  EXPECT_EQ(m.GetOutput<float>(o2), r.scores);
  EXPECT_EQ(m.GetOutput<float>(o3), std::vector<float>{static_cast<float>(r.count)});
}

TEST(DetectionPostProcess, Uint8InputsMatchDequantizedFloat) {
  CheckQuantizedMatchesDequantized<uint8_t>(DataType::kUInt8, 0, false);
  CheckQuantizedMatchesDequantized<uint8_t>(DataType::kUInt8, 0, true);
}

TEST(DetectionPostProcess, Int8InputsMatchDequantizedFloat) {
  CheckQuantizedMatchesDequantized<int8_t>(DataType::kInt8, -128, false);
  CheckQuantizedMatchesDequantized<int8_t>(DataType::kInt8, -128, true);
}

// --- errors -----------------------------------------------------------------

Status BuildWith(const std::vector<uint8_t>& options, const Shape& boxes = {1, 6, 4},
                 const Shape& scores = {1, 6, 3}, const Shape& anchors = {6, 4},
                 DataType score_type = DataType::kFloat32) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, boxes);
  m.AddInput(score_type, scores);
  m.AddInput(DataType::kFloat32, anchors);
  for (int i = 0; i < 4; ++i) m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("TFLite_Detection_PostProcess", options);
  return m.Build();
}

void ExpectErrorMentions(const Status& s, const std::string& text) {
  ASSERT_FALSE(s.ok()) << "expected an error mentioning " << text;
  EXPECT_NE(s.ToString().find(text), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("TFLite_Detection_PostProcess"), std::string::npos) << s.ToString();
}

TEST(DetectionPostProcess, ValidOptionsBuild) { EXPECT_TRUE(BuildWith(Flex(Opts{})).ok()); }

TEST(DetectionPostProcess, MissingOrMalformedOptionsAreErrors) {
  ExpectErrorMentions(BuildWith({}), "custom options are missing");
  ExpectErrorMentions(BuildWith({1, 2}), "not a FlexBuffer");
  // A FlexBuffer whose root is an int, not a map.
  flexbuffers::Builder fb;
  fb.Int(7);
  fb.Finish();
  ExpectErrorMentions(BuildWith(fb.GetBuffer()), "not a map");
  // Every truncation of a valid buffer is rejected without a crash.
  const std::vector<uint8_t> good = Flex(Opts{});
  for (size_t cut = 1; cut < good.size(); ++cut) {
    const std::vector<uint8_t> part(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_FALSE(BuildWith(part).ok()) << "cut at " << cut;
  }
  // Flipping any one byte either still parses or gives an error: no crash.
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x5a;
    (void)BuildWith(bad);
  }
}

TEST(DetectionPostProcess, MissingOrMistypedKeysAreErrors) {
  ExpectErrorMentions(BuildWith(Flex([](flexbuffers::Builder& fb) {
                        fb.Int("max_detections", 3);
                        fb.Int("max_classes_per_detection", 1);
                        fb.Float("nms_score_threshold", 0);
                        fb.Float("nms_iou_threshold", 0.5f);
                        fb.Float("y_scale", 10);
                        fb.Float("x_scale", 10);
                        fb.Float("h_scale", 5);
                        fb.Float("w_scale", 5);
                      })),
                      "'num_classes' is missing");
  Opts o;
  auto with = [&](const std::function<void(flexbuffers::Builder&)>& patch) {
    return Flex([&](flexbuffers::Builder& fb) {
      patch(fb);
      fb.Int("max_classes_per_detection", o.max_classes_per_detection);
      fb.Float("nms_score_threshold", o.score_threshold);
      fb.Float("nms_iou_threshold", o.iou_threshold);
      fb.Int("num_classes", o.num_classes);
      fb.Float("y_scale", 10);
      fb.Float("x_scale", 10);
      fb.Float("h_scale", 5);
      fb.Float("w_scale", 5);
    });
  };
  ExpectErrorMentions(BuildWith(with([](flexbuffers::Builder& fb) { fb.String("max_detections", "3"); })),
                      "'max_detections' must be an integer");
  ExpectErrorMentions(BuildWith(with([](flexbuffers::Builder& fb) { fb.Float("max_detections", 2.5f); })),
                      "'max_detections' must be an integer");
  ExpectErrorMentions(BuildWith(with([](flexbuffers::Builder& fb) { fb.Int("max_detections", int64_t{1} << 40); })),
                      "out of range");
  // An integral float is accepted for an int option.
  EXPECT_TRUE(BuildWith(with([](flexbuffers::Builder& fb) { fb.Float("max_detections", 3.0f); })).ok());
}

TEST(DetectionPostProcess, InvalidOptionValuesAreErrors) {
  auto check = [](const std::function<void(Opts&)>& edit, const std::string& text) {
    Opts o;
    edit(o);
    ExpectErrorMentions(BuildWith(Flex(o)), text);
  };
  check([](Opts& o) { o.max_detections = -1; }, "max_detections must be >= 0");
  check([](Opts& o) { o.max_classes_per_detection = 0; }, "max_classes_per_detection must be > 0");
  check([](Opts& o) { o.num_classes = 0; }, "num_classes must be > 0");
  check([](Opts& o) { o.iou_threshold = 0; }, "nms_iou_threshold must be in (0, 1]");
  check([](Opts& o) { o.iou_threshold = 1.5f; }, "nms_iou_threshold must be in (0, 1]");
  check([](Opts& o) { o.h_scale = 0; }, "must be non-zero");
  check(
      [](Opts& o) {
        o.use_regular_nms = true;
        o.detections_per_class = 0;
      },
      "detections_per_class must be > 0");
  check([](Opts& o) { o.max_detections = 1 << 20; o.max_classes_per_detection = 4; }, "too large");
}

TEST(DetectionPostProcess, WrongShapesAndTypesAreErrors) {
  const auto o = Flex(Opts{});
  ExpectErrorMentions(BuildWith(o, {6, 4}), "box encodings must be [1, num_anchors, >=4]");
  ExpectErrorMentions(BuildWith(o, {1, 6, 3}), "box encodings must be [1, num_anchors, >=4]");
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 5, 3}), "class predictions must be [1, 6");
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 6, 4}), "4 columns for num_classes 2");
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 6, 1}), "1 columns for num_classes 2");
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 6, 3}, {6, 3}), "anchors must be [6, 4]");
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 6, 3}, {5, 4}), "anchors must be [6, 4]");
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 6, 3}, {6, 4}, DataType::kInt32), "expected float32, uint8 or int8");
  // An 8-bit input without quantization parameters.
  ExpectErrorMentions(BuildWith(o, {1, 6, 4}, {1, 6, 3}, {6, 4}, DataType::kUInt8), "quantization scale");
}

TEST(DetectionPostProcess, InvertedDecodedBoxIsAnInvokeError) {
  // A negative anchor height decodes to ymin > ymax.
  Case c = SixBoxes();
  c.anchors[2] = -1.0f;
  Result r;
  const Status s = RunFloat(c, Flex(Opts{}), &r);
  ExpectErrorMentions(s, "decoded box 0 has ymin > ymax");
}

// --- an SSD-style model -----------------------------------------------------

TEST(DetectionPostProcess, SsdStyleModelEndToEnd) {
  // Graph input: class logits [1,6,3] -> LOGISTIC -> postprocess, with the
  // box encodings and anchors as constants, like an SSD tail.
  const Case c = SixBoxes();
  std::vector<float> logits;
  for (float p : c.scores) logits.push_back(p <= 0 ? -20.0f : std::log(p / (1 - p)));
  testing::GraphBuilder g;
  const int t_logits = g.AddTensor(DataType::kFloat32, {1, 6, 3}, 0, "logits");
  const int t_scores = g.AddTensor(DataType::kFloat32, {1, 6, 3}, 0, "scores");
  const int t_boxes = g.AddTensor(DataType::kFloat32, {1, 6, 4}, g.AddBufferOf(c.encodings), "box_encodings");
  const int t_anchors = g.AddTensor(DataType::kFloat32, {6, 4}, g.AddBufferOf(c.anchors), "anchors");
  const int o_boxes = g.AddTensor(DataType::kFloat32, {}, 0, "detection_boxes");
  const int o_classes = g.AddTensor(DataType::kFloat32, {}, 0, "detection_classes");
  const int o_scores = g.AddTensor(DataType::kFloat32, {}, 0, "detection_scores");
  const int o_count = g.AddTensor(DataType::kFloat32, {}, 0, "num_detections");
  const int logistic = g.AddOpCode(static_cast<int32_t>(tflite::BuiltinOperator::LOGISTIC));
  const int post = g.AddOpCode(32, "TFLite_Detection_PostProcess");
  g.AddOp(logistic, {t_logits}, {t_scores});
  g.AddOp(post, {t_boxes, t_scores, t_anchors}, {o_boxes, o_classes, o_scores, o_count}, Flex(Opts{}));
  g.SetInputs({t_logits});
  g.SetOutputs({o_boxes, o_classes, o_scores, o_count});
  const std::vector<uint8_t> bytes = g.Finish();

  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  BuiltinOpResolver resolver;
  auto interpreter = InterpreterBuilder(**model, resolver).Build();
  ASSERT_TRUE(interpreter.ok()) << interpreter.status().ToString();
  ASSERT_TRUE((*interpreter)->AllocateTensors().ok());
  std::copy(logits.begin(), logits.end(), (*interpreter)->typed_input<float>(0));
  ASSERT_TRUE((*interpreter)->Invoke().ok());
  const float* classes = (*interpreter)->typed_output<float>(1);
  const float* scores = (*interpreter)->typed_output<float>(2);
  const float* boxes = (*interpreter)->typed_output<float>(0);
  EXPECT_EQ((*interpreter)->typed_output<float>(3)[0], 3.0f);
  EXPECT_EQ(classes[0], 1.0f);
  EXPECT_EQ(classes[1], 0.0f);
  EXPECT_EQ(classes[2], 0.0f);
  EXPECT_NEAR(scores[0], 0.95f, 1e-5);
  EXPECT_NEAR(scores[1], 0.9f, 1e-5);
  EXPECT_NEAR(scores[2], 0.3f, 1e-5);
  EXPECT_NEAR(boxes[1], 10.0f, 1e-5);  // a3's xmin
  EXPECT_NEAR(boxes[9], 100.0f, 1e-5);  // a5's xmin
}

}  // namespace
}  // namespace relite
