// FULLY_CONNECTED on quantized activations.
//
//  - uint8 x uint8 (per-tensor) and int8 x int8 (per-tensor or per-channel)
//    with constant weights: XNNPACK's arithmetic, which is what TFLite runs
//    by default: out = clamp(round_half_even(float(acc) * scale[o]) + zp),
//    scale[o] = input_scale * weight_scale[o] / output_scale in float32.
//  - The same types with weights or bias computed by the graph (XNNPACK does
//    not take those): TFLite's builtin arithmetic, a Q31 multiplier per
//    channel (MultiplyByQuantizedMultiplier) and round half away from zero.
//  - int16 activations with int8 weights (16x8): TFLite's reference kernel,
//    64-bit accumulators and the 64-bit multiplier.
// acc = bias[o] + sum_k (x[k] - x_zp) * (W[o][k] - w_zp[o]) is exact in int32.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/qconv_util.h"
#include "src/kernels/cpu/internal/qgemm.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kMaxBatchRowsPerTask = 96;

enum class Arithmetic { kXnnpack, kBuiltin, kInt16 };

class QuantizedFullyConnectedKernel final : public Kernel {
 public:
  explicit QuantizedFullyConnectedKernel(const FullyConnectedParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  Status Eval(KernelContext& ctx) override;

 private:
  // False when out of memory.
  bool Pack(const KernelContext& ctx, const void* weights, const int32_t* bias);
  // XNNPACK's arithmetic requantizes in the GEMM (any layout); TFLite's
  // builtin one reads the int32 sums (QGemmAcc: pairs).
  QGemmLayout Layout() const {
    return arithmetic_ == Arithmetic::kXnnpack ? QGemmLayoutFor(batch_) : QGemmLayout::kPairs;
  }
  void EvalInt16(KernelContext& ctx) const;

  FullyConnectedParams params_;
  Arithmetic arithmetic_ = Arithmetic::kXnnpack;
  int batch_ = 0, depth_ = 0, units_ = 0;
  DataType in_type_ = DataType::kUInt8, w_type_ = DataType::kUInt8, out_type_ = DataType::kUInt8;
  QParams in_q_, out_q_;
  WeightQParams w_q_;
  QuantizedRange range_{};
  std::vector<float> scales_;                    // XNNPACK
  std::vector<QuantizedMultiplier> multipliers_;  // TFLite builtin
  QGemmWeights packed_;
  bool constant_ = false;
  GemmPartition partition_;
  int slots_ = 1;
  size_t slot_bytes_ = 0;
};

Status QuantizedFullyConnectedKernel::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > 3) {
    return ctx.Error("expected 2 or 3 inputs (input, weights[, bias]), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("input and weights are required");
  const Tensor& input = ctx.input(0);
  const Tensor& weights = ctx.input(1);
  const Tensor& output = ctx.output(0);
  in_type_ = input.type;
  w_type_ = weights.type;
  out_type_ = output.type;
  if (weights.sparsity != nullptr) return ctx.Unsupported("sparse weights are not supported");
  if (in_type_ == DataType::kInt16) {
    if (w_type_ != DataType::kInt8 || out_type_ != DataType::kInt16) {
      return ctx.Unsupported("int16 input needs int8 weights and an int16 output, got " + DataTypeName(w_type_) +
                             " weights and " + DataTypeName(out_type_) + " output");
    }
  } else if (w_type_ != in_type_ || out_type_ != in_type_) {
    return ctx.Unsupported("input " + DataTypeName(in_type_) + " with " + DataTypeName(w_type_) + " weights and " +
                           DataTypeName(out_type_) + " output is not supported");
  }
  if (weights.rank() != 2) return ctx.Error("weights must be 2-D [units, K], got " + ShapeToString(weights.shape));
  units_ = weights.dim(0);
  depth_ = weights.dim(1);
  if (units_ < 0 || depth_ <= 0) return ctx.Error("weights dimensions must be positive, got " + ShapeToString(weights.shape));
  if (input.rank() < 1) return ctx.Error("input must have at least one dimension");
  const int64_t input_elements = input.num_elements();
  if (input_elements % depth_ != 0) {
    return ctx.Error("input " + ShapeToString(input.shape) + " does not divide into rows of " + std::to_string(depth_));
  }
  if (input_elements / depth_ > INT32_MAX) return ctx.Unsupported("input too large for 32-bit indexing");
  batch_ = static_cast<int>(input_elements / depth_);

  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, input, "input", &in_q_));
  RELITE_RETURN_IF_ERROR(GetTensorQParams(ctx, output, "output", &out_q_));
  RELITE_RETURN_IF_ERROR(GetWeightQParams(ctx, weights, 0, units_, &w_q_));
  if (in_type_ == DataType::kInt16 && (in_q_.zero_point != 0 || out_q_.zero_point != 0)) {
    return ctx.Unsupported("int16 activations must have zero point 0");
  }
  bool bias_constant = true;
  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    const bool ok = bias.type == DataType::kInt32 || (in_type_ == DataType::kInt16 && bias.type == DataType::kInt64);
    if (!ok) return ctx.Unsupported("bias type " + DataTypeName(bias.type) + " is not supported");
    if (bias.num_elements() != units_) {
      return ctx.Error("bias must have " + std::to_string(units_) + " elements, got " + ShapeToString(bias.shape));
    }
    bias_constant = bias.is_constant() && bias.data != nullptr;
  }

  Shape out_shape;
  if (params_.keep_num_dims) {
    if (input.dim(input.rank() - 1) != depth_) {
      return ctx.Error("keep_num_dims needs the input's last dimension to equal K = " + std::to_string(depth_) +
                       ", got " + ShapeToString(input.shape));
    }
    out_shape = input.shape;
    out_shape.back() = units_;
  } else {
    out_shape = {batch_, units_};
  }
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));

  constant_ = weights.is_constant() && weights.data != nullptr && bias_constant;
  if (in_type_ == DataType::kInt16) {
    arithmetic_ = Arithmetic::kInt16;
  } else {
    arithmetic_ = constant_ ? Arithmetic::kXnnpack : Arithmetic::kBuiltin;
  }
  if (arithmetic_ == Arithmetic::kXnnpack) {
    range_ = XnnActivationRange(params_.activation, out_type_, out_q_.scale, out_q_.zero_point);
    scales_ = XnnScales(in_q_.scale, w_q_.scale, out_q_.scale);
  } else {
    range_ = QuantizedActivationRange(params_.activation, out_type_, out_q_.scale, out_q_.zero_point);
    multipliers_ = TfliteMultipliers(in_q_.scale, w_q_.scale, out_q_.scale);
  }
  if (arithmetic_ == Arithmetic::kInt16) return Status::Ok();

  slots_ = std::max(1, ctx.num_threads());
  partition_ = PartitionGemm(batch_, units_, depth_, slots_, kMaxBatchRowsPerTask, kQGemmTasksPerThread);
  const size_t row_stride = QGemmRowStride(depth_);
  const size_t row_bytes = std::max(row_stride * sizeof(int16_t), QGemmQuadRowStride(depth_));
  slot_bytes_ = static_cast<size_t>(partition_.rows_per_task) * row_bytes + 64;
  if (arithmetic_ == Arithmetic::kBuiltin) {
    slot_bytes_ += static_cast<size_t>(partition_.rows_per_task) * (partition_.cols_per_task) * sizeof(int32_t) + 64;
  }
  ctx.RequestScratch(static_cast<size_t>(slots_) * slot_bytes_);
  if (constant_) {
    if (packed_.packed_from != weights.data || packed_.layout != Layout()) {
      if (!Pack(ctx, weights.data, ctx.has_input(2) ? ctx.input(2).data_as<int32_t>() : nullptr)) {
        return InternalError(ctx.node().Describe() + ": out of memory packing weights");
      }
      packed_.packed_from = weights.data;
    }
  } else {
    // Sized now so that Eval only refills it.
    packed_.packed_from = nullptr;
    std::vector<uint8_t> zeros(static_cast<size_t>(units_) * depth_);
    if (!Pack(ctx, zeros.data(), nullptr)) return InternalError(ctx.node().Describe() + ": out of memory packing weights");
  }
  return Status::Ok();
}

