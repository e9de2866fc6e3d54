// GPU data-movement ops against the CPU kernels, fp32 and fp16:
// RESIZE_BILINEAR (plain, align_corners, half_pixel_centers; up, down, to
// 1x1), CONCATENATION (every axis incl. negative, channel offsets that split
// slices, 2 to 4 inputs, constant inputs, fused clamps, ranks 1 to 4),
// PAD/PADV2 (B/H/W/C paddings incl. channel offsets that are and are not
// whole slices, fill values, ranks 1 to 4), RESHAPE (same channels, moved
// channels, rank changes, -1, options-only shapes), STRIDED_SLICE (steps,
// negative steps, begin/end masks, negative indices, shrink/new axes,
// ellipsis, offset, ranks 1 to 4). Odd channel counts throughout; plus the
// reasons nodes stay on the CPU.
#include <functional>

#include <gtest/gtest.h>

#include "relite/model_writer.h"
#include "tests/testing/gpu_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::ActivationFunctionType;
using tflite::BuiltinOperator;

// Adds the op's tensors and options to `m`, declaring `out` as the output
// shape; returns the output tensor.
using MakeModel = std::function<int(SingleOpModel& m, const Shape& out)>;

// The model with its output shape declared as the CPU kernel infers it.
std::vector<uint8_t> DeclaredModel(const MakeModel& make) {
  Shape out;
  {
    SingleOpModel m;
    const int o = make(m, {});
    const Status s = m.Build();
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return {};
    out = m.GetOutputShape(o);
  }
  SingleOpModel m;
  make(m, out);
  EXPECT_TRUE(m.Build().ok());
  return m.model_bytes();
}

// The model as written (its CPU kernel may not allocate), for support checks.
std::vector<uint8_t> RawModel(const MakeModel& make, const Shape& out) {
  SingleOpModel m;
  make(m, out);
  (void)m.Build();
  return m.model_bytes();
}

