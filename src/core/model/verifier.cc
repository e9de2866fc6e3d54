#include "src/core/model/verifier.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>
#include <vector>

#include "fmt/format.h"
#include "relite/tensor.h"

namespace relite {
namespace {

constexpr uint32_t kSchemaVersion = 3;

std::string TensorLabel(const tflite::SubGraph* sg, int index) {
  const auto* t = sg->tensors()->Get(static_cast<uint32_t>(index));
  if (t != nullptr && t->name() != nullptr && t->name()->size() > 0) {
    return fmt::format("tensor {} ('{}')", index, t->name()->str());
  }
  return fmt::format("tensor {}", index);
}

class ModelChecker {
 public:
  ModelChecker(const tflite::Model* model, const uint8_t* file, size_t file_size, const std::string& name,
               ModelFacts* facts)
      : model_(model), file_(file), file_size_(file_size), name_(name), facts_(facts) {}

  Status Check() {
    if (model_->version() != kSchemaVersion) {
      return Fail(fmt::format("schema version {} is not supported (relite reads version {})", model_->version(),
                              kSchemaVersion));
    }
    RELITE_RETURN_IF_ERROR(CheckBuffers());
    RELITE_RETURN_IF_ERROR(CheckOperatorCodes());
    const auto* subgraphs = model_->subgraphs();
    if (subgraphs == nullptr || subgraphs->size() == 0) return Fail("model has no subgraph");
    facts_->subgraphs.assign(subgraphs->size(), SubgraphFacts());
    for (uint32_t i = 0; i < subgraphs->size(); ++i) {
      RELITE_RETURN_IF_ERROR(CheckSubgraph(static_cast<int>(i), subgraphs->Get(i)));
    }
    return CheckSignatures();
  }

 private:
  Status Fail(const std::string& what) const { return InvalidArgumentError(name_ + ": " + what); }

  Status CheckBuffers() {
    const auto* buffers = model_->buffers();
    num_buffers_ = buffers == nullptr ? 0 : buffers->size();
    for (uint32_t i = 0; i < num_buffers_; ++i) {
      const auto* b = buffers->Get(i);
      if (b == nullptr) return Fail(fmt::format("buffer {} is null", i));
      if (b->offset() > 1) {
        if (b->offset() > file_size_ || b->size() > file_size_ - b->offset()) {
          return Fail(fmt::format("buffer {}: external data [{}, +{}) lies outside the {}-byte file", i, b->offset(),
                                  b->size(), file_size_));
        }
      }
    }
    return Status::Ok();
  }

  Status CheckSignatures() {
    const auto* defs = model_->signature_defs();
    if (defs == nullptr) return Status::Ok();
    for (uint32_t i = 0; i < defs->size(); ++i) {
      const auto* d = defs->Get(i);
      auto fail = [&](const std::string& what) { return Fail(fmt::format("signature {}: {}", i, what)); };
      if (d == nullptr) return fail("null signature");
      Signature sig;
      sig.key = d->signature_key() ? d->signature_key()->str() : std::string();
      for (const Signature& other : facts_->signatures) {
        if (other.key == sig.key) return fail(fmt::format("key '{}' is used twice", sig.key));
      }
      if (d->subgraph_index() >= facts_->subgraphs.size()) {
        return fail(fmt::format("subgraph index {} is out of range (model has {} subgraphs)", d->subgraph_index(),
                                facts_->subgraphs.size()));
      }
      sig.subgraph = static_cast<int>(d->subgraph_index());
      const size_t num_tensors = facts_->subgraphs[static_cast<size_t>(sig.subgraph)].tensors.size();
      auto read = [&](const auto* maps, const char* what, std::vector<std::pair<std::string, int>>* out) -> Status {
        if (maps == nullptr) return Status::Ok();
        for (uint32_t k = 0; k < maps->size(); ++k) {
          const auto* m = maps->Get(k);
          if (m == nullptr) return fail(fmt::format("{} {} is null", what, k));
          const std::string name = m->name() ? m->name()->str() : std::string();
          if (m->tensor_index() >= num_tensors) {
            return fail(fmt::format("{} {} ('{}') refers to tensor {}, out of range (subgraph {} has {} tensors)", what, k,
                                    name, m->tensor_index(), sig.subgraph, num_tensors));
          }
          for (const auto& [other, index] : *out) {
            if (other == name) return fail(fmt::format("{} name '{}' is used twice", what, name));
          }
          out->push_back({name, static_cast<int>(m->tensor_index())});
        }
        return Status::Ok();
      };
      RELITE_RETURN_IF_ERROR(read(d->inputs(), "input", &sig.inputs));
      RELITE_RETURN_IF_ERROR(read(d->outputs(), "output", &sig.outputs));
      facts_->signatures.push_back(std::move(sig));
    }
    return Status::Ok();
  }

