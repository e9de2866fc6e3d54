// PosenetDecoderOp on synthetic fields with known answers: planted
// keypoints are recovered (float and uint8 inputs), two separated people are
// both found in score order, the NMS radius merges them, the score
// threshold drops a weak person, and bad options/shapes are errors.
//
// The fields are built so that decoding is exact: for a person P, the short
// offset of keypoint k at cell c points from c to P's keypoint k, and the
// mid-range displacement of an edge a->b at cell c points from c to P's
// keypoint b. Both are affine in c, so bilinear sampling at any point p
// inside P's region gives exactly (target - p): following them lands on the
// target. Each keypoint's heatmap logit is L on the 2x2 cells around it.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flatbuffers/flexbuffers.h"
#include "relite/relite.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;

constexpr int kK = 17;
constexpr int kStride = 8;
constexpr int kH = 24;
constexpr int kW = 32;

// The 16 skeleton edges in mid-range channel order (parent, child).
constexpr int kEdges[16][2] = {{0, 1}, {1, 3}, {0, 2}, {2, 4}, {0, 5}, {5, 7}, {7, 9}, {5, 11},
                               {11, 13}, {13, 15}, {0, 6}, {6, 8}, {8, 10}, {6, 12}, {12, 14}, {14, 16}};

struct Pt {
  float y, x;
};

// A stick figure in grid units, top-left cell (r, c); keypoints sit at
// quarter/half-cell positions so every value below is exact in binary.
std::vector<Pt> Figure(float r, float c) {
  const float dy[kK] = {0, -1, -1, 0, 0, 3, 3, 6, 6, 9, 9, 10, 10, 14, 14, 18, 18};
  const float dx[kK] = {3, 2, 4, 1, 5, 1, 5, 0, 6, 0, 6, 2, 4, 2, 4, 2, 4};
  std::vector<Pt> p(kK);
  for (int k = 0; k < kK; ++k) p[static_cast<size_t>(k)] = {r + dy[k] + 0.25f, c + dx[k] + 0.5f};
  return p;
}

struct Person {
  std::vector<Pt> kp;
  float logit;
  int col_begin, col_end;  // the grid columns whose fields point to this person
};

struct Fields {
  std::vector<float> heat, shorts, mids;  // pixels for offsets
};

Fields MakeFields(const std::vector<Person>& people) {
  Fields f;
  f.heat.assign(static_cast<size_t>(kH * kW * kK), -8.0f);
  f.shorts.assign(static_cast<size_t>(kH * kW * 2 * kK), 0.0f);
  f.mids.assign(static_cast<size_t>(kH * kW * 64), 0.0f);
  for (const Person& p : people) {
    for (int k = 0; k < kK; ++k) {
      const Pt t = p.kp[static_cast<size_t>(k)];
      const int y0 = static_cast<int>(std::floor(t.y)), x0 = static_cast<int>(std::floor(t.x));
      for (int y = y0; y <= y0 + 1; ++y) {
        for (int x = x0; x <= x0 + 1; ++x) f.heat[static_cast<size_t>((y * kW + x) * kK + k)] = p.logit;
      }
    }
    for (int y = 0; y < kH; ++y) {
      for (int x = p.col_begin; x < p.col_end; ++x) {
        const size_t cell = static_cast<size_t>(y * kW + x);
        for (int k = 0; k < kK; ++k) {
          f.shorts[cell * 2 * kK + static_cast<size_t>(k)] = (p.kp[static_cast<size_t>(k)].y - static_cast<float>(y)) * kStride;
          f.shorts[cell * 2 * kK + kK + static_cast<size_t>(k)] = (p.kp[static_cast<size_t>(k)].x - static_cast<float>(x)) * kStride;
        }
        for (int e = 0; e < 16; ++e) {
          const Pt fwd = p.kp[static_cast<size_t>(kEdges[e][1])], bwd = p.kp[static_cast<size_t>(kEdges[e][0])];
          f.mids[cell * 64 + static_cast<size_t>(e)] = (fwd.y - static_cast<float>(y)) * kStride;
          f.mids[cell * 64 + 16 + static_cast<size_t>(e)] = (fwd.x - static_cast<float>(x)) * kStride;
          f.mids[cell * 64 + 32 + static_cast<size_t>(e)] = (bwd.y - static_cast<float>(y)) * kStride;
          f.mids[cell * 64 + 48 + static_cast<size_t>(e)] = (bwd.x - static_cast<float>(x)) * kStride;
        }
      }
    }
  }
  return f;
}

