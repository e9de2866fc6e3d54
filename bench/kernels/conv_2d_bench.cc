// Conv-group kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
// TRANSPOSE_CONV) on layer shapes of real mobile models, timed through the
// whole runtime: a one-op .tflite is written in memory, loaded, and Invoke()
// is measured. Benchmarks are not tests; they check nothing.
//
// The bench executable links only the runtime (not tests/testing), so the
// one-op model is written here with the schema's builders. With
// RELITE_BENCH_WRITE_MODELS=DIR each model is also written to DIR (named
// after the benchmark), so another runtime can time the same layer:
//   python3 bench/models/litert_table.py --models-dir DIR --models ...
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "relite/relite.h"
#include "tflite_generated.h"

namespace relite {
namespace {

// A one-op model: one activation input (graph input 0) and constants.
class OneOpModel {
 public:
  OneOpModel() { buffers_.push_back(tflite::CreateBuffer(fbb_)); }

  int AddInput(const Shape& shape) { return AddTensor(shape, 0, tflite::TensorType::FLOAT32, true); }
  template <typename T>
  int AddConst(const Shape& shape, const std::vector<T>& values, tflite::TensorType type) {
    fbb_.ForceVectorAlignment(values.size() * sizeof(T), 1, 16);
    const auto data = fbb_.CreateVector(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T));
    buffers_.push_back(tflite::CreateBuffer(fbb_, data));
    return AddTensor(shape, static_cast<uint32_t>(buffers_.size() - 1), type, false);
  }
  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  // Finishes the model with the op and its options and builds an interpreter.
  bool Build(tflite::BuiltinOperator op, const std::vector<int32_t>& op_inputs, tflite::BuiltinOptions options_type,
             flatbuffers::Offset<void> options, int num_threads, const std::string& name, const Shape& out_shape) {
    // The output's declared shape is the real one: LiteRT's XNNPACK delegate
    // declines a node whose output shape is left to be inferred.
    const int out = static_cast<int>(tensors_.size());
    tensors_.push_back(tflite::CreateTensor(fbb_, fbb_.CreateVector(out_shape),
                                            tflite::TensorType::FLOAT32, 0, fbb_.CreateString("out")));
    const std::vector<int32_t> outputs = {out};
    auto opcode = tflite::CreateOperatorCode(
        fbb_, static_cast<int8_t>(std::min<int32_t>(static_cast<int32_t>(op), 127)), 0, 1, op);
    auto oper = tflite::CreateOperator(fbb_, 0, fbb_.CreateVector(op_inputs), fbb_.CreateVector(outputs), options_type,
                                       options);
    auto subgraph = tflite::CreateSubGraph(fbb_, fbb_.CreateVector(tensors_), fbb_.CreateVector(graph_inputs_),
                                           fbb_.CreateVector(outputs), fbb_.CreateVector(&oper, 1));
    auto model = tflite::CreateModel(fbb_, 3, fbb_.CreateVector(&opcode, 1), fbb_.CreateVector(&subgraph, 1),
                                     fbb_.CreateString("conv bench"), fbb_.CreateVector(buffers_));
    tflite::FinishModelBuffer(fbb_, model);
    if (const char* dir = std::getenv("RELITE_BENCH_WRITE_MODELS"); dir != nullptr && *dir != '\0') {
      std::ofstream(std::string(dir) + "/" + name + ".tflite", std::ios::binary)
          .write(reinterpret_cast<const char*>(fbb_.GetBufferPointer()), static_cast<std::streamsize>(fbb_.GetSize()));
    }
    auto loaded = Model::FromBuffer(fbb_.GetBufferPointer(), fbb_.GetSize(), "conv_bench");
    if (!loaded.ok()) return false;
    model_ = std::move(loaded).value();
    auto interpreter = InterpreterBuilder(*model_, resolver_).SetNumThreads(num_threads).Build();
    if (!interpreter.ok()) return false;
    interpreter_ = std::move(interpreter).value();
    if (!interpreter_->AllocateTensors().ok()) return false;
    Tensor* in = interpreter_->input_tensor(0);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    float* data = static_cast<float*>(in->data);
    for (int64_t i = 0; i < in->num_elements(); ++i) data[i] = dist(rng);
    return true;
  }
  Interpreter& interpreter() { return *interpreter_; }