  Status CheckOperatorCodes() {
    const auto* codes = model_->operator_codes();
    const uint32_t n = codes == nullptr ? 0 : codes->size();
    for (uint32_t i = 0; i < n; ++i) {
      const auto* c = codes->Get(i);
      if (c == nullptr) return Fail(fmt::format("operator code {} is null", i));
      const int32_t code = GetBuiltinCode(c);
      if (code < 0 || code > static_cast<int32_t>(tflite::BuiltinOperator::MAX)) {
        return Fail(fmt::format("operator code {}: builtin code {} is not a known operator", i, code));
      }
      if (code == static_cast<int32_t>(tflite::BuiltinOperator::CUSTOM) &&
          (c->custom_code() == nullptr || c->custom_code()->size() == 0)) {
        return Fail(fmt::format("operator code {}: custom operator without a name", i));
      }
      if (c->version() < 1) return Fail(fmt::format("operator code {}: invalid version {}", i, c->version()));
    }
    return Status::Ok();
  }

  Status CheckTensor(int sg_index, const tflite::SubGraph* sg, int index, TensorFacts* facts) {
    const auto* t = sg->tensors()->Get(static_cast<uint32_t>(index));
    auto fail = [&](const std::string& what) {
      return Fail(fmt::format("subgraph {}: {}: {}", sg_index, TensorLabel(sg, index), what));
    };
    if (t == nullptr) return fail("null tensor");
    const int type = static_cast<int>(t->type());
    if (type < 0 || type > static_cast<int>(tflite::TensorType::MAX)) return fail(fmt::format("unknown type {}", type));
    int64_t elements = 1;
    if (t->shape() != nullptr) {
      if (t->shape()->size() > 16) return fail(fmt::format("rank {} exceeds 16", t->shape()->size()));
      for (uint32_t d = 0; d < t->shape()->size(); ++d) {
        const int32_t dim = t->shape()->Get(d);
        if (dim < 0) return fail(fmt::format("negative dimension {} at axis {}", dim, d));
        // Checked: a shape such as [49477, 7695460, 48448661, k] must not wrap.
        if (__builtin_mul_overflow(elements, static_cast<int64_t>(dim), &elements) || elements > kMaxTensorElements) {
          return fail(fmt::format("shape {} has more than 2^40 elements", ShapeString(t)));
        }
      }
    }
    facts->elements = elements;
    // Buffer 0 is the empty sentinel; files without any buffer use it too.
    if (t->buffer() >= num_buffers_ && t->buffer() != 0) {
      return fail(fmt::format("buffer index {} is out of range (model has {} buffers)", t->buffer(), num_buffers_));
    }
    const size_t bytes = BufferBytes(t->buffer());
    if (bytes > 0) {
      facts->data = BufferData(t->buffer());
      facts->data_bytes = bytes;
      facts->sparse = t->sparsity() != nullptr;
      const size_t elem = DataTypeSize(static_cast<DataType>(type));
      if (elem == 0) {
        if (t->type() == tflite::TensorType::STRING) {
          RELITE_RETURN_IF_ERROR(CheckStringBuffer(t, elements, bytes, fail));
        } else if (t->type() == tflite::TensorType::INT4) {
          // Packed two to a byte as TFLite's converter writes them, or one
          // per byte as older files hold them: nothing else.
          const size_t packed = static_cast<size_t>((elements + 1) / 2);
          if (t->sparsity() == nullptr && bytes != packed && bytes != static_cast<size_t>(elements)) {
            return fail(fmt::format("buffer {} holds {} bytes but shape {} of int4 needs {} (packed) or {}",
                                    t->buffer(), bytes, ShapeString(t), packed, elements));
          }
          if (t->sparsity() != nullptr && bytes > static_cast<size_t>(elements)) {
            return fail(fmt::format("sparse buffer {} holds {} bytes, more than shape {} of int4 can hold",
                                    t->buffer(), bytes, ShapeString(t)));
          }
        } else {
          return fail(fmt::format("constant data of type {} is not supported",
                                  DataTypeName(static_cast<DataType>(type))));
        }
      } else if (t->sparsity() != nullptr) {
        if (bytes % elem != 0 || bytes > static_cast<size_t>(elements) * elem) {
          return fail(fmt::format("sparse buffer {} holds {} bytes, not a whole number of {} values within shape {}",
                                  t->buffer(), bytes, DataTypeName(static_cast<DataType>(type)),
                                  ShapeString(t)));
        }
      } else if (bytes != static_cast<size_t>(elements) * elem) {
        return fail(fmt::format("buffer {} holds {} bytes but shape {} of {} needs {}", t->buffer(), bytes,
                                ShapeString(t), DataTypeName(static_cast<DataType>(type)),
                                static_cast<size_t>(elements) * elem));
      }
    }
    if (const auto* q = t->quantization()) {
      const size_t scales = q->scale() ? q->scale()->size() : 0;
      const size_t zps = q->zero_point() ? q->zero_point()->size() : 0;
      // The FlatBuffers verifier only aligns a vector's length field: an
      // int64 vector 4 bytes off would be read with misaligned loads.
      if (zps != 0 && reinterpret_cast<uintptr_t>(q->zero_point()->Data()) % alignof(int64_t) != 0) {
        return fail("quantization zero_point vector is not 8-byte aligned (corrupted file)");
      }
      if (zps != 0 && zps != scales) {
        return fail(fmt::format("quantization has {} scales but {} zero points", scales, zps));
      }
      for (size_t i = 0; i < scales; ++i) {
        const float scale = q->scale()->Get(static_cast<uint32_t>(i));
        if (!(scale > 0.f) || !std::isfinite(scale)) {
          return fail(fmt::format("quantization scale[{}] is {}; scales must be positive and finite", i, scale));
        }
      }
      if (zps > 0 && scales > 0) {
        int64_t lo = 0, hi = 0;
        switch (t->type()) {
          case tflite::TensorType::UINT8: lo = 0, hi = 255; break;
          case tflite::TensorType::INT8: lo = -128, hi = 127; break;
          case tflite::TensorType::INT16: lo = -32768, hi = 32767; break;
          default: lo = hi = 0; break;  // int32/int64 biases and others: zero points unused
        }
        if (lo != hi) {
          for (size_t i = 0; i < zps; ++i) {
            const int64_t zp = q->zero_point()->Get(static_cast<uint32_t>(i));
            if (zp < lo || zp > hi) {
              return fail(fmt::format("quantization zero_point[{}] is {}, outside the {} range [{}, {}]", i, zp,
                                      DataTypeName(static_cast<DataType>(type)), lo, hi));
            }
          }
        }
      }
      if (scales > 1) {
        const int qd = q->quantized_dimension();
        const int rank = t->shape() ? static_cast<int>(t->shape()->size()) : 0;
        if (qd < 0 || qd >= rank) {
          return fail(fmt::format("quantized_dimension {} is out of range for rank {}", qd, rank));
        }
        if (static_cast<int64_t>(scales) != t->shape()->Get(static_cast<uint32_t>(qd))) {
          return fail(fmt::format("{} per-channel scales but dimension {} has size {}", scales, qd,
                                  t->shape()->Get(static_cast<uint32_t>(qd))));
        }
      }
    }
    return Status::Ok();
  }