bool QuantizedFullyConnectedKernel::Pack(const KernelContext& ctx, const void* weights, const int32_t* bias) {
  (void)ctx;
  const int32_t a_zp = in_q_.zero_point + (in_type_ == DataType::kInt8 ? 128 : 0);
  const std::vector<float>& scale = arithmetic_ == Arithmetic::kXnnpack ? scales_ : w_q_.scale;
  return QPackWeights(weights, w_type_, units_, depth_, static_cast<size_t>(depth_), w_q_.zero_point.data(), true, bias,
                      a_zp, scale.data(), true, &packed_, Layout());
}

void QuantizedFullyConnectedKernel::EvalInt16(KernelContext& ctx) const {
  const int16_t* in = ctx.input(0).data_as<int16_t>();
  const int8_t* w = ctx.input(1).data_as<int8_t>();
  int16_t* out = ctx.output(0).data_as<int16_t>();
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  for (int b = 0; b < batch_; ++b) {
    const int16_t* x = in + static_cast<size_t>(b) * depth_;
    for (int o = 0; o < units_; ++o) {
      const int8_t* row = w + static_cast<size_t>(o) * depth_;
      const int32_t wzp = w_q_.zero_point[static_cast<size_t>(o)];
      int64_t acc = 0;
      for (int k = 0; k < depth_; ++k) acc += static_cast<int64_t>(x[k]) * (row[k] - wzp);
      // TFLite accumulates in the bias type: int64 bias -> the 64-bit
      // multiplier; int32 (or no) bias -> int32 and the Q31 multiplier.
      int32_t v;
      if (bias != nullptr && bias->type == DataType::kInt64) {
        acc += bias->data_as<int64_t>()[o];
        v = MultiplyByQuantizedMultiplier64(acc, multipliers_[static_cast<size_t>(o)]);
      } else {
        if (bias != nullptr) acc += bias->data_as<int32_t>()[o];
        v = MultiplyByQuantizedMultiplier(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(acc))),
                                          multipliers_[static_cast<size_t>(o)]);
      }
      v = std::clamp(v, range_.min, range_.max);
      out[static_cast<size_t>(b) * units_ + o] = static_cast<int16_t>(v);
    }
  }
}