std::vector<float> Ramp(const Shape& s, float scale = 0.37f) {
  std::vector<float> v(static_cast<size_t>(NumElements(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 11) - 5);
  return v;
}

class GpuShapeTest : public ::testing::TestWithParam<GpuPrecision> {
 protected:
  float atol() const { return GetParam() == GpuPrecision::kFp16 ? testing::kFp16Atol : testing::kFp32Atol; }
  float rtol() const { return GetParam() == GpuPrecision::kFp16 ? testing::kFp16Rtol : testing::kFp32Rtol; }
  void ExpectMatch(const std::vector<uint8_t>& model, Delegate* gpu, float lo = -1.f, float hi = 1.f) {
    auto r = testing::RunCpuAndGpu(model, gpu, lo, hi);
    EXPECT_EQ(r.delegated, 1) << r.report;
    EXPECT_TRUE(testing::OutputsClose(r, atol(), rtol()));
  }
  // Data movement is exact up to the storage type.
  void ExpectExact(const std::vector<uint8_t>& model, Delegate* gpu, float lo = -1.f, float hi = 1.f) {
    auto r = testing::RunCpuAndGpu(model, gpu, lo, hi);
    EXPECT_EQ(r.delegated, 1) << r.report;
    const bool fp16 = GetParam() == GpuPrecision::kFp16;
    EXPECT_TRUE(testing::OutputsClose(r, fp16 ? 1e-6f : 0.f, fp16 ? 1e-3f : 0.f));
  }
};

TEST_P(GpuShapeTest, ResizeBilinearMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Mode {
    bool align_corners, half_pixel;
    int version;
  };
  const Mode modes[] = {{false, false, 1}, {true, false, 1}, {false, true, 3}};
  const Shape inputs[] = {{1, 4, 5, 3}, {2, 3, 3, 6}, {1, 5, 4, 9}};
  const std::vector<int32_t> sizes[] = {{8, 10}, {3, 7}, {1, 1}, {7, 4}, {2, 3}};
  for (const Mode& mode : modes) {
    for (const Shape& in : inputs) {
      for (const auto& size : sizes) {
        SCOPED_TRACE(::testing::Message() << ShapeToString(in) << " -> " << size[0] << "x" << size[1] << " align_corners "
                                          << mode.align_corners << " half_pixel " << mode.half_pixel);
        ExpectMatch(DeclaredModel([&](SingleOpModel& m, const Shape& out) {
                      m.AddInput(DataType::kFloat32, in);
                      m.AddConstInput<int32_t>(DataType::kInt32, {2}, size);
                      const int o = m.AddOutput(DataType::kFloat32, out);
                      m.SetBuiltinOp(BuiltinOperator::RESIZE_BILINEAR, mode.version, tflite::BuiltinOptions::ResizeBilinearOptions,
                                     tflite::CreateResizeBilinearOptions(m.fbb(), mode.align_corners, mode.half_pixel).Union());
                      return o;
                    }),
                    gpu);
      }
    }
  }
}

TEST_P(GpuShapeTest, ConcatenationMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Case {
    std::vector<Shape> inputs;
    int axis;
    std::vector<bool> constant;  // per input; empty: none
  };
  const Case cases[] = {
      {{{1, 3, 4, 3}, {1, 3, 4, 5}}, 3, {}},                  // second input starts mid-slice
      {{{1, 3, 4, 4}, {1, 3, 4, 6}}, -1, {}},                 // aligned
      {{{1, 3, 4, 6}, {1, 3, 4, 3}, {1, 3, 4, 5}}, 3, {}},    // 6 + 3 + 5: two split offsets
      {{{1, 2, 2, 1}, {1, 2, 2, 1}, {1, 2, 2, 1}, {1, 2, 2, 2}}, 3, {}},
      {{{2, 3, 4, 5}, {2, 3, 4, 9}}, 3, {false, true}},       // a constant input
      {{{1, 3, 4, 7}, {1, 3, 4, 2}}, 3, {true, false}},
      {{{1, 2, 4, 5}, {1, 3, 4, 5}}, 1, {}},
      {{{1, 3, 2, 6}, {1, 3, 5, 6}, {1, 3, 1, 6}}, -2, {}},
      {{{1, 3, 2, 3}, {2, 3, 2, 3}}, 0, {false, true}},
      {{{2, 5, 3}, {2, 5, 6}}, 2, {}},
      {{{2, 5, 3}, {2, 2, 3}}, 1, {}},
      {{{2, 5, 3}, {1, 5, 3}}, -3, {}},
      {{{3, 5}, {3, 2}}, 1, {}},
      {{{3, 5}, {4, 5}}, 0, {}},
      {{{3}, {5}, {2}}, 0, {}},
  };
  const ActivationFunctionType acts[] = {ActivationFunctionType::NONE, ActivationFunctionType::RELU,
                                         ActivationFunctionType::RELU6, ActivationFunctionType::RELU_N1_TO_1};
  int k = 0;
  for (const Case& c : cases) {
    for (int rep = 0; rep < 2; ++rep) {
      const ActivationFunctionType act = acts[k++ % 4];
      SCOPED_TRACE(::testing::Message() << ShapeToString(c.inputs[0]) << " +" << c.inputs.size() - 1 << " more, axis " << c.axis
                                        << " act " << static_cast<int>(act));
      ExpectMatch(DeclaredModel([&](SingleOpModel& m, const Shape& out) {
                    for (size_t i = 0; i < c.inputs.size(); ++i) {
                      if (!c.constant.empty() && c.constant[i]) {
                        m.AddConstInput<float>(DataType::kFloat32, c.inputs[i], Ramp(c.inputs[i], 0.9f));
                      } else {
                        m.AddInput(DataType::kFloat32, c.inputs[i]);
                      }
                    }
                    const int o = m.AddOutput(DataType::kFloat32, out);
                    m.SetBuiltinOp(BuiltinOperator::CONCATENATION, 1, tflite::BuiltinOptions::ConcatenationOptions,
                                   tflite::CreateConcatenationOptions(m.fbb(), c.axis, act).Union());
                    return o;
                  }),
                  gpu, -3.f, 3.f);
    }
  }
}

TEST_P(GpuShapeTest, PadAndPadV2MatchCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Case {
    Shape in;
    std::vector<int32_t> pads;  // [rank, 2]
  };
  const Case cases[] = {
      {{1, 4, 5, 3}, {0, 0, 1, 2, 2, 1, 0, 0}},
      {{1, 4, 5, 3}, {0, 0, 0, 0, 0, 0, 1, 2}},  // channels, offset 1 (lane by lane)
      {{1, 3, 3, 5}, {0, 0, 0, 0, 0, 0, 4, 3}},  // channels, offset one whole slice
      {{1, 3, 3, 6}, {0, 0, 0, 0, 0, 0, 0, 5}},  // channels after only
      {{2, 3, 4, 3}, {1, 1, 0, 1, 2, 0, 0, 0}},  // batch too
      {{1, 2, 3, 9}, {0, 1, 1, 1, 1, 1, 2, 2}},  // everything
      {{2, 5, 3}, {0, 0, 1, 2, 0, 1}},
      {{2, 5, 3}, {1, 0, 0, 0, 3, 0}},
      {{3, 5}, {1, 2, 0, 3}},
      {{6}, {2, 3}},
  };
  for (const Case& c : cases) {
    const int rank = static_cast<int>(c.in.size());
    for (int variant = 0; variant < 3; ++variant) {  // PAD v1, PAD v2, PADV2
      const float fill = variant == 2 ? -0.75f : 0.f;
      SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " pads " << ::testing::PrintToString(c.pads) << " variant "
                                        << variant);
      ExpectExact(DeclaredModel([&](SingleOpModel& m, const Shape& out) {
                    m.AddInput(DataType::kFloat32, c.in);
                    m.AddConstInput<int32_t>(DataType::kInt32, {rank, 2}, c.pads);
                    if (variant == 2) m.AddConstInput<float>(DataType::kFloat32, {1}, {fill});
                    const int o = m.AddOutput(DataType::kFloat32, out);
                    if (variant == 2) {
                      m.SetBuiltinOp(BuiltinOperator::PADV2, 1);
                    } else {
                      m.SetBuiltinOp(BuiltinOperator::PAD, variant + 1);
                    }
                    return o;
                  }),
                  gpu);
    }
  }
}

