// TFLite_Detection_PostProcess: the SSD tail. Decodes center-size box
// encodings against anchors, then runs non-max suppression, with TFLite's
// semantics (facts taken from tensorflow/lite/kernels/detection_postprocess.cc):
//
// Options (FlexBuffer map): max_detections, max_classes_per_detection,
// num_classes, nms_score_threshold, nms_iou_threshold, y/x/h/w_scale are
// required; detections_per_class (default 100) and use_regular_nms (default
// false) are optional.
//
// Inputs: box encodings [1, N, >=4] (ty, tx, th, tw first), class scores
// [1, N, num_classes + label_offset] (label_offset 0, or 1 when a background
// column comes first), anchors [N, 4] (ycenter, xcenter, h, w). Each may be
// float32 or uint8/int8 with a per-tensor scale, dequantized as
// (q - zero_point) * scale.
//
// Decoding, in double as TFLite does, then rounded to float:
//   yc = ty / y_scale * ah + ay        xc = tx / x_scale * aw + ax
//   hh = 0.5 * exp(th / h_scale) * ah  hw = 0.5 * exp(tw / w_scale) * aw
//   box = (yc - hh, xc - hw, yc + hh, xc + hw)    (float arithmetic)
// Any decoded box with ymin > ymax or xmin > xmax is an error.
//
// Single-class NMS: keep scores >= nms_score_threshold, order by score
// descending (ties: lower anchor first, a stable sort), then greedily select
// a candidate unless its IoU with an already selected box is
// > nms_iou_threshold, up to the limit. IoU is 0 when either area is <= 0.
//
// Fast NMS (use_regular_nms false): per anchor the max class score; NMS over
// those, up to max_detections; each selected anchor emits its top
// min(max_classes_per_detection, num_classes) classes in rows
// k*max_classes_per_detection + c. num_detections = selected anchors.
// Regular NMS: per class NMS up to min(detections_per_class, max_detections),
// merged after each class into the running top max_detections by score
// (stable: among equal scores, earlier classes first, then NMS order).
//
// Outputs, all float32: boxes [1, D, 4] (ymin, xmin, ymax, xmax), classes
// [1, D] (0-based, background excluded), scores [1, D], num_detections [1],
// with D = max_detections * max_classes_per_detection (TFLite's sizes).
// Rows past the detections are zero.
//
// No FMA contraction here (-ffp-contract=off for this file, CMakeLists.txt):
// the decode and IoU arithmetic round step by step,
// as in TFLite.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/flexbuffer_options.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kBoxEncodings = 0;
constexpr int kClassPredictions = 1;
constexpr int kAnchors = 2;
constexpr int kDefaultDetectionsPerClass = 100;
// Bounds that keep every size product far from int overflow.
constexpr int64_t kMaxOutputRows = int64_t{1} << 20;

struct Options {
  int max_detections = 0;
  int max_classes_per_detection = 0;
  int detections_per_class = kDefaultDetectionsPerClass;
  bool use_regular_nms = false;
  float score_threshold = 0;
  float iou_threshold = 0;
  int num_classes = 0;
  float y_scale = 0, x_scale = 0, h_scale = 0, w_scale = 0;
};

struct Box {
  float ymin, xmin, ymax, xmax;
};

// A float view of an input: float32 data as is, 8-bit data dequantized.
struct Dequantizer {
  DataType type = DataType::kFloat32;
  float scale = 1;
  float zero_point = 0;

  float operator()(const void* data, int64_t i) const {
    switch (type) {
      case DataType::kUInt8: return (static_cast<float>(static_cast<const uint8_t*>(data)[i]) - zero_point) * scale;
      case DataType::kInt8: return (static_cast<float>(static_cast<const int8_t*>(data)[i]) - zero_point) * scale;
      default: return static_cast<const float*>(data)[i];
    }
  }
};

StatusOr<Dequantizer> MakeDequantizer(KernelContext& ctx, const Tensor& t, const char* what) {
  Dequantizer d;
  d.type = t.type;
  if (t.type == DataType::kFloat32) return d;
  if (t.type != DataType::kUInt8 && t.type != DataType::kInt8) {
    return ctx.Error(std::string(what) + " '" + t.name + "' has type " + DataTypeName(t.type) +
                     ", expected float32, uint8 or int8");
  }
  if (t.quant.scale.size() != 1) {
    return ctx.Error(std::string(what) + " '" + t.name + "' needs one (per-tensor) quantization scale, has " +
                     std::to_string(t.quant.scale.size()));
  }
  d.scale = t.quant.scale[0];
  d.zero_point = t.quant.zero_point.empty() ? 0.0f : static_cast<float>(t.quant.zero_point[0]);
  return d;
}

