// PosenetDecoderOp: Google Coral's multi-person pose decoder (PersonLab-style
// greedy decoding, arXiv:1803.08225), written from its documented algorithm.
//
// Inputs (float32, or uint8/int8 dequantized as (q - zero_point) * scale):
//   heatmaps      [1, H, W, 17]  keypoint logits
//   short offsets [1, H, W, 34]  pixels; channels [dy of 17 keypoints][dx of 17]
//   mid offsets   [1, H, W, 64]  pixels; [fwd dy 16 edges][fwd dx][bwd dy][bwd dx]
// Options (FlexBuffer map): max_detections, score_threshold (probability),
// stride (pixels per grid cell), nms_radius (pixels).
// Outputs (float32): keypoints [1, max_detections, 17, 2] as (y, x) pixels,
// keypoint scores [1, max_detections, 17], pose scores [1, max_detections],
// pose count [1]. Rows past the count are zero.
//
// Algorithm (grid units: offsets and the radius are divided by the stride):
// 1. Root candidates: every (cell, keypoint) whose logit is >= logit(threshold)
//    and no cell of its 3x3 window has a larger logit, placed at the cell plus
//    its short offset (clamped to the grid), in a max-heap by logit.
// 2. Pop roots by score; skip a root within nms_radius of the same keypoint of
//    an accepted pose. Decode a pose from it: a max-heap of keypoints by
//    logit (the root's logit resampled bilinearly at its position); pop the
//    best undecoded keypoint, fix it, and push each undecoded neighbour along
//    the 16-edge skeleton (both directions) at: source + mid-range
//    displacement of that edge (sampled bilinearly at the source), then 5
//    steps of + short offset of the target keypoint, clamped to the grid each
//    step; its score is the heatmap sampled there.
// 3. Keypoint scores = sigmoid(logit); pose score = mean of the 17; keep the
//    pose when >= score_threshold (until max_detections poses).
// 4. Order poses by score; rescore each as the sum of its keypoint scores
//    that are not within nms_radius of the same keypoint of a better pose,
//    over 17; reorder and output the poses still >= score_threshold, with
//    coordinates times the stride.
// Ties follow the same standard-library heap and sort calls as the Coral
// decoder. One deliberate difference: Coral indexes the mid-range channels of
// backward edge 16 (left eye -> nose) as if it were a forward edge (an
// off-by-one, `edge_id > kNumEdges`); here every backward edge reads the
// backward block, as the channel layout documents.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/flexbuffer_options.h"
#include "src/kernels/cpu/kernels.h"
#include "src/core/base/saturate.h"