TEST_P(GpuShapeTest, ReshapeMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Case {
    Shape in;
    std::vector<int32_t> shape;
  };
  const Case cases[] = {
      {{1, 4, 4, 8}, {1, 16, 8}},     // channels kept: whole slices
      {{1, 2, 3, 5}, {1, 6, 5}},      // channels kept, partial slice
      {{1, 3, 4, 5}, {1, 3, 4, 5}},   // identity
      {{2, 3, 5}, {5, 6}},            // elements move between lanes
      {{1, 3, 4, 5}, {1, 5, 4, 3}},
      {{1, 4, 4, 3}, {1, 48}},
      {{48}, {1, 4, 4, 3}},
      {{2, 6}, {3, -1}},              // inferred dimension
      {{1, 1, 1, 9}, {9}},
      {{2, 3, 3, 6}, {2, 9, 6}},
      {{6, 7}, {2, 3, 7}},
  };
  for (const Case& c : cases) {
    for (bool from_options : {false, true}) {
      SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " -> " << ::testing::PrintToString(c.shape) << " options "
                                        << from_options);
      ExpectExact(DeclaredModel([&](SingleOpModel& m, const Shape& out) {
                    m.AddInput(DataType::kFloat32, c.in);
                    if (!from_options) m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(c.shape.size())}, c.shape);
                    const int o = m.AddOutput(DataType::kFloat32, out);
                    m.SetBuiltinOp(BuiltinOperator::RESHAPE, 1, tflite::BuiltinOptions::ReshapeOptions,
                                   tflite::CreateReshapeOptions(m.fbb(), m.fbb().CreateVector(c.shape)).Union());
                    return o;
                  }),
                  gpu);
    }
  }
}