  // A constant string tensor is TFLite's packed layout: int32 count N, N + 1
  // int32 offsets from the buffer's start, then the bytes. Every reader of
  // the buffer trusts these facts: N matches the shape, the offsets rise
  // from just past the table to at most the buffer's end.
  template <typename Fail>
  Status CheckStringBuffer(const tflite::Tensor* t, int64_t elements, size_t bytes, const Fail& fail) const {
    const uint8_t* data = BufferData(t->buffer());
    auto read_int32 = [&](size_t i) {
      int32_t v;
      std::memcpy(&v, data + 4 * i, sizeof(v));
      return v;
    };
    if (bytes < 8) {
      return fail(fmt::format("string buffer {} holds {} bytes, less than a count and one offset", t->buffer(), bytes));
    }
    const int32_t count = read_int32(0);
    if (count != elements) {
      return fail(fmt::format("string buffer {} holds {} strings but shape {} has {} elements", t->buffer(), count,
                              ShapeString(t), elements));
    }
    const size_t table = 4 * (static_cast<size_t>(count) + 2);
    if (bytes < table) {
      return fail(fmt::format("string buffer {} holds {} bytes, less than the {} of its offset table", t->buffer(),
                              bytes, table));
    }
    int64_t previous = static_cast<int64_t>(table);
    for (int32_t i = 0; i <= count; ++i) {
      const int32_t offset = read_int32(static_cast<size_t>(i) + 1);
      if ((i == 0 && static_cast<size_t>(offset) != table) || offset < previous ||
          static_cast<size_t>(offset) > bytes) {
        return fail(fmt::format("string buffer {}: offset {} is {}, outside [{}, {}] (corrupted string table)",
                                t->buffer(), i, offset, previous, bytes));
      }
      previous = offset;
    }
    return Status::Ok();
  }

