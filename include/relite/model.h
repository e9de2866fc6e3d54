// A verified, read-only .tflite model.
#pragma once

#include "relite/export.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "relite/status.h"

namespace tflite {
struct Model;
}

namespace relite {

struct ModelFacts;

// One of the model's SignatureDefs: a named entry point, with its inputs and
// outputs by name (the names a converter gave the function's arguments).
struct Signature {
  std::string key;
  int subgraph = 0;
  std::vector<std::pair<std::string, int>> inputs;   // name, tensor index in `subgraph`
  std::vector<std::pair<std::string, int>> outputs;
};

class RELITE_API Model {
 public:
  // Maps the file read-only and verifies it (flatbuffers verifier + semantic
  // checks). Errors name the file, subgraph, tensor or operator concerned.
  static StatusOr<std::unique_ptr<Model>> FromFile(const std::string& path);
  // Copies the bytes (so the caller's buffer may go away) and verifies them.
  // `name` is used in error messages.
  static StatusOr<std::unique_ptr<Model>> FromBuffer(const void* data, size_t size,
                                                    const std::string& name = "<memory>");

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::string& name() const { return name_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // The flatbuffer root (schema in schema/tflite.fbs); for relite internals and tools.
  const tflite::Model* fb() const { return fb_; }
  // Bytes of buffer `index` (inline or, for >2 GiB models, at an offset in
  // the file); empty span as {nullptr, 0}.
  std::pair<const uint8_t*, size_t> buffer(uint32_t index) const;
  // What verification established about every tensor (element counts,
  // constant data, graph inputs; src/core/model/model_facts.h): what
  // relite's own code reads instead of the file's declared fields.
  const ModelFacts& facts() const { return *facts_; }
  // The SignatureDefs (verified: subgraph and tensor indices in range,
  // names unique); empty for files without any.
  const std::vector<Signature>& signatures() const;

 private:
  Model() = default;
  static StatusOr<std::unique_ptr<Model>> Load(const std::string& path);
  static StatusOr<std::unique_ptr<Model>> Copy(const void* data, size_t size, const std::string& name);
  static StatusOr<std::unique_ptr<Model>> Verify(std::unique_ptr<Model> model);

  std::string name_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  const tflite::Model* fb_ = nullptr;
  void* mapping_ = nullptr;  // mmap base when loaded from a file
  size_t mapping_size_ = 0;
  std::unique_ptr<uint8_t[], void (*)(void*)> copy_{nullptr, nullptr};
  std::shared_ptr<const ModelFacts> facts_;
};

}  // namespace relite
