// 8-bit conv-group kernels (uint8 per-tensor, as in the quantized MobileNets)
// on layer shapes of real models, timed through the whole runtime: a one-op
// model written with ModelWriter, loaded, and Invoke() measured. Benchmarks
// are not tests; they check nothing.
//
//   relite_kernel_bench --benchmark_filter=BM_Quantized
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "relite/model_writer.h"
#include "relite/relite.h"

namespace relite {
namespace {

Quantization PerTensor(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(byte(rng));
  return v;
}

// A loaded one-op model and its interpreter, input filled with random bytes.
struct Loaded {
  std::unique_ptr<Model> model;
  BuiltinOpResolver resolver;
  std::unique_ptr<Interpreter> interpreter;
};

bool Load(const ModelWriter& w, int threads, Loaded* out) {
  auto bytes = w.Finish();
  if (!bytes.ok()) return false;
  auto model = Model::FromBuffer(bytes->data(), bytes->size(), "quantized bench");
  if (!model.ok()) return false;
  out->model = std::move(model).value();
  auto interpreter = InterpreterBuilder(*out->model, out->resolver).SetNumThreads(threads).Build();
  if (!interpreter.ok() || !(*interpreter)->AllocateTensors().ok()) return false;
  out->interpreter = std::move(interpreter).value();
  Tensor* in = out->interpreter->input_tensor(0);
  const auto noise = RandomBytes(in->bytes, 3);
  std::copy(noise.begin(), noise.end(), static_cast<uint8_t*>(in->data));
  return true;
}

// Finishes the one-op model (graph input `in`, output `out`), loads it and
// times Invoke().
void RunOneOp(benchmark::State& state, ModelWriter& mw, int in, int out, int threads, double macs) {
  mw.SetInputs({in});
  mw.SetOutputs({out});
  Loaded m;
  if (!Load(mw, threads, &m)) {
    state.SkipWithError("could not build the model");
    return;
  }
  for (auto _ : state) {
    if (!m.interpreter->Invoke().ok()) {
      state.SkipWithError("Invoke failed");
      return;
    }
  }
  state.counters["GMAC/s"] = benchmark::Counter(macs, benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::kIs1000);
}

// Args: H, W, Cin, Cout, K, stride, threads.
void BM_QuantizedConv2D(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0)), w = static_cast<int>(state.range(1));
  const int cin = static_cast<int>(state.range(2)), cout = static_cast<int>(state.range(3));
  const int k = static_cast<int>(state.range(4)), stride = static_cast<int>(state.range(5));
  const int threads = static_cast<int>(state.range(6));
  const int oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
  ModelWriter mw("quantized conv bench");
  const int in = mw.AddTensor(DataType::kUInt8, {1, h, w, cin}, "in", PerTensor(0.0078125f, 128));
  const int filter = mw.AddConstant(DataType::kUInt8, {cout, k, k, cin}, "filter",
                                    RandomBytes(static_cast<size_t>(cout) * k * k * cin, 1), PerTensor(0.02f, 120));
  const int bias = mw.AddConstantOf<int32_t>({cout}, "bias", std::vector<int32_t>(static_cast<size_t>(cout), 100),
                                             PerTensor(0.0078125f * 0.02f, 0));
  const int out = mw.AddTensor(DataType::kUInt8, {1, oh, ow, cout}, "out", PerTensor(0.05f, 0));
  writer::Conv2DOptions options;
  options.stride_w = options.stride_h = stride;
  options.activation = writer::Activation::kRelu6;
  mw.AddOp(BuiltinOp::kConv2D, {in, filter, bias}, {out}, options);
  RunOneOp(state, mw, in, out, threads, static_cast<double>(oh) * ow * cout * k * k * cin);
}
BENCHMARK(BM_QuantizedConv2D)
    ->ArgNames({"h", "w", "cin", "cout", "k", "s", "threads"})
    ->Args({128, 128, 3, 8, 3, 2, 1})      // mobilenet_v1_0.25_128 first layer (8 output channels)
    ->Args({224, 224, 3, 32, 3, 2, 1})     // mobilenet_v2 first layer
    ->Args({56, 56, 24, 144, 1, 1, 1})     // mobilenet_v2 expansion
    ->Args({1, 1, 1024, 1001, 1, 1, 1})    // mobilenet_v1 classifier on one pixel (byte-packed weights)
    ->Args({1, 1, 1024, 1001, 1, 1, 2})
    ->UseRealTime();

