// GPU AVERAGE_POOL_2D and MAX_POOL_2D against the CPU kernels: SAME/VALID
// padding (windows clipped at the borders, the average dividing by the
// in-bounds cells only), strides, square and non-square filters, global
// pooling, fused clamps, batch 2, odd channel counts (a partial last slice),
// fp32 and fp16 (8-bit pools: quantized_test.cc).
#include <gtest/gtest.h>

#include "tests/testing/gpu_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::ActivationFunctionType;
using tflite::BuiltinOperator;
using tflite::Padding;

std::vector<uint8_t> PoolModel(BuiltinOperator op, const Shape& in, const Shape& out, Padding padding, int fh, int fw, int sh,
                               int sw, ActivationFunctionType act, DataType type = DataType::kFloat32,
                               const Quantization& quant = {}) {
  SingleOpModel m;
  m.AddInput(type, in, quant);
  m.AddOutput(type, out, quant);
  m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::Pool2DOptions,
                 tflite::CreatePool2DOptions(m.fbb(), padding, sw, sh, fw, fh, act).Union());
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

int OutSize(Padding p, int in, int filter, int stride) {
  return p == Padding::SAME ? (in + stride - 1) / stride : (in - filter + stride) / stride;
}

class GpuPoolTest : public ::testing::TestWithParam<GpuPrecision> {
 protected:
  float atol() const { return GetParam() == GpuPrecision::kFp16 ? testing::kFp16Atol : testing::kFp32Atol; }
  float rtol() const { return GetParam() == GpuPrecision::kFp16 ? testing::kFp16Rtol : testing::kFp32Rtol; }
};

TEST_P(GpuPoolTest, SweepMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Window {
    int fh, fw, sh, sw;
  };
  const Window windows[] = {{2, 2, 2, 2}, {3, 3, 1, 1}, {3, 3, 2, 2}, {2, 3, 1, 2}, {1, 1, 2, 2}, {5, 4, 3, 2}};
  const Shape inputs[] = {{1, 7, 9, 5}, {2, 6, 5, 3}, {1, 8, 8, 9}, {1, 5, 6, 4}};
  const ActivationFunctionType acts[] = {ActivationFunctionType::NONE, ActivationFunctionType::RELU,
                                         ActivationFunctionType::RELU6, ActivationFunctionType::RELU_N1_TO_1};
  int k = 0;
  for (BuiltinOperator op : {BuiltinOperator::AVERAGE_POOL_2D, BuiltinOperator::MAX_POOL_2D}) {
    for (const Shape& in : inputs) {
      for (Padding pad : {Padding::SAME, Padding::VALID}) {
        for (const Window& w : windows) {
          if (w.fh > in[1] || w.fw > in[2]) continue;
          const ActivationFunctionType act = acts[k++ % 4];
          const Shape out{in[0], OutSize(pad, in[1], w.fh, w.sh), OutSize(pad, in[2], w.fw, w.sw), in[3]};
          SCOPED_TRACE(::testing::Message() << tflite::EnumNameBuiltinOperator(op) << " " << ShapeToString(in)
                                            << (pad == Padding::SAME ? " SAME" : " VALID") << " filter " << w.fh << "x" << w.fw
                                            << " stride " << w.sh << "x" << w.sw << " act " << static_cast<int>(act));
          auto r = testing::RunCpuAndGpu(PoolModel(op, in, out, pad, w.fh, w.fw, w.sh, w.sw, act), gpu, -3.f, 3.f);
          EXPECT_EQ(r.delegated, 1) << r.report;
          EXPECT_TRUE(testing::OutputsClose(r, atol(), rtol()));
        }
      }
    }
  }
}

TEST_P(GpuPoolTest, GlobalPoolingMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  for (BuiltinOperator op : {BuiltinOperator::AVERAGE_POOL_2D, BuiltinOperator::MAX_POOL_2D}) {
    // Planes of 16..255 cells (the first two and the last) take the one-launch
    // kernel of 8 lanes per slice; the three between the two-launch path for
    // planes of >= 256 cells (64x64, a plane that is not a multiple of the
    // chunk, SAME padding with a window larger than the input).
    struct Global {
      Shape in;
      Padding pad;
      int fh, fw;
      ActivationFunctionType act;
    };
    for (const Global& g : {Global{{1, 7, 7, 6}, Padding::VALID, 7, 7, ActivationFunctionType::NONE},
                            Global{{2, 12, 10, 13}, Padding::VALID, 12, 10, ActivationFunctionType::NONE},
                            Global{{1, 64, 64, 16}, Padding::VALID, 64, 64, ActivationFunctionType::RELU},
                            Global{{2, 20, 13, 6}, Padding::VALID, 20, 13, ActivationFunctionType::NONE},
                            Global{{1, 17, 16, 5}, Padding::SAME, 40, 40, ActivationFunctionType::RELU6},
                            // 30 slices (a partial work group of the 8-lane kernel), 37 channels.
                            Global{{3, 5, 4, 37}, Padding::VALID, 5, 4, ActivationFunctionType::RELU}}) {
      const Shape& in = g.in;
      SCOPED_TRACE(::testing::Message() << tflite::EnumNameBuiltinOperator(op) << " " << ShapeToString(in));
      const int stride = g.pad == Padding::SAME ? 100 : 1;
      const auto model = PoolModel(op, in, {in[0], 1, 1, in[3]}, g.pad, g.fh, g.fw, stride, stride, g.act);
      auto r = testing::RunCpuAndGpu(model, gpu);
      EXPECT_EQ(r.delegated, 1) << r.report;
      EXPECT_TRUE(testing::OutputsClose(r, atol(), rtol()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuPoolTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