// SPLIT (equal parts) and SPLIT_V (given sizes, one of them -1) along every
// axis, negative axes included: one remap launch per output.
TEST_P(GpuShapeTest, SplitAndSplitVMatchCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Case {
    Shape in;
    int axis;
    std::vector<int32_t> sizes;  // empty: SPLIT into `parts`
    int parts;
  };
  const Case cases[] = {{{1, 6, 4, 8}, 3, {}, 2},  {{1, 6, 4, 12}, -1, {}, 3}, {{1, 6, 4, 5}, 1, {}, 3},
                        {{2, 3, 4, 6}, 0, {}, 2},  {{1, 5, 6, 7}, 2, {}, 2},    {{1, 4, 4, 10}, 3, {3, -1, 2}, 0},
                        {{1, 7, 3, 4}, 1, {2, 5}, 0}, {{12, 5}, 1, {1, 1, 3}, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " axis " << c.axis << " sizes "
                                      << ::testing::PrintToString(c.sizes) << " parts " << c.parts);
    const int rank = static_cast<int>(c.in.size());
    const size_t axis = static_cast<size_t>(c.axis < 0 ? c.axis + rank : c.axis);
    std::vector<int32_t> sizes = c.sizes;
    if (sizes.empty()) sizes.assign(static_cast<size_t>(c.parts), c.in[axis] / c.parts);
    int known = 0;
    for (int32_t v : sizes) known += v > 0 ? v : 0;
    for (int32_t& v : sizes) if (v < 0) v = c.in[axis] - known;
    ModelWriter w;
    const int x = w.AddTensor(DataType::kFloat32, c.in, "x");
    const int axis_t = w.AddConstantOf<int32_t>({}, "axis", {c.axis});
    std::vector<int> outs;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Shape s = c.in;
      s[axis] = sizes[i];
      outs.push_back(w.AddTensor(DataType::kFloat32, s, "out" + std::to_string(i)));
    }
    if (c.sizes.empty()) {
      const int n = c.parts;
      w.AddOp(static_cast<BuiltinOp>(BuiltinOperator::SPLIT), {axis_t, x}, outs,
              writer::RawOptions{static_cast<uint8_t>(tflite::BuiltinOptions::SplitOptions),
                                 [n](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSplitOptions(fbb, n).Union(); }});
    } else {
      const int n = static_cast<int>(c.sizes.size());
      const int sizes_t = w.AddConstantOf<int32_t>({n}, "sizes", c.sizes);
      w.AddOp(static_cast<BuiltinOp>(BuiltinOperator::SPLIT_V), {x, sizes_t, axis_t}, outs,
              writer::RawOptions{static_cast<uint8_t>(tflite::BuiltinOptions::SplitVOptions),
                                 [n](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSplitVOptions(fbb, n).Union(); }});
    }
    w.SetInputs({x});
    w.SetOutputs(outs);
    auto bytes = w.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    ExpectExact(*bytes, gpu);
  }
}