// int8 activations with per-channel int8 weights (zero point 0), as TF2's
// post-training quantization writes them (tf2_mobilenet_v2_1.0_224_ptq).
// Args: H, W, Cin, Cout, K, stride, threads.
void BM_QuantizedConv2DInt8(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0)), w = static_cast<int>(state.range(1));
  const int cin = static_cast<int>(state.range(2)), cout = static_cast<int>(state.range(3));
  const int k = static_cast<int>(state.range(4)), stride = static_cast<int>(state.range(5));
  const int threads = static_cast<int>(state.range(6));
  const int oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
  ModelWriter mw("int8 conv bench");
  const int in = mw.AddTensor(DataType::kInt8, {1, h, w, cin}, "in", PerTensor(0.0235f, -128));
  Quantization wq;
  for (int o = 0; o < cout; ++o) {
    wq.scale.push_back(0.01f + 0.0001f * static_cast<float>(o % 7));
    wq.zero_point.push_back(0);
  }
  wq.quantized_dimension = 0;
  std::vector<uint8_t> weights = RandomBytes(static_cast<size_t>(cout) * k * k * cin, 1);
  for (auto& b : weights) b = b == 0x80 ? 0x81 : b;  // int8 weights are in [-127, 127]
  const int filter = mw.AddConstant(DataType::kInt8, {cout, k, k, cin}, "filter", weights, wq);
  Quantization bq;
  for (float s : wq.scale) {
    bq.scale.push_back(s * 0.0235f);
    bq.zero_point.push_back(0);
  }
  const int bias = mw.AddConstantOf<int32_t>({cout}, "bias", std::vector<int32_t>(static_cast<size_t>(cout), 100), bq);
  const int out = mw.AddTensor(DataType::kInt8, {1, oh, ow, cout}, "out", PerTensor(0.05f, -128));
  writer::Conv2DOptions options;
  options.stride_w = options.stride_h = stride;
  options.activation = writer::Activation::kRelu6;
  mw.AddOp(BuiltinOp::kConv2D, {in, filter, bias}, {out}, options);
  RunOneOp(state, mw, in, out, threads, static_cast<double>(oh) * ow * cout * k * k * cin);
}
BENCHMARK(BM_QuantizedConv2DInt8)
    ->ArgNames({"h", "w", "cin", "cout", "k", "s", "threads"})
    ->Args({224, 224, 3, 32, 3, 2, 1})    // tf2 mobilenet_v2 first layer
    ->Args({112, 112, 16, 96, 1, 1, 1})   // expansion, K = 16
    ->Args({56, 56, 24, 144, 1, 1, 1})    // expansion, K = 24
    ->Args({56, 56, 144, 24, 1, 1, 1})    // projection
    ->Args({14, 14, 576, 96, 1, 1, 1})
    ->Args({7, 7, 320, 1280, 1, 1, 1})    // last 1x1: the weights are the traffic
    ->Args({7, 7, 160, 960, 1, 1, 2})     // 49 rows for two threads
    ->UseRealTime();

// Args: H, W, C, K, stride, threads.
void BM_QuantizedDepthwiseConv2D(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0)), w = static_cast<int>(state.range(1));
  const int c = static_cast<int>(state.range(2)), k = static_cast<int>(state.range(3));
  const int stride = static_cast<int>(state.range(4)), threads = static_cast<int>(state.range(5));
  const int oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
  ModelWriter mw("quantized depthwise bench");
  const int in = mw.AddTensor(DataType::kUInt8, {1, h, w, c}, "in", PerTensor(0.02f, 0));
  const int filter = mw.AddConstant(DataType::kUInt8, {1, k, k, c}, "filter",
                                    RandomBytes(static_cast<size_t>(k) * k * c, 2), PerTensor(0.03f, 127));
  const int bias = mw.AddConstantOf<int32_t>({c}, "bias", std::vector<int32_t>(static_cast<size_t>(c), 50),
                                             PerTensor(0.02f * 0.03f, 0));
  const int out = mw.AddTensor(DataType::kUInt8, {1, oh, ow, c}, "out", PerTensor(0.05f, 0));
  writer::DepthwiseConv2DOptions options;
  options.stride_w = options.stride_h = stride;
  options.activation = writer::Activation::kRelu6;
  mw.AddOp(BuiltinOp::kDepthwiseConv2D, {in, filter, bias}, {out}, options);
  RunOneOp(state, mw, in, out, threads, static_cast<double>(oh) * ow * c * k * k);
}
BENCHMARK(BM_QuantizedDepthwiseConv2D)
    ->ArgNames({"h", "w", "c", "k", "s", "threads"})
    ->Args({64, 64, 8, 3, 1, 1})     // mobilenet_v1_0.25_128: 8 channels (the 8-channel block)
    ->Args({112, 112, 32, 3, 1, 1})  // mobilenet_v2
    ->Args({14, 14, 384, 3, 1, 1})
    ->UseRealTime();

// Args: batch, depth, units, threads.
void BM_QuantizedFullyConnected(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0)), depth = static_cast<int>(state.range(1));
  const int units = static_cast<int>(state.range(2)), threads = static_cast<int>(state.range(3));
  ModelWriter mw("quantized fully connected bench");
  const int in = mw.AddTensor(DataType::kUInt8, {batch, depth}, "in", PerTensor(0.02f, 3));
  const int weights = mw.AddConstant(DataType::kUInt8, {units, depth}, "weights",
                                     RandomBytes(static_cast<size_t>(units) * depth, 4), PerTensor(0.01f, 128));
  const int bias = mw.AddConstantOf<int32_t>({units}, "bias", std::vector<int32_t>(static_cast<size_t>(units), 0),
                                             PerTensor(0.02f * 0.01f, 0));
  const int out = mw.AddTensor(DataType::kUInt8, {batch, units}, "out", PerTensor(0.1f, 128));
  mw.AddOp(BuiltinOp::kFullyConnected, {in, weights, bias}, {out}, writer::FullyConnectedOptions{});
  RunOneOp(state, mw, in, out, threads, static_cast<double>(batch) * depth * units);
}
BENCHMARK(BM_QuantizedFullyConnected)
    ->ArgNames({"batch", "depth", "units", "threads"})
    ->Args({1, 1280, 1001, 1})  // byte-packed weights (one row)
    ->Args({3, 1280, 1001, 1})  // int16 panels
    ->UseRealTime();

}  // namespace
}  // namespace relite
