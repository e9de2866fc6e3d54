#include "src/delegates/gpu/gpu_partition.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "src/delegates/gpu/buffer_plan.h"
#include "src/delegates/gpu/half.h"
#include "src/delegates/gpu/ops/layout.h"
#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {
namespace {

// A GPU tensor of the partition: a model tensor, or a node-local temporary.
struct Value {
  GpuShape shape;
  bool fp32 = false;  // float4 elements in either precision
  bool constant = false;  // uploaded once in GPU layout
  int first = -1, last = -1;  // launch steps using it
  int buffer = -1;
};

class GpuPartitionKernel final : public Kernel {
 public:
  GpuPartitionKernel(std::shared_ptr<Backend> backend, const DelegateGraph& graph, const DelegatePartition& partition,
                     std::vector<PartitionNode> nodes, PartitionEnv env)
      : backend_(std::move(backend)), partition_id_(partition.id), inputs_(partition.inputs), outputs_(partition.outputs),
        nodes_(std::move(nodes)), env_(std::move(env)) {
    for (int t : inputs_) {
      const Tensor& x = graph.tensor(t);
      graph_tensor_quant_[t] = x.quant;
      input_shapes_.push_back(x.shape);
      input_types_.push_back(x.type);
      input_constant_.push_back(graph.is_constant(t));
    }
    for (int t : outputs_) {
      graph_tensor_quant_[t] = graph.tensor(t).quant;
      output_shapes_.push_back(graph.tensor(t).shape);
      output_types_.push_back(graph.tensor(t).type);
      auto s = env_.output_sources.find(t);
      output_gpu_tensors_.push_back(s == env_.output_sources.end() ? t : s->second);
    }
    for (const PartitionNode& n : nodes_) {
      for (int t : n.program.reads) tensor_shapes_[t] = graph.tensor(t).shape;
      for (int t : n.program.writes) tensor_shapes_[t] = graph.tensor(t).shape;
    }
  }

  ~GpuPartitionKernel() override {
    if (backend_ == nullptr) return;
    (void)backend_->Finish();
    if (run_ >= 0) backend_->ReleaseRun(run_);
    for (int l : launches_) backend_->ReleaseLaunch(l);
    for (int b : owned_buffers_) backend_->ReleaseBuffer(b);
  }