namespace relite::cpu {
namespace {

constexpr int kKeypoints = 17;
constexpr int kEdges = 16;
constexpr int kLocalMaximumRadius = 1;
constexpr int kRefinementSteps = 5;
constexpr int kMaxDetectionsLimit = 1 << 16;

enum Part {
  kNose, kLeftEye, kRightEye, kLeftEar, kRightEar, kLeftShoulder, kRightShoulder, kLeftElbow, kRightElbow,
  kLeftWrist, kRightWrist, kLeftHip, kRightHip, kLeftKnee, kRightKnee, kLeftAnkle, kRightAnkle
};

// The skeleton's 16 parent -> child edges, as the mid-range displacement
// channels are ordered.
constexpr std::array<std::array<int, 2>, kEdges> kSkeleton = {{
    {kNose, kLeftEye}, {kLeftEye, kLeftEar}, {kNose, kRightEye}, {kRightEye, kRightEar},
    {kNose, kLeftShoulder}, {kLeftShoulder, kLeftElbow}, {kLeftElbow, kLeftWrist}, {kLeftShoulder, kLeftHip},
    {kLeftHip, kLeftKnee}, {kLeftKnee, kLeftAnkle}, {kNose, kRightShoulder}, {kRightShoulder, kRightElbow},
    {kRightElbow, kRightWrist}, {kRightShoulder, kRightHip}, {kRightHip, kRightKnee}, {kRightKnee, kRightAnkle},
}};

struct Point {
  float y, x;
};

struct Candidate {
  Point point;
  int id;
  float score;
};

// Max-heap order by score, as std::priority_queue with a `<` comparator.
struct ByScore {
  bool operator()(const Candidate& a, const Candidate& b) const { return a.score < b.score; }
};

// One traversal step from keypoint `from`: the neighbour and the mid-range
// channels of its displacement (dy, dx).
struct Step {
  int to;
  int channel_y;
  int channel_x;
};

struct Neighbours {
  std::array<std::array<Step, 4>, kKeypoints> steps{};
  std::array<int, kKeypoints> count{};
};

Neighbours BuildNeighbours() {
  Neighbours n;
  // Forward edges first, then backward ones (Coral's edge-list order).
  for (int e = 0; e < kEdges; ++e) {
    const int from = kSkeleton[static_cast<size_t>(e)][0], to = kSkeleton[static_cast<size_t>(e)][1];
    n.steps[static_cast<size_t>(from)][static_cast<size_t>(n.count[static_cast<size_t>(from)]++)] =
        Step{to, e, kEdges + e};
  }
  for (int e = 0; e < kEdges; ++e) {
    const int from = kSkeleton[static_cast<size_t>(e)][1], to = kSkeleton[static_cast<size_t>(e)][0];
    n.steps[static_cast<size_t>(from)][static_cast<size_t>(n.count[static_cast<size_t>(from)]++)] =
        Step{to, 2 * kEdges + e, 3 * kEdges + e};
  }
  return n;
}

const Neighbours& Skeleton() {
  static const Neighbours n = BuildNeighbours();
  return n;
}

inline float Clamp(float v, float lo, float hi) { return v < lo ? lo : (hi < v ? hi : v); }

inline float SquaredDistance(const Point& a, const Point& b) {
  const float dy = b.y - a.y;
  const float dx = b.x - a.x;
  return dy * dy + dx * dx;
}

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// A [H, W, C] float grid sampled bilinearly at (y, x) (grid units).
struct Grid {
  const float* data = nullptr;
  int height = 0;
  int width = 0;
  int channels = 0;

