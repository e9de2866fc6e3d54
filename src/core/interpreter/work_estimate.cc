#include "src/core/interpreter/work_estimate.h"

#include <algorithm>

#include "tflite_generated.h"

namespace relite {
namespace {

using Op = tflite::BuiltinOperator;

double Elements(const Tensor& t) {
  double n = 1.0;
  for (int32_t d : t.shape) n *= d > 0 ? static_cast<double>(d) : 0.0;
  return n;
}

double LastDim(const Tensor& t) { return t.shape.empty() ? 1.0 : std::max(1.0, static_cast<double>(t.shape.back())); }

}  // namespace

double EstimateWeightedMacs(const Node& node, const TensorLookup& lookup) {
  auto tensor = [&](const std::vector<int>& list, size_t i) -> const Tensor* {
    return i < list.size() && list[i] >= 0 ? lookup(list[i]) : nullptr;
  };
  const Tensor* out = tensor(node.outputs, 0);
  // Output elements x (weights per output channel): CONV_2D (KH*KW*Cin),
  // DEPTHWISE_CONV_2D (KH*KW), FULLY_CONNECTED (input depth).
  auto weighted = [&](size_t weights_slot) -> double {
    const Tensor* w = tensor(node.inputs, weights_slot);
    if (out == nullptr || w == nullptr) return 0.0;
    return Elements(*out) * Elements(*w) / LastDim(*out);
  };
  // Input elements x KH*KW*Cout: each input pixel scatters into a window.
  auto transposed = [&](size_t weights_slot, size_t input_slot) -> double {
    const Tensor* w = tensor(node.inputs, weights_slot);
    const Tensor* in = tensor(node.inputs, input_slot);
    if (w == nullptr || in == nullptr) return 0.0;
    return Elements(*in) * Elements(*w) / LastDim(*w);
  };
  double work = -1.0;
  if (!node.is_custom()) {
    switch (static_cast<Op>(node.builtin_code)) {
      case Op::CONV_2D:
      case Op::DEPTHWISE_CONV_2D:
      case Op::FULLY_CONNECTED:
        work = weighted(1);
        break;
      case Op::TRANSPOSE_CONV:
        work = transposed(1, 2);
        break;
      case Op::BATCH_MATMUL: {
        const Tensor* lhs = tensor(node.inputs, 0);
        work = 0.0;
        if (out != nullptr && lhs != nullptr) {
          const double k = lhs->rank() >= 2 ? std::max<double>(lhs->shape[lhs->shape.size() - 1], lhs->shape[lhs->shape.size() - 2])
                                            : LastDim(*lhs);
          work = Elements(*out) * std::max(1.0, k);
        }
        break;
      }
      case Op::LSTM:
      case Op::UNIDIRECTIONAL_SEQUENCE_LSTM:
      case Op::BIDIRECTIONAL_SEQUENCE_LSTM:
      case Op::SVDF:
      case Op::RNN:
      case Op::UNIDIRECTIONAL_SEQUENCE_RNN: {
        // Every weight is used once per step (batch x time rows of the input).
        const Tensor* in = tensor(node.inputs, 0);
        const double steps = in != nullptr ? Elements(*in) / LastDim(*in) : 1.0;
        work = 0.0;
        for (size_t i = 1; i < node.inputs.size(); ++i) {
          if (const Tensor* w = tensor(node.inputs, i)) work += Elements(*w) * steps;
        }
        break;
      }
      default:
        break;
    }
  } else if (node.op_name == "Convolution2DTransposeBias") {
    work = transposed(1, 0);
  }
  return work;
}

double EstimateNodeMacs(const Node& node, const std::vector<Tensor>& tensors) {
  auto lookup = [&](int t) -> const Tensor* {
    return t >= 0 && static_cast<size_t>(t) < tensors.size() ? &tensors[static_cast<size_t>(t)] : nullptr;
  };
  auto tensor = [&](const std::vector<int>& list, size_t i) -> const Tensor* {
    return i < list.size() ? lookup(list[i]) : nullptr;
  };
  double work = std::max(0.0, EstimateWeightedMacs(node, lookup));
  // Everything reads its inputs and writes its outputs at least once.
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (const Tensor* t = tensor(node.inputs, i)) work += Elements(*t);
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (const Tensor* t = tensor(node.outputs, i)) work += Elements(*t);
  }
  return work;
}

}  // namespace relite