Status QuantizedFullyConnectedKernel::Eval(KernelContext& ctx) {
  if (batch_ == 0 || units_ == 0) return Status::Ok();
  if (arithmetic_ == Arithmetic::kInt16) {
    EvalInt16(ctx);
    return Status::Ok();
  }
  if (!constant_ && !Pack(ctx, ctx.input(1).data, ctx.has_input(2) ? ctx.input(2).data_as<int32_t>() : nullptr)) {
    return InternalError(ctx.node().Describe() + ": out of memory packing weights");
  }
  const auto* input = ctx.input(0).data_as<uint8_t>();
  auto* output = ctx.output(0).data_as<uint8_t>();
  char* scratch = static_cast<char*>(ctx.scratch());
  const uint8_t xor_mask = QGemmInputBias(in_type_);
  const bool quads = packed_.layout == QGemmLayout::kQuads;
  // Quads read uint8 rows of whole quads in place.
  const bool direct = quads && xor_mask == 0 && depth_ % 4 == 0;
  const size_t row_stride = quads ? QGemmQuadRowStride(depth_) : QGemmRowStride(depth_);
  const QGemmOutput qout{out_type_, out_q_.zero_point, range_.min, range_.max};
  const int num_tasks = partition_.num_tasks();
  const int active = std::min(slots_, num_tasks);
  auto run_slot = [&](int slot) {
    char* base = scratch + static_cast<size_t>(slot) * slot_bytes_;
    auto* rows = reinterpret_cast<int16_t*>(AlignFloats64(base));
    int begin, end;
    SlotTaskRange(num_tasks, active, slot, &begin, &end);
    int widened_m0 = -1;
    for (int t = begin; t < end; ++t) {
      int m0, m1, n0, n1;
      partition_.Task(t, &m0, &m1, &n0, &n1);
      if (quads) {
        const uint8_t* a = input + static_cast<size_t>(m0) * depth_;
        size_t lda = static_cast<size_t>(depth_);
        if (!direct) {
          auto* byte_rows = reinterpret_cast<uint8_t*>(rows);
          if (m0 != widened_m0) {
            QCopyRows(a, lda, m1 - m0, depth_, xor_mask, byte_rows);
            widened_m0 = m0;
          }
          a = byte_rows;
          lda = row_stride;
        }
        QGemmQuads(m1 - m0, a, lda, packed_, qout, output + static_cast<size_t>(m0) * units_,
                   static_cast<size_t>(units_), n0, n1);
        continue;
      }
      if (m0 != widened_m0) {
        QWidenRows(input + static_cast<size_t>(m0) * depth_, static_cast<size_t>(depth_), m1 - m0, depth_, xor_mask,
                   rows);
        widened_m0 = m0;
      }
      if (arithmetic_ == Arithmetic::kXnnpack) {
        QGemm(m1 - m0, rows, row_stride, packed_, qout, output + static_cast<size_t>(m0) * units_,
              static_cast<size_t>(units_), n0, n1);
        continue;
      }
      auto* acc = reinterpret_cast<int32_t*>(
          AlignFloats64(base + static_cast<size_t>(partition_.rows_per_task) * row_stride * sizeof(int16_t) + 64));
      const size_t ldacc = static_cast<size_t>(partition_.cols_per_task);
      QGemmAcc(m1 - m0, rows, row_stride, packed_, acc, ldacc, n0, n1);
      for (int m = m0; m < m1; ++m) {
        for (int n = n0; n < n1; ++n) {
          int32_t v = MultiplyByQuantizedMultiplier(acc[static_cast<size_t>(m - m0) * ldacc + (n - n0)],
                                                    multipliers_[static_cast<size_t>(n)]) +
                      out_q_.zero_point;
          v = std::clamp(v, range_.min, range_.max);
          output[static_cast<size_t>(m) * units_ + n] = static_cast<uint8_t>(v);
        }
      }
    }
  };
  if (active <= 1) {
    run_slot(0);
  } else {
    ctx.ParallelFor(active, 1, [&](int64_t b, int64_t e) {
      for (int64_t s = b; s < e; ++s) run_slot(static_cast<int>(s));
    });
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedFullyConnected(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(FullyConnectedParams params, ParseFullyConnectedParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedFullyConnectedKernel>(params));
}

}  // namespace relite::cpu