  size_t BufferBytes(uint32_t index) const {
    if (index >= num_buffers_) return 0;
    const auto* b = model_->buffers()->Get(index);
    return b->offset() > 1 ? static_cast<size_t>(b->size()) : (b->data() ? b->data()->size() : 0);
  }
  // Where buffer `index`'s bytes are (inline, or at an offset in the file
  // for models over 2 GiB); only called when BufferBytes is non-zero.
  const uint8_t* BufferData(uint32_t index) const {
    const auto* b = model_->buffers()->Get(index);
    return b->offset() > 1 ? file_ + b->offset() : b->data()->data();
  }

  static std::string ShapeString(const tflite::Tensor* t) {
    Shape s;
    if (t->shape()) s.assign(t->shape()->begin(), t->shape()->end());
    return ShapeToString(s);
  }

  Status CheckSubgraph(int sg_index, const tflite::SubGraph* sg) {
    auto fail = [&](const std::string& what) { return Fail(fmt::format("subgraph {}: {}", sg_index, what)); };
    if (sg == nullptr) return fail("null subgraph");
    const int num_tensors = sg->tensors() ? static_cast<int>(sg->tensors()->size()) : 0;
    std::vector<TensorFacts>& facts = facts_->subgraphs[static_cast<size_t>(sg_index)].tensors;
    facts.assign(static_cast<size_t>(num_tensors), TensorFacts());
    for (int i = 0; i < num_tensors; ++i) {
      RELITE_RETURN_IF_ERROR(CheckTensor(sg_index, sg, i, &facts[static_cast<size_t>(i)]));
    }
    // A tensor is readable once it is a graph input, a constant, a variable or
    // written by an earlier operator; each tensor is written at most once.
    std::vector<uint8_t> ready(static_cast<size_t>(num_tensors), 0);
    std::vector<uint8_t> fixed(static_cast<size_t>(num_tensors), 0);  // constant data or graph input
    std::vector<int> writer(static_cast<size_t>(num_tensors), -1);
    // Tensors some operator writes: their shapes are recomputed when that
    // operator is prepared, so a declared empty shape says nothing about them.
    std::vector<uint8_t> op_output(static_cast<size_t>(num_tensors), 0);
    if (sg->operators()) {
      for (const auto* op : *sg->operators()) {
        if (op == nullptr || op->outputs() == nullptr) continue;
        for (int v : *op->outputs()) {
          if (v >= 0 && v < num_tensors) op_output[static_cast<size_t>(v)] = 1;
        }
      }
    }
    for (int i = 0; i < num_tensors; ++i) {
      const auto* t = sg->tensors()->Get(static_cast<uint32_t>(i));
      // A tensor with no elements that no operator writes has nothing to read
      // (e.g. an empty axis list). One that an operator writes is read before
      // it is written, with the shape it will have then, only in a graph out
      // of order (found by relite_invoke_fuzzer: EXP sized its output from
      // such a tensor's declared [1,3,0,5], then read the 20 elements a later
      // TANH gave it).
      const bool empty = !op_output[static_cast<size_t>(i)] && t->shape() != nullptr && t->shape()->size() > 0 &&
                         std::find(t->shape()->begin(), t->shape()->end(), 0) != t->shape()->end();
      if (BufferBytes(t->buffer()) > 0) fixed[static_cast<size_t>(i)] = 1;
      if (fixed[static_cast<size_t>(i)] || t->is_variable() || empty) ready[static_cast<size_t>(i)] = 1;
    }
    auto check_index = [&](const char* what, int value, bool allow_absent) -> Status {
      if (allow_absent && value == -1) return Status::Ok();
      if (value < 0 || value >= num_tensors) {
        return fail(fmt::format("{} refers to tensor {}, out of range (subgraph has {} tensors)", what, value,
                                num_tensors));
      }
      return Status::Ok();
    };
    if (sg->inputs()) {
      for (int v : *sg->inputs()) {
        RELITE_RETURN_IF_ERROR(check_index("input list", v, false));
        // A caller writes its inputs: constant data there would be the
        // read-only mapped file (a crash) or, copied, the weights overwritten.
        if (facts[static_cast<size_t>(v)].constant()) {
          return fail(fmt::format("input list names {}, which holds constant data (buffer {}); a graph input cannot "
                                  "be a weight",
                                  TensorLabel(sg, v), sg->tensors()->Get(static_cast<uint32_t>(v))->buffer()));
        }
        ready[static_cast<size_t>(v)] = 1;
        fixed[static_cast<size_t>(v)] = 1;
        facts[static_cast<size_t>(v)].graph_input = true;
      }
    }
    if (sg->outputs()) {
      for (int v : *sg->outputs()) {
        RELITE_RETURN_IF_ERROR(check_index("output list", v, false));
        if (facts[static_cast<size_t>(v)].sparse) {
          return fail(fmt::format("output list names {}, a sparse constant (only DENSIFY reads those)", TensorLabel(sg, v)));
        }
        facts[static_cast<size_t>(v)].graph_output = true;
      }
    }
    const uint32_t num_codes = model_->operator_codes() ? model_->operator_codes()->size() : 0;
    const uint32_t num_ops = sg->operators() ? sg->operators()->size() : 0;
    for (uint32_t oi = 0; oi < num_ops; ++oi) {
      const auto* op = sg->operators()->Get(oi);
      if (op == nullptr) return fail(fmt::format("operator {} is null", oi));
      if (op->opcode_index() >= num_codes) {
        return fail(fmt::format("operator {}: opcode index {} is out of range (model has {} operator codes)", oi,
                                op->opcode_index(), num_codes));
      }
      const auto* code = model_->operator_codes()->Get(op->opcode_index());
      const std::string op_name = code->custom_code() && GetBuiltinCode(code) == 32
                                      ? code->custom_code()->str()
                                      : std::string(tflite::EnumNameBuiltinOperator(
                                            static_cast<tflite::BuiltinOperator>(GetBuiltinCode(code))));
      const std::string where = fmt::format("operator {} ({})", oi, op_name);
      if (op->inputs()) {
        for (uint32_t k = 0; k < op->inputs()->size(); ++k) {
          const int v = op->inputs()->Get(k);
          RELITE_RETURN_IF_ERROR(check_index((where + " input " + std::to_string(k)).c_str(), v, true));
          // Sparse data holds fewer bytes than its shape: every other kernel
          // would read past it.
          if (v >= 0 && facts[static_cast<size_t>(v)].sparse &&
              GetBuiltinCode(code) != static_cast<int32_t>(tflite::BuiltinOperator::DENSIFY)) {
            return fail(fmt::format("{} reads {}, a sparse constant; only DENSIFY can read sparse tensors", where,
                                    TensorLabel(sg, v)));
          }
          if (v >= 0 && !ready[static_cast<size_t>(v)]) {
            return fail(fmt::format("{} reads {} before any operator writes it (graph is not in execution order or "
                                    "has a cycle)",
                                    where, TensorLabel(sg, v)));
          }
        }
      }
      if (op->outputs()) {
        for (uint32_t k = 0; k < op->outputs()->size(); ++k) {
          const int v = op->outputs()->Get(k);
          RELITE_RETURN_IF_ERROR(check_index((where + " output " + std::to_string(k)).c_str(), v, false));
          const auto* t = sg->tensors()->Get(static_cast<uint32_t>(v));
          if (writer[static_cast<size_t>(v)] >= 0) {
            return fail(fmt::format("{} writes {}, already written by operator {}", where, TensorLabel(sg, v),
                                    writer[static_cast<size_t>(v)]));
          }
          if (fixed[static_cast<size_t>(v)] && !t->is_variable()) {
            return fail(fmt::format("{} writes {}, which is a constant or a graph input", where, TensorLabel(sg, v)));
          }
          writer[static_cast<size_t>(v)] = static_cast<int>(oi);
          ready[static_cast<size_t>(v)] = 1;
        }
      }
      if (op->intermediates()) {
        for (int v : *op->intermediates()) {
          RELITE_RETURN_IF_ERROR(check_index((where + " intermediate").c_str(), v, false));
        }
      }
      if (op->custom_options() == nullptr && op->large_custom_options_offset() > 1) {
        if (op->large_custom_options_offset() > file_size_ ||
            op->large_custom_options_size() > file_size_ - op->large_custom_options_offset()) {
          return fail(fmt::format("{}: custom options lie outside the file", where));
        }
      }
    }
    if (sg->outputs()) {
      for (int v : *sg->outputs()) {
        if (!ready[static_cast<size_t>(v)]) {
          return fail(fmt::format("output {} is never written by any operator", TensorLabel(sg, v)));
        }
      }
    }
    return Status::Ok();
  }