TEST_P(GpuShapeTest, StridedSliceMatchesCpu) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  struct Case {
    Shape in;
    std::vector<int32_t> begin, end, strides;
    int begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
    bool offset = false;
  };
  const Case cases[] = {
      {{2, 5, 6, 7}, {0, 1, 1, 0}, {2, 4, 5, 7}, {1, 1, 1, 1}},
      {{2, 5, 6, 7}, {0, 0, 1, 0}, {2, 5, 6, 7}, {1, 2, 2, 1}},
      {{2, 5, 6, 7}, {0, 0, 0, 1}, {2, 5, 6, 6}, {1, 1, 1, 1}},    // channel offset 1
      {{1, 3, 4, 9}, {0, 0, 0, 4}, {1, 3, 4, 9}, {1, 1, 1, 1}},    // channel offset one slice
      {{1, 3, 4, 9}, {0, 0, 0, 0}, {1, 3, 4, 9}, {1, 1, 1, 2}},    // channel step 2
      {{2, 5, 6, 7}, {1, -1, -1, -1}, {0, 0, 0, 0}, {-1, -1, -2, -1}, 1, 15},  // negative steps, masks
      {{2, 5, 6, 7}, {-1, 1, -4, 2}, {0, -1, 0, -2}, {1, 1, 1, 1}, 0, 5},      // negative indices
      {{2, 5, 6, 7}, {1, 0, 0, 0}, {2, 5, 6, 7}, {1, 1, 1, 1}, 0, 0, 0, 0, 1},  // shrink batch: rank 3 out
      {{1, 5, 6, 7}, {0, 0, 2, 3}, {1, 5, 3, 4}, {1, 1, 1, 1}, 0, 0, 0, 0, 8},  // shrink channels
      {{5, 6, 7}, {0, 1, 0, 0}, {0, 4, 6, 7}, {1, 1, 1, 1}, 0, 0, 0, 1},       // new axis in front
      {{2, 5, 6, 7}, {0, 1, 3}, {0, 4, 7}, {1, 1, 2}, 0, 0, 1},                // ellipsis then 2 dims
      {{2, 5, 6, 7}, {1, 1, 0, 2}, {1, 3, 6, 3}, {1, 1, 1, 1}, 0, 0, 0, 0, 0, true},  // offset
      {{4, 6, 9}, {1, 0, 2}, {4, 6, 9}, {2, 1, 3}},
      {{5, 9}, {1, 7}, {4, 0}, {1, -2}},
      {{11}, {2}, {10}, {3}},
      {{11}, {-2}, {0}, {-1}, 0, 1},
  };
  for (const Case& c : cases) {
    for (int version : {1, 4}) {
      SCOPED_TRACE(::testing::Message() << ShapeToString(c.in) << " begin " << ::testing::PrintToString(c.begin) << " end "
                                        << ::testing::PrintToString(c.end) << " strides " << ::testing::PrintToString(c.strides)
                                        << " masks " << c.begin_mask << "," << c.end_mask << "," << c.ellipsis_mask << ","
                                        << c.new_axis_mask << "," << c.shrink_mask << " offset " << c.offset);
      ExpectExact(DeclaredModel([&](SingleOpModel& m, const Shape& out) {
                    const int32_t n = static_cast<int32_t>(c.begin.size());
                    m.AddInput(DataType::kFloat32, c.in);
                    m.AddConstInput<int32_t>(DataType::kInt32, {n}, c.begin);
                    m.AddConstInput<int32_t>(DataType::kInt32, {n}, c.end);
                    m.AddConstInput<int32_t>(DataType::kInt32, {n}, c.strides);
                    const int o = m.AddOutput(DataType::kFloat32, out);
                    m.SetBuiltinOp(BuiltinOperator::STRIDED_SLICE, version, tflite::BuiltinOptions::StridedSliceOptions,
                                   tflite::CreateStridedSliceOptions(m.fbb(), c.begin_mask, c.end_mask, c.ellipsis_mask,
                                                                     c.new_axis_mask, c.shrink_mask, c.offset)
                                       .Union());
                    return o;
                  }),
                  gpu);
    }
  }
}