  Status Prepare(KernelContext& ctx) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Tensor& x = ctx.input(static_cast<int>(i));
      if (input_constant_[i]) {
        // The emitters sized their weight packing from the shapes seen at
        // the support check. A folded constant (a DEQUANTIZE of float16
        // weights) only has its real shape now: it must be the declared
        // one, with the bytes to match, or the packing would read past it.
        const size_t need = static_cast<size_t>(NumElements(input_shapes_[i])) * DataTypeSize(input_types_[i]);
        if (x.shape != input_shapes_[i] || x.type != input_types_[i] || x.data == nullptr || x.bytes < need ||
            x.sparsity != nullptr) {
          return InvalidArgumentError(fmt::format(
              "GPU partition {}: constant tensor {} ('{}') holds {} {} ({} bytes), but the model declares {} ({} "
              "bytes) and the partition was built for that",
              partition_id_, inputs_[i], x.name, DataTypeName(x.type), ShapeToString(x.shape), x.bytes,
              ShapeToString(input_shapes_[i]), need));
        }
        continue;
      }
      if (x.shape != input_shapes_[i]) {
        return UnimplementedError(fmt::format(
            "GPU partition {}: input tensor {} has shape {}, but the partition was built for {}; resize inputs before "
            "applying the GPU delegate",
            partition_id_, inputs_[i], ShapeToString(x.shape), ShapeToString(input_shapes_[i])));
      }
    }
    for (size_t i = 0; i < outputs_.size(); ++i) RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(static_cast<int>(i), output_shapes_[i]));
    if (!built_) {
      Status s = Build(ctx);
      if (!s.ok()) return s.WithContext(fmt::format("GPU partition {} on {}", partition_id_, backend_->device().name));
      built_ = true;
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    std::vector<const void*> in(boundary_inputs_.size());
    std::vector<void*> out(boundary_outputs_.size());
    for (size_t i = 0; i < in.size(); ++i) in[i] = ctx.input(boundary_inputs_[i].slot).data;
    for (size_t i = 0; i < out.size(); ++i) out[i] = ctx.output(boundary_outputs_[i].slot).data;
    return backend_->Run(run_, in, out);
  }

 private:
  struct Boundary {
    int slot;
    int staging;   // the backend buffer copied from or to (an output's GPU buffer where no conversion is needed)
    size_t bytes;  // the model tensor's, which Prepare checked
  };

  StatusOr<int> NewBuffer(size_t bytes) {
    RELITE_ASSIGN_OR_RETURN(int b, backend_->CreateBuffer(bytes));
    owned_buffers_.push_back(b);
    return b;
  }

  // Uploads `values` in the precision's storage type (or float32).
  Status Upload(int buffer, const std::vector<float>& values, bool fp32) {
    const auto start = std::chrono::steady_clock::now();
    Status s;
    if (fp32 || backend_->precision() == Precision::kFp32) {
      s = backend_->Write(buffer, values.data(), values.size() * 4, true);
    } else {
      std::vector<uint16_t> half(values.size());
      for (size_t i = 0; i < values.size(); ++i) half[i] = FloatToHalf(values[i]);
      s = backend_->Write(buffer, half.data(), half.size() * 2, true);
    }
    if (env_.upload_ms) *env_.upload_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return s;
  }

  Status Build(KernelContext& ctx) {
    std::map<int, int> input_slot, output_slot;
    for (size_t i = 0; i < inputs_.size(); ++i) input_slot[inputs_[i]] = static_cast<int>(i);
    for (size_t i = 0; i < outputs_.size(); ++i) output_slot[outputs_[i]] = static_cast<int>(i);
    const ConstantTensors constants = [&](int t) -> const Tensor& { return ctx.input(input_slot.at(t)); };

    // The launch sequence: input conversions, the nodes, output conversions.
    std::map<std::pair<int, int>, Value> values;  // (-1, tensor) or (node, temp)
    std::vector<std::pair<KernelLaunch, int>> sequence;  // launch, node position (-1: boundary)
    auto tensor_key = [](int t) { return std::make_pair(-1, t); };
    std::set<int> gpu_reads;
    for (const PartitionNode& n : nodes_) gpu_reads.insert(n.program.reads.begin(), n.program.reads.end());
    for (const auto& [t, shape] : tensor_shapes_) {
      RELITE_ASSIGN_OR_RETURN(GpuShape s, ToGpuShape(shape));
      Value v;
      v.shape = s;
      auto slot = input_slot.find(t);
      v.constant = slot != input_slot.end() && input_constant_[static_cast<size_t>(slot->second)];
      values[tensor_key(t)] = v;
    }
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const int t = inputs_[i];
      if (input_constant_[i] || !gpu_reads.count(t)) continue;
      const Value& v = values.at(tensor_key(t));
      const size_t bytes = static_cast<size_t>(NumElements(input_shapes_[i])) * DataTypeSize(input_types_[i]);
      RELITE_ASSIGN_OR_RETURN(int staging, NewBuffer(bytes));
      boundary_inputs_.push_back({static_cast<int>(i), staging, bytes});
      sequence.push_back({ToGpuLayout(v.shape, graph_tensor_quant_.at(t), input_types_[i], KernelArg::Staging(staging),
                                      KernelArg::Tensor(t)), -1});
    }
    std::vector<std::vector<int>> constant_buffers(nodes_.size());
    for (size_t k = 0; k < nodes_.size(); ++k) {
      const NodeProgram& p = nodes_[k].program;
      for (size_t j = 0; j < p.temps.size(); ++j) {
        Value v;
        v.shape = p.temps[j];
        v.fp32 = j < p.temp_fp32.size() && p.temp_fp32[j];
        values[{static_cast<int>(k), static_cast<int>(j)}] = v;
      }
      for (const ConstantBuffer& c : p.constants) {
        std::vector<float> data(c.count, 0.f);
        c.fill(constants, data.data());
        RELITE_ASSIGN_OR_RETURN(int b, NewBuffer(c.count * (c.fp32 ? 4 : backend_->element4_bytes() / 4)));
        RELITE_RETURN_IF_ERROR(Upload(b, data, c.fp32));
        constant_buffers[k].push_back(b);
      }
      for (const KernelLaunch& l : p.launches) sequence.push_back({l, static_cast<int>(k)});
    }
    std::vector<size_t> direct_outputs;  // into boundary_outputs_: read from the tensor's own buffer
    for (size_t i = 0; i < outputs_.size(); ++i) {
      const int t = outputs_[i];
      const int src = output_gpu_tensors_[i];  // t, or the tensor a folded RESHAPE renamed
      auto found = values.find(tensor_key(src));
      if (found == values.end()) {
        return InternalError(fmt::format("GPU partition {}: output tensor {} is not computed on the GPU", partition_id_, t));
      }
      const Value& v = found->second;
      const size_t bytes = static_cast<size_t>(NumElements(output_shapes_[i])) * DataTypeSize(output_types_[i]);
      if (GpuLayoutIsModelLayout(v.shape, output_types_[i], graph_tensor_quant_.at(t), backend_->precision())) {
        direct_outputs.push_back(boundary_outputs_.size());
        boundary_outputs_.push_back({static_cast<int>(i), -1, bytes});  // its buffer, once planned
        continue;
      }
      RELITE_ASSIGN_OR_RETURN(int staging, NewBuffer(bytes));
      boundary_outputs_.push_back({static_cast<int>(i), staging, bytes});
      sequence.push_back({FromGpuLayout(v.shape, graph_tensor_quant_.at(t), output_types_[i], KernelArg::Tensor(src),
                                        KernelArg::Staging(staging)), -1});
    }

    if (env_.expected_launches >= 0 && static_cast<int>(sequence.size()) != env_.expected_launches) {
      return InternalError(fmt::format("GPU partition {}: {} launches, but the delegate counted {}", partition_id_,
                                       sequence.size(), env_.expected_launches));
    }

    // Lifetimes, then buffers: values whose lifetimes do not overlap share one.
    auto key_of = [&](const KernelArg& a, int node) -> std::pair<int, int> {
      return a.kind == KernelArg::Kind::kTensor ? tensor_key(a.id) : std::make_pair(node, static_cast<int>(a.id));
    };
    for (size_t step = 0; step < sequence.size(); ++step) {
      for (const KernelArg& a : sequence[step].first.args) {
        if (a.kind != KernelArg::Kind::kTensor && a.kind != KernelArg::Kind::kTemp) continue;
        Value& v = values.at(key_of(a, sequence[step].second));
        if (v.first < 0) v.first = static_cast<int>(step);
        v.last = static_cast<int>(step);
      }
    }
    for (int t : output_gpu_tensors_) values.at(tensor_key(t)).last = static_cast<int>(sequence.size());
    std::vector<std::pair<int, int>> planned;  // keys, in request order
    std::vector<BufferRequest> requests;
    for (auto& [key, v] : values) {
      if (v.first < 0) continue;
      if (v.constant) {
        RELITE_ASSIGN_OR_RETURN(v.buffer, NewBuffer(static_cast<size_t>(v.shape.elements4()) * backend_->element4_bytes()));
        RELITE_RETURN_IF_ERROR(UploadConstantTensor(v, constants(key.second)));
        continue;
      }
      planned.push_back(key);
      requests.push_back({v.first, v.last, static_cast<size_t>(v.shape.elements4()) * (v.fp32 ? 16 : backend_->element4_bytes())});
    }
    const BufferPlan plan = PlanBuffers(requests);
    std::vector<int> plan_buffers;
    for (size_t bytes : plan.bytes) {
      RELITE_ASSIGN_OR_RETURN(int b, NewBuffer(bytes));
      plan_buffers.push_back(b);
    }
    for (size_t r = 0; r < planned.size(); ++r) {
      values.at(planned[r]).buffer = plan_buffers[static_cast<size_t>(plan.buffer_of[r])];
    }
    for (size_t k : direct_outputs) {
      Boundary& out = boundary_outputs_[k];
      const int t = output_gpu_tensors_[static_cast<size_t>(out.slot)];
      out.staging = values.at(tensor_key(t)).buffer;
      if (out.staging < 0) return InternalError(fmt::format("GPU partition {}: output tensor {} has no GPU buffer", partition_id_, t));
    }
    gpu_bytes_ = plan.total_bytes();

    // Bind and create every launch (compiled, or loaded from the cache).
    CacheEntry* cache = env_.cache ? &env_.cache->entry : nullptr;
    int created = 0;
    const int total = static_cast<int>(sequence.size());
    for (const auto& [launch, node] : sequence) {
      std::vector<BoundArg> bound;
      for (const KernelArg& a : launch.args) {
        BoundArg b;
        switch (a.kind) {
          case KernelArg::Kind::kTensor:
          case KernelArg::Kind::kTemp:
            b.kind = BoundArg::Kind::kBuffer;
            b.buffer = values.at(key_of(a, node)).buffer;
            break;
          case KernelArg::Kind::kConstant:
            b.kind = BoundArg::Kind::kBuffer;
            b.buffer = constant_buffers.at(static_cast<size_t>(node)).at(static_cast<size_t>(a.id));
            break;
          case KernelArg::Kind::kStaging:
            b.kind = BoundArg::Kind::kBuffer;
            b.buffer = a.id;
            break;
          case KernelArg::Kind::kInt:
            b.kind = BoundArg::Kind::kInt;
            b.i = a.id;
            break;
          case KernelArg::Kind::kFloat:
            b.kind = BoundArg::Kind::kFloat;
            b.f = a.value;
            break;
        }
        bound.push_back(b);
      }
      RELITE_ASSIGN_OR_RETURN(int id, backend_->CreateLaunch(launch, bound, cache));
      launches_.push_back(id);
      ++created;
      if (backend_->tuning() && env_.progress) env_.progress(created, total);
    }
    RunPlan run;
    for (const Boundary& in : boundary_inputs_) run.inputs.push_back({in.staging, in.bytes});
    for (const Boundary& out : boundary_outputs_) run.outputs.push_back({out.staging, out.bytes});
    run.launches = launches_;
    RELITE_ASSIGN_OR_RETURN(run_, backend_->CreateRun(run));
    if (env_.cache && env_.cache->entry.dirty()) {
      // An unwritable or full directory: warned about, the delegate works on.
      if (Status s = env_.cache->cache->Store(env_.cache->key, env_.cache->entry); !s.ok()) {
        if (env_.warn) env_.warn("GPU kernel cache: " + s.message());
      } else {
        env_.cache->entry.mark_clean();
      }
    }
    return Status::Ok();
  }

  Status UploadConstantTensor(const Value& v, const Tensor& t) {
    const GpuShape& s = v.shape;
    const int S = s.slices();
    std::vector<float> data(static_cast<size_t>(s.elements4()) * 4, 0.f);
    const std::vector<float> real = OpBuilder::RealValues(t);  // bool 0/1, 8-bit dequantized
    for (int b = 0; b < s.b; ++b)
      for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x)
          for (int c = 0; c < s.c; ++c) {
            const int64_t src = ((static_cast<int64_t>(b) * s.h + y) * s.w + x) * s.c + c;
            const int64_t dst = (((static_cast<int64_t>(b) * S + c / 4) * s.h + y) * s.w + x) * 4 + c % 4;
            data[static_cast<size_t>(dst)] = real[static_cast<size_t>(src)];
          }
    return Upload(v.buffer, data, false);
  }

  std::shared_ptr<Backend> backend_;
  int partition_id_;
  std::vector<int> inputs_, outputs_;
  std::vector<int> output_gpu_tensors_;  // per output: the tensor whose GPU buffer holds it
  std::vector<Shape> input_shapes_, output_shapes_;
  std::vector<DataType> input_types_, output_types_;
  std::vector<bool> input_constant_;
  std::map<int, Shape> tensor_shapes_;
  std::map<int, Quantization> graph_tensor_quant_;  // boundary tensors: 8-bit ones are (de)quantized by the layout kernels
  std::vector<PartitionNode> nodes_;
  PartitionEnv env_;
  bool built_ = false;
  std::vector<Boundary> boundary_inputs_, boundary_outputs_;
  std::vector<int> launches_;
  int run_ = -1;
  std::vector<int> owned_buffers_;
  size_t gpu_bytes_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateGpuPartitionKernel(std::shared_ptr<Backend> backend, const DelegateGraph& graph,
                                                           const DelegatePartition& partition,
                                                           std::vector<PartitionNode> nodes, PartitionEnv env) {
  return std::unique_ptr<Kernel>(
      std::make_unique<GpuPartitionKernel>(std::move(backend), graph, partition, std::move(nodes), std::move(env)));
}

}  // namespace relite::gpu