  // Two channels at once: out[0] = c0, out[1] = c1.
  void Sample(Point p, int c0, int c1, float* out) const {
    const float yp = Clamp(p.y, 0.0f, static_cast<float>(height) - 1.0f);
    const float xp = Clamp(p.x, 0.0f, static_cast<float>(width) - 1.0f);
    const int y0 = SaturateToInt32(std::floor(yp)), y1 = SaturateToInt32(std::ceil(yp));
    const int x0 = SaturateToInt32(std::floor(xp)), x1 = SaturateToInt32(std::ceil(xp));
    const float ly = p.y - static_cast<float>(y0);
    const float lx = p.x - static_cast<float>(x0);
    const float* tl = data + (static_cast<int64_t>(y0) * width + x0) * channels;
    const float* tr = data + (static_cast<int64_t>(y0) * width + x1) * channels;
    const float* bl = data + (static_cast<int64_t>(y1) * width + x0) * channels;
    const float* br = data + (static_cast<int64_t>(y1) * width + x1) * channels;
    const int cs[2] = {c0, c1};
    for (int i = 0; i < 2; ++i) {
      const int c = cs[i];
      out[i] = (1 - ly) * ((1 - lx) * tl[c] + lx * tr[c]) + ly * ((1 - lx) * bl[c] + lx * br[c]);
    }
  }
  float Sample(Point p, int c) const {
    float out[2];
    Sample(p, c, c, out);
    return out[0];
  }
};

struct DecoderOptions {
  int max_detections = 0;
  float score_threshold = 0;
  int stride = 0;
  float nms_radius = 0;
};

struct Pose {
  std::array<Point, kKeypoints> keypoints;
  std::array<float, kKeypoints> scores;  // sigmoid
};

class PosenetDecoderKernel final : public Kernel {
 public:
  explicit PosenetDecoderKernel(const DecoderOptions& o) : o_(o) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() == 4 || ctx.num_outputs() == 5) {
      return ctx.Unsupported("instance masks (long offsets input, fifth output) are not supported");
    }
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 4));
    const int channels[3] = {kKeypoints, 2 * kKeypoints, 4 * kEdges};
    const char* names[3] = {"heatmaps", "short offsets", "mid offsets"};
    const Tensor& heatmaps = ctx.input(0);
    if (heatmaps.rank() != 4 || heatmaps.dim(0) != 1 || heatmaps.dim(3) != kKeypoints || heatmaps.dim(1) < 1 ||
        heatmaps.dim(2) < 1) {
      return ctx.Error("heatmaps must be [1, H, W, 17], got " + ShapeToString(heatmaps.shape));
    }
    height_ = heatmaps.dim(1);
    width_ = heatmaps.dim(2);
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx.input(i);
      const Shape want = {1, height_, width_, channels[i]};
      if (t.shape != want) {
        return ctx.Error(std::string(names[i]) + " must be " + ShapeToString(want) + ", got " +
                         ShapeToString(t.shape));
      }
      RELITE_RETURN_IF_ERROR(PrepareInput(ctx, i, names[i]));
    }
    for (int i = 0; i < 4; ++i) RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, i, DataType::kFloat32));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {1, o_.max_detections, kKeypoints, 2}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(1, {1, o_.max_detections, kKeypoints}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(2, {1, o_.max_detections}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(3, {1}));

    const size_t cells = static_cast<size_t>(height_) * static_cast<size_t>(width_);
    candidates_.clear();
    candidates_.reserve(cells * kKeypoints);
    decode_queue_.clear();
    decode_queue_.reserve(4 * kEdges + 4);
    poses_.assign(static_cast<size_t>(o_.max_detections), Pose{});
    pose_scores_.clear();
    pose_scores_.reserve(static_cast<size_t>(o_.max_detections));
    order_.assign(static_cast<size_t>(o_.max_detections), 0);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const Grid heat = InputGrid(ctx, 0);
    const Grid shorts = InputGrid(ctx, 1);
    const Grid mids = InputGrid(ctx, 2);
    const float stride = static_cast<float>(o_.stride);
    const float radius = o_.nms_radius / stride;
    const float squared_radius = radius * radius;

    BuildCandidates(heat, shorts);

    int accepted = 0;
    pose_scores_.clear();
    while (accepted < o_.max_detections && !candidates_.empty()) {
      std::pop_heap(candidates_.begin(), candidates_.end(), ByScore());
      const Candidate root = candidates_.back();
      candidates_.pop_back();
      bool near = false;
      for (int p = 0; p < accepted && !near; ++p) {
        near = SquaredDistance(root.point, poses_[static_cast<size_t>(p)].keypoints[static_cast<size_t>(root.id)]) <=
               squared_radius;
      }
      if (near) continue;
      Pose& pose = poses_[static_cast<size_t>(accepted)];
      DecodePose(heat, shorts, mids, root, &pose);
      for (float& s : pose.scores) s = Sigmoid(s);
      const float score = MeanOfSorted(pose.scores, nullptr);
      if (score >= o_.score_threshold) {
        pose_scores_.push_back(score);
        ++accepted;
      }
    }

    // Soft keypoint NMS: rescore in decreasing score order.
    SortByScore(accepted);
    std::array<bool, kKeypoints> occluded{};
    for (int i = 0; i < accepted; ++i) {
      const Pose& cur = poses_[static_cast<size_t>(order_[static_cast<size_t>(i)])];
      occluded.fill(false);
      for (int j = 0; j < i; ++j) {
        const Pose& prev = poses_[static_cast<size_t>(order_[static_cast<size_t>(j)])];
        for (int k = 0; k < kKeypoints; ++k) {
          if (SquaredDistance(cur.keypoints[static_cast<size_t>(k)], prev.keypoints[static_cast<size_t>(k)]) <=
              squared_radius) {
            occluded[static_cast<size_t>(k)] = true;
          }
        }
      }
      pose_scores_[static_cast<size_t>(order_[static_cast<size_t>(i)])] = MeanOfSorted(cur.scores, &occluded);
    }
    SortByScore(accepted);

    float* out_points = ctx.output(0).data_as<float>();
    float* out_kp_scores = ctx.output(1).data_as<float>();
    float* out_scores = ctx.output(2).data_as<float>();
    const size_t rows = static_cast<size_t>(o_.max_detections);
    std::fill(out_points, out_points + rows * kKeypoints * 2, 0.0f);
    std::fill(out_kp_scores, out_kp_scores + rows * kKeypoints, 0.0f);
    std::fill(out_scores, out_scores + rows, 0.0f);
    int count = 0;
    for (int i = 0; i < accepted; ++i) {
      const int index = order_[static_cast<size_t>(i)];
      const float score = pose_scores_[static_cast<size_t>(index)];
      if (score < o_.score_threshold) break;
      const Pose& pose = poses_[static_cast<size_t>(index)];
      for (int k = 0; k < kKeypoints; ++k) {
        out_points[(count * kKeypoints + k) * 2] = pose.keypoints[static_cast<size_t>(k)].y * stride;
        out_points[(count * kKeypoints + k) * 2 + 1] = pose.keypoints[static_cast<size_t>(k)].x * stride;
        out_kp_scores[count * kKeypoints + k] = pose.scores[static_cast<size_t>(k)];
      }
      out_scores[count] = score;
      ++count;
    }
    ctx.output(3).data_as<float>()[0] = static_cast<float>(count);
    return Status::Ok();
  }

 private:
  struct InputView {
    DataType type = DataType::kFloat32;
    float scale = 1;
    float zero_point = 0;
    std::vector<float> values;  // dequantized / rescaled copy
  };

  Status PrepareInput(KernelContext& ctx, int i, const char* name) {
    const Tensor& t = ctx.input(i);
    InputView& v = inputs_[static_cast<size_t>(i)];
    v.type = t.type;
    // Offsets are in pixels; the decoder works in grid cells.
    const float extra = i == 0 ? 1.0f : static_cast<float>(1.0 / o_.stride);
    if (t.type == DataType::kFloat32) {
      v.scale = extra;
      v.zero_point = 0;
    } else if (t.type == DataType::kUInt8 || t.type == DataType::kInt8) {
      if (t.quant.scale.size() != 1) {
        return ctx.Error(std::string(name) + " '" + t.name + "' needs one (per-tensor) quantization scale, has " +
                         std::to_string(t.quant.scale.size()));
      }
      v.scale = t.quant.scale[0] * extra;
      v.zero_point = t.quant.zero_point.empty() ? 0.0f : static_cast<float>(t.quant.zero_point[0]);
    } else {
      return ctx.Error(std::string(name) + " '" + t.name + "' has type " + DataTypeName(t.type) +
                       ", expected float32, uint8 or int8");
    }
    // Float heatmaps are used in place; everything else gets a float copy.
    if (i == 0 && t.type == DataType::kFloat32) {
      v.values.clear();
    } else {
      v.values.assign(static_cast<size_t>(t.num_elements()), 0.0f);
    }
    return Status::Ok();
  }

  Grid InputGrid(KernelContext& ctx, int i) {
    const Tensor& t = ctx.input(i);
    InputView& v = inputs_[static_cast<size_t>(i)];
    Grid g;
    g.height = height_;
    g.width = width_;
    g.channels = t.dim(3);
    const size_t n = v.values.size();
    switch (v.type) {
      case DataType::kUInt8: {
        const uint8_t* q = t.data_as<uint8_t>();
        for (size_t k = 0; k < n; ++k) v.values[k] = (static_cast<float>(q[k]) - v.zero_point) * v.scale;
        break;
      }
      case DataType::kInt8: {
        const int8_t* q = t.data_as<int8_t>();
        for (size_t k = 0; k < n; ++k) v.values[k] = (static_cast<float>(q[k]) - v.zero_point) * v.scale;
        break;
      }
      default: {
        const float* f = t.data_as<float>();
        if (n == 0) {
          g.data = f;
          return g;
        }
        for (size_t k = 0; k < n; ++k) v.values[k] = f[k] * v.scale;
        break;
      }
    }
    g.data = v.values.data();
    return g;
  }

  // Local maxima above the threshold (as a logit), in a max-heap.
  void BuildCandidates(const Grid& heat, const Grid& shorts) {
    const double p = static_cast<double>(o_.score_threshold);
    const float min_logit = static_cast<float>(-std::log(1.0f / (p + 1e-6) - 1.0f));
    candidates_.clear();
    const float ymax = static_cast<float>(height_) - 1.0f, xmax = static_cast<float>(width_) - 1.0f;
    for (int y = 0; y < height_; ++y) {
      for (int x = 0; x < width_; ++x) {
        const float* cell = heat.data + (static_cast<int64_t>(y) * width_ + x) * kKeypoints;
        const float* offsets = shorts.data + (static_cast<int64_t>(y) * width_ + x) * 2 * kKeypoints;
        for (int k = 0; k < kKeypoints; ++k) {
          const float score = cell[k];
          if (!(score >= min_logit)) continue;
          bool is_max = true;
          const int y0 = std::max(y - kLocalMaximumRadius, 0), y1 = std::min(y + kLocalMaximumRadius + 1, height_);
          const int x0 = std::max(x - kLocalMaximumRadius, 0), x1 = std::min(x + kLocalMaximumRadius + 1, width_);
          for (int yy = y0; yy < y1 && is_max; ++yy) {
            for (int xx = x0; xx < x1; ++xx) {
              if (heat.data[(static_cast<int64_t>(yy) * width_ + xx) * kKeypoints + k] > score) {
                is_max = false;
                break;
              }
            }
          }
          if (!is_max) continue;
          const Point pt{Clamp(static_cast<float>(y) + offsets[k], 0.0f, ymax),
                         Clamp(static_cast<float>(x) + offsets[kKeypoints + k], 0.0f, xmax)};
          candidates_.push_back(Candidate{pt, k, score});
          std::push_heap(candidates_.begin(), candidates_.end(), ByScore());
        }
      }
    }
  }

  // Mid-range displacement along one step, then short-offset refinement.
  Point Displace(const Grid& shorts, const Grid& mids, Point from, const Step& step) const {
    const float ymax = static_cast<float>(height_) - 1.0f, xmax = static_cast<float>(width_) - 1.0f;
    float d[2];
    mids.Sample(from, step.channel_y, step.channel_x, d);
    Point p{Clamp(from.y + d[0], 0.0f, ymax), Clamp(from.x + d[1], 0.0f, xmax)};
    for (int i = 0; i < kRefinementSteps; ++i) {
      shorts.Sample(p, step.to, kKeypoints + step.to, d);
      p = Point{Clamp(p.y + d[0], 0.0f, ymax), Clamp(p.x + d[1], 0.0f, xmax)};
    }
    return p;
  }

  // Fills pose->keypoints and pose->scores (as logits) from `root`.
  void DecodePose(const Grid& heat, const Grid& shorts, const Grid& mids, const Candidate& root, Pose* pose) {
    const Neighbours& skeleton = Skeleton();
    for (int k = 0; k < kKeypoints; ++k) {
      pose->keypoints[static_cast<size_t>(k)] = Point{-1.0f, -1.0f};
      pose->scores[static_cast<size_t>(k)] = -1e5f;
    }
    std::array<bool, kKeypoints> decoded{};
    decode_queue_.clear();
    decode_queue_.push_back(Candidate{root.point, root.id, heat.Sample(root.point, root.id)});
    while (!decode_queue_.empty()) {
      std::pop_heap(decode_queue_.begin(), decode_queue_.end(), ByScore());
      const Candidate cur = decode_queue_.back();
      decode_queue_.pop_back();
      if (decoded[static_cast<size_t>(cur.id)]) continue;
      decoded[static_cast<size_t>(cur.id)] = true;
      pose->keypoints[static_cast<size_t>(cur.id)] = cur.point;
      pose->scores[static_cast<size_t>(cur.id)] = cur.score;
      for (int s = 0; s < skeleton.count[static_cast<size_t>(cur.id)]; ++s) {
        const Step& step = skeleton.steps[static_cast<size_t>(cur.id)][static_cast<size_t>(s)];
        if (decoded[static_cast<size_t>(step.to)]) continue;
        const Point p = Displace(shorts, mids, cur.point, step);
        decode_queue_.push_back(Candidate{p, step.to, heat.Sample(p, step.to)});
        std::push_heap(decode_queue_.begin(), decode_queue_.end(), ByScore());
      }
    }
  }

  // Sum of the scores not masked out, added in decreasing order, over 17.
  static float MeanOfSorted(const std::array<float, kKeypoints>& scores, const std::array<bool, kKeypoints>* masked) {
    std::array<int, kKeypoints> idx;
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](int a, int b) { return scores[static_cast<size_t>(a)] > scores[static_cast<size_t>(b)]; });
    float total = 0.0f;
    for (int k : idx) {
      if (masked == nullptr || !(*masked)[static_cast<size_t>(k)]) total += scores[static_cast<size_t>(k)];
    }
    return total / static_cast<float>(kKeypoints);
  }

  void SortByScore(int n) {
    std::iota(order_.begin(), order_.begin() + n, 0);
    const float* s = pose_scores_.data();
    std::sort(order_.begin(), order_.begin() + n, [s](int a, int b) { return s[a] > s[b]; });
  }

  const DecoderOptions o_;
  int height_ = 0;
  int width_ = 0;
  std::array<InputView, 3> inputs_;
  std::vector<Candidate> candidates_;
  std::vector<Candidate> decode_queue_;
  std::vector<Pose> poses_;
  std::vector<float> pose_scores_;
  std::vector<int> order_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreatePosenetDecoder(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(FlexbufferOptions flex, FlexbufferOptions::Parse(node));
  DecoderOptions o;
  RELITE_ASSIGN_OR_RETURN(o.max_detections, flex.GetInt("max_detections"));
  RELITE_ASSIGN_OR_RETURN(o.score_threshold, flex.GetFloat("score_threshold"));
  RELITE_ASSIGN_OR_RETURN(o.stride, flex.GetInt("stride"));
  RELITE_ASSIGN_OR_RETURN(o.nms_radius, flex.GetFloat("nms_radius"));
  const auto bad = [&](const std::string& what) { return InvalidArgumentError(node.Describe() + ": " + what); };
  if (o.max_detections < 0 || o.max_detections > kMaxDetectionsLimit) {
    return bad("max_detections must be in [0, " + std::to_string(kMaxDetectionsLimit) + "], got " +
               std::to_string(o.max_detections));
  }
  if (o.stride <= 0) return bad("stride must be > 0, got " + std::to_string(o.stride));
  if (!(o.score_threshold >= 0.0f && o.score_threshold < 1.0f)) {
    return bad("score_threshold must be in [0, 1), got " + std::to_string(o.score_threshold));
  }
  if (!(o.nms_radius >= 0.0f)) return bad("nms_radius must be >= 0, got " + std::to_string(o.nms_radius));
  return std::unique_ptr<Kernel>(std::make_unique<PosenetDecoderKernel>(o));
}

}  // namespace relite::cpu