TEST_P(GpuShapeTest, UnsupportedNodesSayWhy) {
  RELITE_GPU_DELEGATE_OR_SKIP(gpu, GetParam());
  auto expect_reason = [&](const std::vector<uint8_t>& model, const std::string& reason, bool runs_on_cpu) {
    if (runs_on_cpu) {
      auto r = testing::RunCpuAndGpu(model, gpu);
      EXPECT_EQ(r.delegated, 0);
      EXPECT_NE(r.report.find(reason), std::string::npos) << r.report;
      EXPECT_TRUE(testing::OutputsClose(r, 0.f, 0.f));
    } else {
      const DelegationReport rep = testing::DelegationOf(model, gpu);
      EXPECT_EQ(rep.num_delegated, 0);
      EXPECT_NE(rep.ToString().find(reason), std::string::npos) << rep.ToString();
    }
  };
  // The size of a resize must be known when the model is loaded.
  expect_reason(RawModel([](SingleOpModel& m, const Shape& out) {
                  m.AddInput(DataType::kFloat32, {1, 4, 4, 3});
                  m.AddInput(DataType::kInt32, {2});
                  const int o = m.AddOutput(DataType::kFloat32, out);
                  m.SetBuiltinOp(BuiltinOperator::RESIZE_BILINEAR, 1);
                  return o;
                }, {1, 8, 8, 3}),
                "the size input must be a constant", false);
  // PADV2's fill value must be a constant.
  expect_reason(DeclaredModel([](SingleOpModel& m, const Shape& out) {
                  m.AddInput(DataType::kFloat32, {1, 3, 3, 2});
                  m.AddConstInput<int32_t>(DataType::kInt32, {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
                  m.AddInput(DataType::kFloat32, {1});
                  const int o = m.AddOutput(DataType::kFloat32, out);
                  m.SetBuiltinOp(BuiltinOperator::PADV2, 1);
                  return o;
                }),
                "the padding value must be a constant", true);
  // Rank 5 has no GPU layout.
  expect_reason(DeclaredModel([](SingleOpModel& m, const Shape& out) {
                  m.AddInput(DataType::kFloat32, {1, 2, 3, 4, 5});
                  m.AddInput(DataType::kFloat32, {1, 2, 3, 4, 5});
                  const int o = m.AddOutput(DataType::kFloat32, out);
                  m.SetBuiltinOp(BuiltinOperator::CONCATENATION, 1, tflite::BuiltinOptions::ConcatenationOptions,
                                 tflite::CreateConcatenationOptions(m.fbb(), 4).Union());
                  return o;
                }),
                "rank 5", true);
  expect_reason(DeclaredModel([](SingleOpModel& m, const Shape& out) {
                  m.AddInput(DataType::kFloat32, {2, 3, 4, 5});
                  m.AddConstInput<int32_t>(DataType::kInt32, {5}, {1, 2, 3, 4, 5});
                  const int o = m.AddOutput(DataType::kFloat32, out);
                  m.SetBuiltinOp(BuiltinOperator::RESHAPE, 1);
                  return o;
                }),
                "rank 5", true);
  expect_reason(DeclaredModel([](SingleOpModel& m, const Shape& out) {
                  m.AddInput(DataType::kFloat32, {2, 3, 4, 5, 3});
                  m.AddConstInput<int32_t>(DataType::kInt32, {5}, {0, 0, 0, 0, 1});
                  m.AddConstInput<int32_t>(DataType::kInt32, {5}, {2, 3, 4, 5, 3});
                  m.AddConstInput<int32_t>(DataType::kInt32, {5}, {1, 1, 1, 1, 1});
                  const int o = m.AddOutput(DataType::kFloat32, out);
                  m.SetBuiltinOp(BuiltinOperator::STRIDED_SLICE, 1);
                  return o;
                }),
                "rank 5", true);
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuShapeTest, ::testing::Values(GpuPrecision::kFp32, GpuPrecision::kFp16),
                         [](const auto& info) { return info.param == GpuPrecision::kFp32 ? "fp32" : "fp16"; });

}  // namespace
}  // namespace relite