// IoU as TFLite computes it (float, 0 when either box is empty).
inline float IntersectionOverUnion(const Box& a, float area_a, const Box& b, float area_b) {
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float ymin = std::max(a.ymin, b.ymin);
  const float xmin = std::max(a.xmin, b.xmin);
  const float ymax = std::min(a.ymax, b.ymax);
  const float xmax = std::min(a.xmax, b.xmax);
  const float inter = std::max(ymax - ymin, 0.0f) * std::max(xmax - xmin, 0.0f);
  return inter / (area_a + area_b - inter);
}

// Indices of the `k` largest of values[0, n) in decreasing order, with the
// tie order of TFLite's per-anchor class ranking: the first maximum when
// k == 1, else std::partial_sort over 0..n-1 with a strict `>` comparison
// (ties then follow the standard library's heap order, as in TFLite).
void TopKIndices(const float* values, int n, int k, int* indices) {
  if (k <= 0 || n <= 0) return;
  if (k == 1) {
    int best = 0;
    for (int i = 1; i < n; ++i) {
      if (values[i] > values[best]) best = i;
    }
    indices[0] = best;
    return;
  }
  std::iota(indices, indices + n, 0);
  std::partial_sort(indices, indices + k, indices + n, [values](int i, int j) { return values[i] > values[j]; });
}