struct Opts {
  int max_detections = 5;
  float score_threshold = 0.5f;
  int stride = kStride;
  float nms_radius = 20.0f;
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
    fb.Float("score_threshold", o.score_threshold);
    fb.Int("stride", o.stride);
    fb.Float("nms_radius", o.nms_radius);
  });
}

struct Result {
  std::vector<float> points, kp_scores, scores;
  int count = -1;
  Shape points_shape;
};

Status RunDecoder(const Fields& f, const std::vector<uint8_t>& options, Result* r) {
  SingleOpModel m;
  const int h = m.AddInput(DataType::kFloat32, {1, kH, kW, kK});
  const int s = m.AddInput(DataType::kFloat32, {1, kH, kW, 2 * kK});
  const int d = m.AddInput(DataType::kFloat32, {1, kH, kW, 64});
  const int o0 = m.AddOutput(DataType::kFloat32), o1 = m.AddOutput(DataType::kFloat32);
  const int o2 = m.AddOutput(DataType::kFloat32), o3 = m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("PosenetDecoderOp", options);
  RELITE_RETURN_IF_ERROR(m.Build());
  m.SetInput(h, f.heat);
  m.SetInput(s, f.shorts);
  m.SetInput(d, f.mids);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  r->points = m.GetOutput<float>(o0);
  r->kp_scores = m.GetOutput<float>(o1);
  r->scores = m.GetOutput<float>(o2);
  r->count = static_cast<int>(m.GetOutput<float>(o3).at(0));
  r->points_shape = m.GetOutputShape(o0);
  return Status::Ok();
}

void ExpectPose(const Result& r, int pose, const std::vector<Pt>& kp, float logit) {
  const float sig = 1.0f / (1.0f + std::exp(-logit));
  for (int k = 0; k < kK; ++k) {
    SCOPED_TRACE("pose " + std::to_string(pose) + " keypoint " + std::to_string(k));
    const size_t i = static_cast<size_t>(pose * kK + k);
    EXPECT_NEAR(r.points.at(i * 2), kp[static_cast<size_t>(k)].y * kStride, 1e-3);
    EXPECT_NEAR(r.points.at(i * 2 + 1), kp[static_cast<size_t>(k)].x * kStride, 1e-3);
    EXPECT_NEAR(r.kp_scores.at(i), sig, 1e-5);
  }
  EXPECT_NEAR(r.scores.at(static_cast<size_t>(pose)), sig, 1e-5);
}

TEST(PosenetDecoder, SinglePersonDecodesToPlantedKeypoints) {
  const Person a{Figure(2, 3), 4.0f, 0, kW};
  Result r;
  ASSERT_TRUE(RunDecoder(MakeFields({a}), Flex(Opts{}), &r).ok());
  EXPECT_EQ(r.points_shape, (Shape{1, 5, kK, 2}));
  ASSERT_EQ(r.count, 1);
  ExpectPose(r, 0, a.kp, 4.0f);
  // Unused rows are zero.
  for (size_t i = kK * 2; i < r.points.size(); ++i) ASSERT_EQ(r.points[i], 0.0f);
  for (size_t i = 1; i < r.scores.size(); ++i) EXPECT_EQ(r.scores[i], 0.0f);
}

TEST(PosenetDecoder, TwoSeparatedPeopleInScoreOrder) {
  // B (weaker, logit 2) left, A (logit 4) right: output A first.
  const Person b{Figure(3, 1), 2.0f, 0, 14};
  const Person a{Figure(1, 20), 4.0f, 14, kW};
  Result r;
  ASSERT_TRUE(RunDecoder(MakeFields({b, a}), Flex(Opts{}), &r).ok());
  ASSERT_EQ(r.count, 2);
  ExpectPose(r, 0, a.kp, 4.0f);
  ExpectPose(r, 1, b.kp, 2.0f);
}