  const tflite::Model* model_;
  const uint8_t* file_;
  size_t file_size_;
  const std::string& name_;
  ModelFacts* facts_;
  uint32_t num_buffers_ = 0;
};

}  // namespace

int32_t GetBuiltinCode(const tflite::OperatorCode* code) {
  return std::max(static_cast<int32_t>(code->builtin_code()), static_cast<int32_t>(code->deprecated_builtin_code()));
}

StatusOr<const tflite::Model*> VerifyModel(const uint8_t* data, size_t size, const std::string& name, ModelFacts* facts) {
  if (size < 8) {
    return InvalidArgumentError(fmt::format("{}: file is truncated ({} bytes; a .tflite file has at least 8)", name, size));
  }
  if (!tflite::ModelBufferHasIdentifier(data)) {
    return InvalidArgumentError(fmt::format(
        "{}: wrong magic: bytes 4..7 are '{}', a .tflite file has 'TFL3' (not a TensorFlow Lite model?)", name,
        std::string(reinterpret_cast<const char*>(data) + 4, 4)));
  }
  // Depth and table limits well above real models; the verifier also bounds
  // every offset and vector to the buffer, so truncation is caught here.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/128, /*max_tables=*/10'000'000);
  if (!tflite::VerifyModelBuffer(verifier)) {
    return InvalidArgumentError(fmt::format(
        "{}: the flatbuffer structure is invalid (truncated or corrupted file: an offset or vector points outside "
        "the {} bytes)",
        name, size));
  }
  const tflite::Model* model = tflite::GetModel(data);
  ModelChecker checker(model, data, size, name, facts);
  RELITE_RETURN_IF_ERROR(checker.Check());
  return model;
}

}  // namespace relite