class DetectionPostProcessKernel final : public Kernel {
 public:
  explicit DetectionPostProcessKernel(const Options& o) : o_(o) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 4));
    const Tensor& boxes = ctx.input(kBoxEncodings);
    const Tensor& scores = ctx.input(kClassPredictions);
    const Tensor& anchors = ctx.input(kAnchors);
    if (boxes.rank() != 3 || boxes.dim(0) != 1 || boxes.dim(2) < 4) {
      return ctx.Error("box encodings must be [1, num_anchors, >=4], got " + ShapeToString(boxes.shape));
    }
    num_anchors_ = boxes.dim(1);
    box_stride_ = boxes.dim(2);
    if (scores.rank() != 3 || scores.dim(0) != 1 || scores.dim(1) != num_anchors_) {
      return ctx.Error("class predictions must be [1, " + std::to_string(num_anchors_) +
                       ", num_classes(+1)], got " + ShapeToString(scores.shape));
    }
    columns_ = scores.dim(2);
    label_offset_ = columns_ - o_.num_classes;
    if (label_offset_ != 0 && label_offset_ != 1) {
      return ctx.Error("class predictions have " + std::to_string(columns_) + " columns for num_classes " +
                       std::to_string(o_.num_classes) + " (expected num_classes or num_classes + 1)");
    }
    if (anchors.rank() != 2 || anchors.dim(0) != num_anchors_ || anchors.dim(1) != 4) {
      return ctx.Error("anchors must be [" + std::to_string(num_anchors_) + ", 4], got " +
                       ShapeToString(anchors.shape));
    }
    if (static_cast<int64_t>(num_anchors_) * columns_ > std::numeric_limits<int32_t>::max()) {
      return ctx.Error("too many anchors x classes");
    }
    RELITE_ASSIGN_OR_RETURN(box_deq_, MakeDequantizer(ctx, boxes, "box encodings"));
    RELITE_ASSIGN_OR_RETURN(score_deq_, MakeDequantizer(ctx, scores, "class predictions"));
    RELITE_ASSIGN_OR_RETURN(anchor_deq_, MakeDequantizer(ctx, anchors, "anchors"));
    for (int i = 0; i < 4; ++i) RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, i, DataType::kFloat32));

    const int32_t rows = o_.max_detections * o_.max_classes_per_detection;
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {1, rows, 4}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(1, {1, rows}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(2, {1, rows}));
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(3, {1}));

    const size_t n = static_cast<size_t>(num_anchors_);
    boxes_.assign(n, Box{});
    areas_.assign(n, 0.0f);
    if (score_deq_.type != DataType::kFloat32) {
      scores_.assign(n * static_cast<size_t>(columns_), 0.0f);
    } else {
      scores_.clear();
    }
    column_.assign(n, 0.0f);
    keep_.assign(n, 0);
    selected_.assign(n, 0);
    const size_t merged = static_cast<size_t>(o_.max_detections);
    merged_index_.assign(merged, 0);
    merged_score_.assign(merged, 0.0f);
    order_.assign(static_cast<size_t>(o_.num_classes), 0);
    tmp_index_.assign(merged, 0);
    tmp_score_.assign(merged, 0.0f);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(DecodeBoxes(ctx));
    const float* scores = DequantizeScores(ctx);
    float* out_boxes = ctx.output(0).data_as<float>();
    float* out_classes = ctx.output(1).data_as<float>();
    float* out_scores = ctx.output(2).data_as<float>();
    const int64_t rows = ctx.output(1).num_elements();
    std::fill(out_boxes, out_boxes + rows * 4, 0.0f);
    std::fill(out_classes, out_classes + rows, 0.0f);
    std::fill(out_scores, out_scores + rows, 0.0f);
    const int count = o_.use_regular_nms ? RegularNms(scores, out_boxes, out_classes, out_scores)
                                         : FastNms(scores, out_boxes, out_classes, out_scores);
    ctx.output(3).data_as<float>()[0] = static_cast<float>(count);
    return Status::Ok();
  }

 private:
  Status DecodeBoxes(KernelContext& ctx) {
    const void* enc = ctx.input(kBoxEncodings).data;
    const void* anc = ctx.input(kAnchors).data;
    const double ys = o_.y_scale, xs = o_.x_scale, hs = o_.h_scale, ws = o_.w_scale;
    for (int i = 0; i < num_anchors_; ++i) {
      const int64_t e = static_cast<int64_t>(i) * box_stride_;
      const double ty = box_deq_(enc, e), tx = box_deq_(enc, e + 1);
      const double th = box_deq_(enc, e + 2), tw = box_deq_(enc, e + 3);
      const int64_t a = static_cast<int64_t>(i) * 4;
      const double ay = anchor_deq_(anc, a), ax = anchor_deq_(anc, a + 1);
      const double ah = anchor_deq_(anc, a + 2), aw = anchor_deq_(anc, a + 3);
      const float yc = static_cast<float>(ty / ys * ah + ay);
      const float xc = static_cast<float>(tx / xs * aw + ax);
      const float half_h = static_cast<float>(0.5 * std::exp(th / hs) * ah);
      const float half_w = static_cast<float>(0.5 * std::exp(tw / ws) * aw);
      Box& b = boxes_[static_cast<size_t>(i)];
      b.ymin = yc - half_h;
      b.xmin = xc - half_w;
      b.ymax = yc + half_h;
      b.xmax = xc + half_w;
      if (b.ymin > b.ymax || b.xmin > b.xmax) {
        return ctx.Error("decoded box " + std::to_string(i) + " has ymin > ymax or xmin > xmax (" +
                         std::to_string(b.ymin) + ", " + std::to_string(b.xmin) + ", " + std::to_string(b.ymax) +
                         ", " + std::to_string(b.xmax) + "): anchor heights and widths must be positive");
      }
      areas_[static_cast<size_t>(i)] = (b.ymax - b.ymin) * (b.xmax - b.xmin);
    }
    return Status::Ok();
  }

  const float* DequantizeScores(KernelContext& ctx) {
    const Tensor& t = ctx.input(kClassPredictions);
    if (score_deq_.type == DataType::kFloat32) return t.data_as<float>();
    const int64_t n = static_cast<int64_t>(scores_.size());
    for (int64_t i = 0; i < n; ++i) scores_[static_cast<size_t>(i)] = score_deq_(t.data, i);
    return scores_.data();
  }

  // NMS over column_[0, num_anchors_); writes the selected anchors, best
  // first, to selected_ and returns how many (at most `limit`).
  int SingleClassNms(int limit) {
    int kept = 0;
    for (int i = 0; i < num_anchors_; ++i) {
      if (column_[static_cast<size_t>(i)] >= o_.score_threshold) keep_[static_cast<size_t>(kept++)] = i;
    }
    // Stable descending order == descending score, then ascending anchor.
    const float* s = column_.data();
    std::sort(keep_.begin(), keep_.begin() + kept, [s](int a, int b) {
      return s[a] > s[b] || (!(s[b] > s[a]) && a < b);
    });
    const int output_size = std::min(kept, limit);
    int count = 0;
    // A candidate survives iff no already selected box overlaps it by more
    // than the threshold: the same set as TFLite's forward suppression,
    // where only selected boxes ever suppress later ones.
    for (int k = 0; k < kept && count < output_size; ++k) {
      const int cand = keep_[static_cast<size_t>(k)];
      const Box& cb = boxes_[static_cast<size_t>(cand)];
      const float ca = areas_[static_cast<size_t>(cand)];
      bool suppressed = false;
      for (int j = 0; j < count; ++j) {
        const int sel = selected_[static_cast<size_t>(j)];
        if (IntersectionOverUnion(boxes_[static_cast<size_t>(sel)], areas_[static_cast<size_t>(sel)], cb, ca) >
            o_.iou_threshold) {
          suppressed = true;
          break;
        }
      }
      if (!suppressed) selected_[static_cast<size_t>(count++)] = cand;
    }
    return count;
  }

  void WriteRow(int row, int anchor, int cls, float score, float* out_boxes, float* out_classes,
                float* out_scores) const {
    const Box& b = boxes_[static_cast<size_t>(anchor)];
    float* ob = out_boxes + static_cast<int64_t>(row) * 4;
    ob[0] = b.ymin;
    ob[1] = b.xmin;
    ob[2] = b.ymax;
    ob[3] = b.xmax;
    out_classes[row] = static_cast<float>(cls);
    out_scores[row] = score;
  }

  int FastNms(const float* scores, float* out_boxes, float* out_classes, float* out_scores) {
    const int per_anchor = std::min(o_.max_classes_per_detection, o_.num_classes);
    for (int i = 0; i < num_anchors_; ++i) {
      const float* row = scores + static_cast<int64_t>(i) * columns_ + label_offset_;
      int best = 0;
      TopKIndices(row, o_.num_classes, 1, &best);
      column_[static_cast<size_t>(i)] = row[best];
    }
    const int count = SingleClassNms(o_.max_detections);
    for (int k = 0; k < count; ++k) {
      const int anchor = selected_[static_cast<size_t>(k)];
      const float* row = scores + static_cast<int64_t>(anchor) * columns_ + label_offset_;
      TopKIndices(row, o_.num_classes, per_anchor, order_.data());
      for (int c = 0; c < per_anchor; ++c) {
        const int cls = order_[static_cast<size_t>(c)];
        WriteRow(o_.max_classes_per_detection * k + c, anchor, cls, row[cls], out_boxes, out_classes, out_scores);
      }
    }
    return count;
  }

  int RegularNms(const float* scores, float* out_boxes, float* out_classes, float* out_scores) {
    // merged_*[0, size) holds the running top detections (index = anchor *
    // columns + column), best first. Each class's NMS result (also best
    // first) is merged in stably, earlier entries first among equal scores,
    // and the list cut to max_detections: TFLite's single-threaded order.
    const int per_class = std::min(o_.detections_per_class, o_.max_detections);
    int size = 0;
    for (int c = 0; c < o_.num_classes && per_class > 0; ++c) {
      const int column = c + label_offset_;
      for (int i = 0; i < num_anchors_; ++i) {
        column_[static_cast<size_t>(i)] = scores[static_cast<int64_t>(i) * columns_ + column];
      }
      const int count = SingleClassNms(per_class);
      if (count == 0) continue;
      const int keep = std::min(size + count, o_.max_detections);
      int a = 0, b = 0;
      for (int r = 0; r < keep; ++r) {
        const bool take_new =
            a >= size || (b < count && column_[static_cast<size_t>(selected_[static_cast<size_t>(b)])] >
                                           merged_score_[static_cast<size_t>(a)]);
        if (take_new) {
          const int anchor = selected_[static_cast<size_t>(b++)];
          tmp_index_[static_cast<size_t>(r)] = anchor * columns_ + column;
          tmp_score_[static_cast<size_t>(r)] = column_[static_cast<size_t>(anchor)];
        } else {
          tmp_index_[static_cast<size_t>(r)] = merged_index_[static_cast<size_t>(a)];
          tmp_score_[static_cast<size_t>(r)] = merged_score_[static_cast<size_t>(a)];
          ++a;
        }
      }
      std::copy(tmp_index_.begin(), tmp_index_.begin() + keep, merged_index_.begin());
      std::copy(tmp_score_.begin(), tmp_score_.begin() + keep, merged_score_.begin());
      size = keep;
    }
    for (int r = 0; r < size; ++r) {
      const int index = merged_index_[static_cast<size_t>(r)];
      const int anchor = index / columns_;
      const int cls = index - anchor * columns_ - label_offset_;
      WriteRow(r, anchor, cls, merged_score_[static_cast<size_t>(r)], out_boxes, out_classes, out_scores);
    }
    return size;
  }

  const Options o_;
  int num_anchors_ = 0;
  int box_stride_ = 4;
  int columns_ = 0;
  int label_offset_ = 0;
  Dequantizer box_deq_, score_deq_, anchor_deq_;
  std::vector<Box> boxes_;
  std::vector<float> areas_;
  std::vector<float> scores_;  // dequantized class predictions (8-bit input)
  std::vector<float> column_;  // one class's (or the max) score per anchor
  std::vector<int> keep_;
  std::vector<int> selected_;
  std::vector<int> merged_index_;
  std::vector<float> merged_score_;
  std::vector<int> order_;
  std::vector<int> tmp_index_;
  std::vector<float> tmp_score_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateDetectionPostProcess(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(FlexbufferOptions flex, FlexbufferOptions::Parse(node));
  Options o;
  RELITE_ASSIGN_OR_RETURN(o.max_detections, flex.GetInt("max_detections"));
  RELITE_ASSIGN_OR_RETURN(o.max_classes_per_detection, flex.GetInt("max_classes_per_detection"));
  RELITE_ASSIGN_OR_RETURN(o.detections_per_class, flex.GetInt("detections_per_class", kDefaultDetectionsPerClass));
  RELITE_ASSIGN_OR_RETURN(o.use_regular_nms, flex.GetBool("use_regular_nms", false));
  RELITE_ASSIGN_OR_RETURN(o.score_threshold, flex.GetFloat("nms_score_threshold"));
  RELITE_ASSIGN_OR_RETURN(o.iou_threshold, flex.GetFloat("nms_iou_threshold"));
  RELITE_ASSIGN_OR_RETURN(o.num_classes, flex.GetInt("num_classes"));
  RELITE_ASSIGN_OR_RETURN(o.y_scale, flex.GetFloat("y_scale"));
  RELITE_ASSIGN_OR_RETURN(o.x_scale, flex.GetFloat("x_scale"));
  RELITE_ASSIGN_OR_RETURN(o.h_scale, flex.GetFloat("h_scale"));
  RELITE_ASSIGN_OR_RETURN(o.w_scale, flex.GetFloat("w_scale"));

  const auto bad = [&](const std::string& what) { return InvalidArgumentError(node.Describe() + ": " + what); };
  if (o.max_detections < 0) return bad("max_detections must be >= 0, got " + std::to_string(o.max_detections));
  if (o.max_classes_per_detection <= 0) {
    return bad("max_classes_per_detection must be > 0, got " + std::to_string(o.max_classes_per_detection));
  }
  if (static_cast<int64_t>(o.max_detections) * o.max_classes_per_detection > kMaxOutputRows) {
    return bad("max_detections * max_classes_per_detection is too large");
  }
  if (o.use_regular_nms && o.detections_per_class <= 0) {
    return bad("detections_per_class must be > 0, got " + std::to_string(o.detections_per_class));
  }
  if (o.num_classes <= 0) return bad("num_classes must be > 0, got " + std::to_string(o.num_classes));
  if (!(o.iou_threshold > 0.0f && o.iou_threshold <= 1.0f)) {
    return bad("nms_iou_threshold must be in (0, 1], got " + std::to_string(o.iou_threshold));
  }
  if (o.y_scale == 0 || o.x_scale == 0 || o.h_scale == 0 || o.w_scale == 0) {
    return bad("y_scale, x_scale, h_scale and w_scale must be non-zero");
  }
  return std::unique_ptr<Kernel>(std::make_unique<DetectionPostProcessKernel>(o));
}

}  // namespace relite::cpu