TEST(PosenetDecoder, NmsRadiusSuppressesRootsNearFoundPoses) {
  // The same figures 19 cells (152 px) apart horizontally and 2 cells
  // (16 px) vertically: corresponding keypoints are sqrt(152^2 + 16^2) =
  // 152.84 px apart. A radius below that keeps both people; above, B's roots
  // all fall within the radius of A's keypoints and B is never decoded.
  const Person a{Figure(1, 20), 4.0f, 14, kW};
  const Person b{Figure(3, 1), 2.0f, 0, 14};
  const Fields f = MakeFields({a, b});
  Opts o;
  Result r;
  o.nms_radius = 152.0f;
  ASSERT_TRUE(RunDecoder(f, Flex(o), &r).ok());
  EXPECT_EQ(r.count, 2);
  o.nms_radius = 153.0f;
  ASSERT_TRUE(RunDecoder(f, Flex(o), &r).ok());
  EXPECT_EQ(r.count, 1);
  ExpectPose(r, 0, a.kp, 4.0f);
}

TEST(PosenetDecoder, ScoreThresholdAndMaxDetections) {
  const Person b{Figure(3, 1), 2.0f, 0, 14};  // sigmoid(2) = 0.881
  const Person a{Figure(1, 20), 4.0f, 14, kW};  // sigmoid(4) = 0.982
  const Fields f = MakeFields({b, a});
  Opts o;
  Result r;
  o.score_threshold = 0.9f;
  ASSERT_TRUE(RunDecoder(f, Flex(o), &r).ok());
  ASSERT_EQ(r.count, 1);
  ExpectPose(r, 0, a.kp, 4.0f);
  o.score_threshold = 0.5f;
  o.max_detections = 1;
  ASSERT_TRUE(RunDecoder(f, Flex(o), &r).ok());
  EXPECT_EQ(r.points_shape, (Shape{1, 1, kK, 2}));
  ASSERT_EQ(r.count, 1);
  ExpectPose(r, 0, a.kp, 4.0f);
  // Nothing above the threshold.
  o.score_threshold = 0.99f;
  o.max_detections = 3;
  ASSERT_TRUE(RunDecoder(f, Flex(o), &r).ok());
  EXPECT_EQ(r.count, 0);
  EXPECT_EQ(r.scores, std::vector<float>(3, 0.0f));
}

TEST(PosenetDecoder, Uint8InputsMatchFloat) {
  // Logits 4/2/-8 are exact with scale 0.25, zero point 128; offsets are
  // multiples of 2 px within +-250 px, exact with scale 2, zero point 128.
  const Person b{Figure(3, 1), 2.0f, 0, 14};
  const Person a{Figure(1, 20), 4.0f, 14, kW};
  const Fields f = MakeFields({b, a});
  auto quantize = [](const std::vector<float>& v, float scale, int zp) {
    std::vector<uint8_t> q;
    for (float x : v) {
      const float t = x / scale + static_cast<float>(zp);
      EXPECT_EQ(t, std::round(t));
      EXPECT_TRUE(t >= 0 && t <= 255);
      q.push_back(static_cast<uint8_t>(t));
    }
    return q;
  };
  Quantization qh, qo;
  qh.scale = {0.25f};
  qh.zero_point = {128};
  qo.scale = {2.0f};
  qo.zero_point = {128};
  SingleOpModel m;
  const int h = m.AddInput(DataType::kUInt8, {1, kH, kW, kK}, qh);
  const int s = m.AddInput(DataType::kUInt8, {1, kH, kW, 2 * kK}, qo);
  const int d = m.AddInput(DataType::kUInt8, {1, kH, kW, 64}, qo);
  const int o0 = m.AddOutput(DataType::kFloat32), o1 = m.AddOutput(DataType::kFloat32);
  const int o2 = m.AddOutput(DataType::kFloat32), o3 = m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("PosenetDecoderOp", Flex(Opts{}));
  ASSERT_TRUE(m.Build().ok());
  m.SetInput(h, quantize(f.heat, 0.25f, 128));
  m.SetInput(s, quantize(f.shorts, 2.0f, 128));
  m.SetInput(d, quantize(f.mids, 2.0f, 128));
  ASSERT_TRUE(m.Invoke().ok());
  Result r;
  ASSERT_TRUE(RunDecoder(f, Flex(Opts{}), &r).ok());
  ASSERT_EQ(r.count, 2);
  EXPECT_EQ(m.GetOutput<float>(o0), r.points);
  EXPECT_EQ(m.GetOutput<float>(o1), r.kp_scores);
  EXPECT_EQ(m.GetOutput<float>(o2), r.scores);
  EXPECT_EQ(m.GetOutput<float>(o3), std::vector<float>{2.0f});
}