 private:
  int AddTensor(const Shape& shape, uint32_t buffer, tflite::TensorType type, bool graph_input) {
    const int index = static_cast<int>(tensors_.size());
    tensors_.push_back(
        tflite::CreateTensor(fbb_, fbb_.CreateVector(shape), type, buffer, fbb_.CreateString(std::to_string(index))));
    if (graph_input) graph_inputs_.push_back(index);
    return index;
  }

  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers_;
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors_;
  std::vector<int32_t> graph_inputs_;
  BuiltinOpResolver resolver_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Interpreter> interpreter_;
};

// "conv_2d_112_112_16_64_1_1_1": the op and the benchmark's arguments.
std::string ModelName(const char* op, const benchmark::State& state, int args) {
  std::string name = op;
  for (int i = 0; i < args; ++i) name += "_" + std::to_string(state.range(i));
  return name;
}

std::vector<float> RandomValues(int64_t n) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

void RunInvokeLoop(benchmark::State& state, OneOpModel& m, double flops_per_invoke) {
  for (auto _ : state) {
    if (!m.interpreter().Invoke().ok()) {
      state.SkipWithError("Invoke failed");
      return;
    }
  }
  state.counters["GFLOPS"] = benchmark::Counter(flops_per_invoke * static_cast<double>(state.iterations()) * 1e-9,
                                                benchmark::Counter::kIsRate);
}

// Args: in_h, in_w, in_c, out_c, kernel, stride, threads.
void BM_Conv2D(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0)), w = static_cast<int>(state.range(1));
  const int cin = static_cast<int>(state.range(2)), cout = static_cast<int>(state.range(3));
  const int k = static_cast<int>(state.range(4)), stride = static_cast<int>(state.range(5));
  OneOpModel m;
  const int in = m.AddInput({1, h, w, cin});
  const int filter =
      m.AddConst<float>({cout, k, k, cin}, RandomValues(int64_t{cout} * k * k * cin), tflite::TensorType::FLOAT32);
  const int bias = m.AddConst<float>({cout}, RandomValues(cout), tflite::TensorType::FLOAT32);
  auto options =
      tflite::CreateConv2DOptions(m.fbb(), tflite::Padding::SAME, stride, stride, tflite::ActivationFunctionType::RELU6)
          .Union();
  if (!m.Build(tflite::BuiltinOperator::CONV_2D, {in, filter, bias}, tflite::BuiltinOptions::Conv2DOptions, options,
               static_cast<int>(state.range(6)), ModelName("conv_2d", state, 7),
               {1, (h + stride - 1) / stride, (w + stride - 1) / stride, cout})) {
    state.SkipWithError("build failed");
    return;
  }
  const double out_pixels = static_cast<double>((h + stride - 1) / stride) * ((w + stride - 1) / stride);
  RunInvokeLoop(state, m, 2.0 * out_pixels * cout * k * k * cin);
}
BENCHMARK(BM_Conv2D)
    ->ArgNames({"h", "w", "cin", "cout", "k", "s", "threads"})
    ->Args({128, 128, 24, 24, 3, 1, 1})
    ->Args({128, 128, 24, 24, 3, 1, 2})
    ->Args({32, 32, 96, 24, 1, 1, 1})
    ->Args({32, 32, 96, 24, 1, 1, 2})
    ->Args({224, 224, 3, 32, 3, 2, 1})
    ->Args({224, 224, 3, 24, 3, 2, 1})  // hand_landmark_lite's layers at 112x112
    ->Args({112, 112, 16, 64, 1, 1, 1})
    ->Args({28, 28, 16, 64, 1, 1, 1})
    ->Args({112, 112, 24, 16, 1, 1, 1})
    ->Args({64, 64, 24, 24, 1, 1, 1})
    ->Args({64, 64, 24, 28, 1, 1, 1})
    ->Args({64, 64, 24, 32, 1, 1, 1})
    ->Args({56, 56, 16, 96, 1, 1, 1})
    ->Args({7, 7, 672, 112, 1, 1, 1})
    ->Args({7, 7, 672, 112, 1, 1, 2})  // 49 rows for two threads
    ->Args({7, 7, 112, 672, 1, 1, 2})
    ->Args({7, 7, 112, 672, 1, 1, 1})
    ->Args({14, 14, 64, 384, 1, 1, 1})
    ->Args({14, 14, 64, 384, 1, 1, 2})  // 196 rows for two threads
    ->Args({14, 14, 384, 64, 1, 1, 1})
    ->Args({14, 14, 384, 64, 1, 1, 2})
    ->Args({128, 128, 3, 24, 5, 2, 1})
    ->Args({128, 128, 3, 24, 5, 2, 2})
    ->Args({56, 56, 64, 128, 1, 1, 1})
    ->Args({56, 56, 64, 128, 1, 1, 2})
    ->Args({14, 14, 256, 256, 3, 1, 1})
    ->Args({7, 7, 1024, 1024, 1, 1, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Args: in_h, in_w, channels, kernel, stride, threads.
void BM_DepthwiseConv2D(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0)), w = static_cast<int>(state.range(1));
  const int c = static_cast<int>(state.range(2)), k = static_cast<int>(state.range(3));
  const int stride = static_cast<int>(state.range(4));
  OneOpModel m;
  const int in = m.AddInput({1, h, w, c});
  const int filter = m.AddConst<float>({1, k, k, c}, RandomValues(int64_t{k} * k * c), tflite::TensorType::FLOAT32);
  const int bias = m.AddConst<float>({c}, RandomValues(c), tflite::TensorType::FLOAT32);
  auto options = tflite::CreateDepthwiseConv2DOptions(m.fbb(), tflite::Padding::SAME, stride, stride, 1,
                                                      tflite::ActivationFunctionType::RELU6)
                     .Union();
  if (!m.Build(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, {in, filter, bias},
               tflite::BuiltinOptions::DepthwiseConv2DOptions, options, static_cast<int>(state.range(5)),
               ModelName("depthwise_conv_2d", state, 6), {1, (h + stride - 1) / stride, (w + stride - 1) / stride, c})) {
    state.SkipWithError("build failed");
    return;
  }
  const double out_pixels = static_cast<double>((h + stride - 1) / stride) * ((w + stride - 1) / stride);
  RunInvokeLoop(state, m, 2.0 * out_pixels * c * k * k);
}
BENCHMARK(BM_DepthwiseConv2D)
    ->ArgNames({"h", "w", "c", "k", "s", "threads"})
    ->Args({112, 112, 32, 3, 1, 1})
    ->Args({112, 112, 32, 3, 1, 2})
    ->Args({112, 112, 96, 3, 2, 1})
    ->Args({112, 112, 24, 3, 1, 1})
    ->Args({112, 112, 24, 3, 1, 2})
    ->Args({112, 112, 64, 3, 2, 1})
    ->Args({28, 28, 144, 5, 1, 1})
    ->Args({14, 14, 576, 3, 1, 1})
    ->Args({14, 14, 288, 3, 1, 1})
    ->Args({14, 14, 288, 3, 1, 2})
    ->Args({14, 14, 384, 5, 1, 1})
    ->Args({14, 14, 384, 5, 1, 2})
    ->Args({14, 14, 384, 5, 2, 1})  // hand_landmark_lite's stride-2 14x14 layer
    ->Args({14, 14, 384, 5, 2, 2})
    ->Args({7, 7, 672, 5, 1, 1})
    ->Args({7, 7, 672, 5, 1, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Args: batch, depth, units, threads.
void BM_FullyConnected(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0)), depth = static_cast<int>(state.range(1));
  const int units = static_cast<int>(state.range(2));
  OneOpModel m;
  const int in = m.AddInput({batch, depth});
  const int weights =
      m.AddConst<float>({units, depth}, RandomValues(int64_t{units} * depth), tflite::TensorType::FLOAT32);
  const int bias = m.AddConst<float>({units}, RandomValues(units), tflite::TensorType::FLOAT32);
  auto options = tflite::CreateFullyConnectedOptions(m.fbb()).Union();
  if (!m.Build(tflite::BuiltinOperator::FULLY_CONNECTED, {in, weights, bias},
               tflite::BuiltinOptions::FullyConnectedOptions, options, static_cast<int>(state.range(3)),
               ModelName("fully_connected", state, 4), {batch, units})) {
    state.SkipWithError("build failed");
    return;
  }
  RunInvokeLoop(state, m, 2.0 * batch * depth * units);
}
BENCHMARK(BM_FullyConnected)
    ->ArgNames({"batch", "depth", "units", "threads"})
    ->Args({1, 1024, 1000, 1})
    ->Args({1, 1024, 1000, 2})
    ->Args({16, 512, 512, 1})
    ->Args({64, 256, 256, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Args: in_h, in_w, in_c, out_c, kernel, stride, threads.
void BM_TransposeConv(benchmark::State& state) {
  const int h = static_cast<int>(state.range(0)), w = static_cast<int>(state.range(1));
  const int cin = static_cast<int>(state.range(2)), cout = static_cast<int>(state.range(3));
  const int k = static_cast<int>(state.range(4)), stride = static_cast<int>(state.range(5));
  OneOpModel m;
  const int in = m.AddInput({1, h, w, cin});
  const int shape =
      m.AddConst<int32_t>({4}, std::vector<int32_t>{1, h * stride, w * stride, cout}, tflite::TensorType::INT32);
  const int weights =
      m.AddConst<float>({cout, k, k, cin}, RandomValues(int64_t{cout} * k * k * cin), tflite::TensorType::FLOAT32);
  const int bias = m.AddConst<float>({cout}, RandomValues(cout), tflite::TensorType::FLOAT32);
  auto options = tflite::CreateTransposeConvOptions(m.fbb(), tflite::Padding::SAME, stride, stride).Union();
  if (!m.Build(tflite::BuiltinOperator::TRANSPOSE_CONV, {shape, weights, in, bias},
               tflite::BuiltinOptions::TransposeConvOptions, options, static_cast<int>(state.range(6)),
               ModelName("transpose_conv", state, 7), {1, h * stride, w * stride, cout})) {
    state.SkipWithError("build failed");
    return;
  }
  RunInvokeLoop(state, m, 2.0 * h * w * cin * cout * k * k);
}
BENCHMARK(BM_TransposeConv)
    ->ArgNames({"h", "w", "cin", "cout", "k", "s", "threads"})
    ->Args({32, 32, 64, 32, 4, 2, 1})
    ->Args({32, 32, 64, 32, 4, 2, 2})
    ->Args({64, 64, 16, 16, 2, 2, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace relite