// --- errors -----------------------------------------------------------------

Status BuildWith(const std::vector<uint8_t>& options, const Shape& heat = {1, kH, kW, kK},
                 const Shape& shorts = {1, kH, kW, 2 * kK}, const Shape& mids = {1, kH, kW, 64},
                 int extra_inputs = 0) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, heat);
  m.AddInput(DataType::kFloat32, shorts);
  m.AddInput(DataType::kFloat32, mids);
  for (int i = 0; i < extra_inputs; ++i) m.AddInput(DataType::kFloat32, {1, kH, kW, 2 * kK});
  for (int i = 0; i < 4 + extra_inputs; ++i) m.AddOutput(DataType::kFloat32);
  m.SetCustomOp("PosenetDecoderOp", options);
  return m.Build();
}

void ExpectErrorMentions(const Status& s, const std::string& text) {
  ASSERT_FALSE(s.ok()) << "expected an error mentioning " << text;
  EXPECT_NE(s.ToString().find(text), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("PosenetDecoderOp"), std::string::npos) << s.ToString();
}

TEST(PosenetDecoder, OptionErrors) {
  EXPECT_TRUE(BuildWith(Flex(Opts{})).ok());
  ExpectErrorMentions(BuildWith({}), "custom options are missing");
  ExpectErrorMentions(BuildWith(Flex([](flexbuffers::Builder& fb) {
                        fb.Int("max_detections", 3);
                        fb.Float("score_threshold", 0.5f);
                        fb.Float("nms_radius", 10);
                      })),
                      "'stride' is missing");
  auto check = [](const std::function<void(Opts&)>& edit, const std::string& text) {
    Opts o;
    edit(o);
    ExpectErrorMentions(BuildWith(Flex(o)), text);
  };
  check([](Opts& o) { o.stride = 0; }, "stride must be > 0");
  check([](Opts& o) { o.max_detections = -2; }, "max_detections must be in");
  check([](Opts& o) { o.score_threshold = 1.0f; }, "score_threshold must be in [0, 1)");
  check([](Opts& o) { o.nms_radius = -1.0f; }, "nms_radius must be >= 0");
}

TEST(PosenetDecoder, ShapeErrors) {
  const auto o = Flex(Opts{});
  ExpectErrorMentions(BuildWith(o, {1, kH, kW, 16}), "heatmaps must be [1, H, W, 17]");
  ExpectErrorMentions(BuildWith(o, {2, kH, kW, kK}), "heatmaps must be [1, H, W, 17]");
  ExpectErrorMentions(BuildWith(o, {1, kH, kW, kK}, {1, kH, kW + 1, 2 * kK}), "short offsets must be");
  ExpectErrorMentions(BuildWith(o, {1, kH, kW, kK}, {1, kH, kW, 2 * kK}, {1, kH, kW, 32}), "mid offsets must be");
  const Status masks = BuildWith(o, {1, kH, kW, kK}, {1, kH, kW, 2 * kK}, {1, kH, kW, 64}, 1);
  ExpectErrorMentions(masks, "instance masks");
}

}  // namespace
}  // namespace relite
