// DENSIFY reads Tensor::sparsity, which SingleOpModel cannot attach, so these
// tests write the one-op model with flatbuffers directly.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "relite/relite.h"
#include "tests/testing/reference/shape_reference.h"
#include "tflite_generated.h"

namespace relite {
namespace {

namespace ref = testing::reference;

enum class IndexType { kInt32, kUint16, kUint8 };

struct Level {
  bool sparse = false;
  int dense_size = 0;
  std::vector<int32_t> segments, indices;
};

struct SparseTensor {
  DataType type = DataType::kFloat32;
  Shape shape;
  std::vector<int> traversal_order;
  std::vector<int> block_map;
  std::vector<Level> levels;  // in traversal order
  std::vector<uint8_t> values;
};

flatbuffers::Offset<void> IndexVector(flatbuffers::FlatBufferBuilder& fbb, IndexType type,
                                      const std::vector<int32_t>& v, tflite::SparseIndexVector* tag) {
  switch (type) {
    case IndexType::kInt32:
      *tag = tflite::SparseIndexVector::Int32Vector;
      return tflite::CreateInt32Vector(fbb, fbb.CreateVector(v)).Union();
    case IndexType::kUint16: {
      *tag = tflite::SparseIndexVector::Uint16Vector;
      std::vector<uint16_t> u(v.begin(), v.end());
      return tflite::CreateUint16Vector(fbb, fbb.CreateVector(u)).Union();
    }
    case IndexType::kUint8: {
      *tag = tflite::SparseIndexVector::Uint8Vector;
      std::vector<uint8_t> u(v.begin(), v.end());
      return tflite::CreateUint8Vector(fbb, fbb.CreateVector(u)).Union();
    }
  }
  return 0;
}

// Writes DENSIFY(sparse constant) -> output, builds it (the op is folded at
// allocation since its input is constant) and returns the output bytes.
StatusOr<std::pair<Shape, std::vector<uint8_t>>> RunDensify(const SparseTensor& t, IndexType index_type,
                                                            bool attach_sparsity = true) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tflite::Buffer>> buffers = {tflite::CreateBuffer(fbb)};
  fbb.ForceVectorAlignment(t.values.size(), 1, 16);
  buffers.push_back(tflite::CreateBuffer(fbb, fbb.CreateVector(t.values)));

  std::vector<flatbuffers::Offset<tflite::DimensionMetadata>> dims;
  for (const Level& level : t.levels) {
    if (!level.sparse) {
      dims.push_back(tflite::CreateDimensionMetadata(fbb, tflite::DimensionType::DENSE, level.dense_size));
      continue;
    }
    tflite::SparseIndexVector seg_tag, idx_tag;
    const auto seg = IndexVector(fbb, index_type, level.segments, &seg_tag);
    const auto idx = IndexVector(fbb, index_type, level.indices, &idx_tag);
    dims.push_back(tflite::CreateDimensionMetadata(fbb, tflite::DimensionType::SPARSE_CSR, 0, seg_tag, seg, idx_tag, idx));
  }
  flatbuffers::Offset<tflite::SparsityParameters> sparsity = 0;
  if (attach_sparsity) {
    sparsity = tflite::CreateSparsityParameters(fbb, fbb.CreateVector(t.traversal_order),
                                                t.block_map.empty() ? 0 : fbb.CreateVector(t.block_map),
                                                fbb.CreateVector(dims));
  }
  const auto type = static_cast<tflite::TensorType>(t.type);
  std::vector<flatbuffers::Offset<tflite::Tensor>> tensors = {
      tflite::CreateTensor(fbb, fbb.CreateVector(t.shape), type, 1, fbb.CreateString("sparse"), 0, false, sparsity),
      tflite::CreateTensor(fbb, fbb.CreateVector(t.shape), type, 0, fbb.CreateString("dense"))};
  const std::vector<int32_t> op_inputs = {0}, op_outputs = {1}, graph_inputs = {};
  auto op = tflite::CreateOperator(fbb, 0, fbb.CreateVector(op_inputs), fbb.CreateVector(op_outputs),
                                   tflite::BuiltinOptions::DensifyOptions, tflite::CreateDensifyOptions(fbb).Union());
  auto subgraph = tflite::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(graph_inputs),
                                         fbb.CreateVector(op_outputs), fbb.CreateVector(&op, 1),
                                         fbb.CreateString("main"));
  auto opcode = tflite::CreateOperatorCode(fbb, static_cast<int8_t>(tflite::BuiltinOperator::DENSIFY), 0, 1,
                                           tflite::BuiltinOperator::DENSIFY);
  auto model = tflite::CreateModel(fbb, 3, fbb.CreateVector(&opcode, 1), fbb.CreateVector(&subgraph, 1),
                                   fbb.CreateString("densify test"), fbb.CreateVector(buffers));
  tflite::FinishModelBuffer(fbb, model);

  RELITE_ASSIGN_OR_RETURN(std::unique_ptr<Model> loaded,
                          Model::FromBuffer(fbb.GetBufferPointer(), fbb.GetSize(), "densify_test"));
  BuiltinOpResolver resolver;
  RELITE_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> interp, InterpreterBuilder(*loaded, resolver).Build());
  RELITE_RETURN_IF_ERROR(interp->AllocateTensors());
  RELITE_RETURN_IF_ERROR(interp->Invoke());
  const Tensor* out = interp->output_tensor(0);
  const auto* p = static_cast<const uint8_t*>(out->data);
  return std::make_pair(out->shape, std::vector<uint8_t>(p, p + out->bytes));
}

// Test-side encoder: stores `dense` in the given format (zero subtrees of
// SPARSE_CSR levels are dropped) as TFLite's converter would.
template <typename T>
SparseTensor Encode(DataType type, const ref::Tensor<T>& dense, const std::vector<int>& traversal_order,
                    const std::vector<int>& block_map, const std::vector<int>& block_sizes,
                    const std::vector<bool>& level_sparse) {
  SparseTensor t;
  t.type = type;
  t.shape = dense.shape;
  t.traversal_order = traversal_order;
  t.block_map = block_map;
  const int rank = static_cast<int>(dense.shape.size());
  const int n = static_cast<int>(traversal_order.size());
  std::vector<int> block(static_cast<size_t>(rank), 1), block_dim(static_cast<size_t>(rank), -1);
  for (size_t j = 0; j < block_map.size(); ++j) {
    block[static_cast<size_t>(block_map[j])] = block_sizes[j];
    block_dim[static_cast<size_t>(block_map[j])] = rank + static_cast<int>(j);
  }
  std::vector<int> expanded(static_cast<size_t>(n));
  for (int d = 0; d < rank; ++d) expanded[static_cast<size_t>(d)] = dense.shape[static_cast<size_t>(d)] / block[static_cast<size_t>(d)];
  for (size_t j = 0; j < block_map.size(); ++j) expanded[static_cast<size_t>(rank) + j] = block_sizes[j];
  // Expanded coordinates (in traversal order) of every dense element.
  std::vector<std::vector<int>> coords;
  for (int64_t i = 0; i < ref::Count(dense.shape); ++i) {
    const auto idx = ref::Unravel(i, dense.shape);
    std::vector<int> e(static_cast<size_t>(n));
    for (int d = 0; d < rank; ++d) {
      const int b = block[static_cast<size_t>(d)];
      e[static_cast<size_t>(d)] = static_cast<int>(idx[static_cast<size_t>(d)]) / b;
      if (block_dim[static_cast<size_t>(d)] >= 0) e[static_cast<size_t>(block_dim[static_cast<size_t>(d)])] = static_cast<int>(idx[static_cast<size_t>(d)]) % b;
    }
    std::vector<int> ordered;
    for (const int o : traversal_order) ordered.push_back(e[static_cast<size_t>(o)]);
    coords.push_back(ordered);
  }
  auto any_nonzero = [&](const std::vector<int>& prefix) {
    for (size_t i = 0; i < coords.size(); ++i) {
      if (std::equal(prefix.begin(), prefix.end(), coords[i].begin()) && dense.data[i] != T{0}) return true;
    }
    return false;
  };
  std::vector<std::vector<int>> prefixes = {{}};
  for (int l = 0; l < n; ++l) {
    Level level;
    level.sparse = level_sparse[static_cast<size_t>(l)];
    const int size = expanded[static_cast<size_t>(traversal_order[static_cast<size_t>(l)])];
    level.dense_size = size;
    if (level.sparse) level.segments.push_back(0);
    std::vector<std::vector<int>> next;
    for (const auto& p : prefixes) {
      for (int c = 0; c < size; ++c) {
        std::vector<int> cand = p;
        cand.push_back(c);
        if (!level.sparse || any_nonzero(cand)) {
          next.push_back(cand);
          if (level.sparse) level.indices.push_back(c);
        }
      }
      if (level.sparse) level.segments.push_back(static_cast<int32_t>(level.indices.size()));
    }
    prefixes = next;
    t.levels.push_back(level);
  }
  for (const auto& leaf : prefixes) {
    for (size_t i = 0; i < coords.size(); ++i) {
      if (coords[i] == leaf) {
        const auto* b = reinterpret_cast<const uint8_t*>(&dense.data[i]);
        t.values.insert(t.values.end(), b, b + sizeof(T));
      }
    }
  }
  return t;
}

template <typename T>
ref::Tensor<T> RandomSparse(std::mt19937& rng, const Shape& shape, double density) {
  ref::Tensor<T> t = ref::RandomTensor<T>(rng, shape);
  for (auto& v : t.data) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) > density || v == T{0}) v = T{0};
  }
  t.data[0] = T{1};  // at least one stored value: an empty buffer is not a constant
  return t;
}

template <typename T>
void CheckRoundTrip(DataType type, const ref::Tensor<T>& dense, const std::vector<int>& order,
                    const std::vector<int>& block_map, const std::vector<int>& block_sizes,
                    const std::vector<bool>& level_sparse, IndexType index_type) {
  SCOPED_TRACE("shape " + ShapeToString(dense.shape));
  const SparseTensor sparse = Encode(type, dense, order, block_map, block_sizes, level_sparse);
  auto r = RunDensify(sparse, index_type);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->first, dense.shape);
  std::vector<T> got(r->second.size() / sizeof(T));
  std::memcpy(got.data(), r->second.data(), r->second.size());
  EXPECT_EQ(got, dense.data);
}

TEST(Densify, Csr2D) {
  std::mt19937 rng(1);
  for (const auto index_type : {IndexType::kInt32, IndexType::kUint16, IndexType::kUint8}) {
    CheckRoundTrip<float>(DataType::kFloat32, RandomSparse<float>(rng, {5, 7}, 0.3), {0, 1}, {}, {},
                          {false, true}, index_type);
  }
}

TEST(Densify, ColumnMajorAndAllSparse) {
  std::mt19937 rng(2);
  CheckRoundTrip<float>(DataType::kFloat32, RandomSparse<float>(rng, {6, 4}, 0.4), {1, 0}, {}, {}, {false, true},
                        IndexType::kInt32);
  CheckRoundTrip<float>(DataType::kFloat32, RandomSparse<float>(rng, {6, 4}, 0.2), {0, 1}, {}, {}, {true, true},
                        IndexType::kUint8);
  CheckRoundTrip<int8_t>(DataType::kInt8, RandomSparse<int8_t>(rng, {3, 4, 5}, 0.3), {2, 0, 1}, {}, {},
                         {false, true, true}, IndexType::kUint16);
}

TEST(Densify, BlockSparse) {
  std::mt19937 rng(3);
  // 8x12 matrix in 2x4 blocks: zero blocks are not stored.
  ref::Tensor<float> dense = RandomSparse<float>(rng, {8, 12}, 0.9);
  for (int64_t i = 0; i < ref::Count(dense.shape); ++i) {
    const auto idx = ref::Unravel(i, dense.shape);
    if ((idx[0] / 2 + idx[1] / 4) % 2 == 1) dense.data[static_cast<size_t>(i)] = 0.f;
  }
  CheckRoundTrip<float>(DataType::kFloat32, dense, {0, 1, 2, 3}, {0, 1}, {2, 4}, {false, true, false, false},
                        IndexType::kInt32);
  // In-block traversal column-major, block grid column-major.
  CheckRoundTrip<float>(DataType::kFloat32, dense, {1, 0, 3, 2}, {0, 1}, {2, 4}, {false, true, false, false},
                        IndexType::kUint16);
  // One blocked dimension only, float16 values.
  CheckRoundTrip<uint16_t>(DataType::kFloat16, RandomSparse<uint16_t>(rng, {4, 8}, 0.3), {0, 1, 2}, {1}, {4},
                           {false, true, false}, IndexType::kUint8);
}

TEST(Densify, RandomFormats) {
  std::mt19937 rng(4);
  for (int iter = 0; iter < 30; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    Shape shape = ref::RandomShape(rng, rank, 1, 5);
    std::vector<int> block_map, block_sizes;
    for (int d = 0; d < rank; ++d) {
      if (rng() % 3 == 0) {
        const int b = 1 + static_cast<int>(rng() % 3);
        shape[static_cast<size_t>(d)] *= b;
        block_map.push_back(d);
        block_sizes.push_back(b);
      }
    }
    std::vector<int> grid(static_cast<size_t>(rank)), blocks;
    for (int d = 0; d < rank; ++d) grid[static_cast<size_t>(d)] = d;
    for (size_t j = 0; j < block_map.size(); ++j) blocks.push_back(rank + static_cast<int>(j));
    std::shuffle(grid.begin(), grid.end(), rng);
    std::shuffle(blocks.begin(), blocks.end(), rng);
    std::vector<int> order = grid;
    order.insert(order.end(), blocks.begin(), blocks.end());
    std::vector<bool> sparse;
    for (size_t l = 0; l < order.size(); ++l) sparse.push_back(order[l] < rank && rng() % 2 == 0);
    CheckRoundTrip<float>(DataType::kFloat32, RandomSparse<float>(rng, shape, 0.3), order, block_map, block_sizes,
                          sparse, static_cast<IndexType>(rng() % 3));
  }
}

SparseTensor Small() {
  // [[0, 1, 0], [2, 0, 3]] as DENSE x CSR.
  SparseTensor t;
  t.shape = {2, 3};
  t.traversal_order = {0, 1};
  Level rows;
  rows.dense_size = 2;
  Level cols;
  cols.sparse = true;
  cols.segments = {0, 1, 3};
  cols.indices = {1, 0, 2};
  t.levels = {rows, cols};
  const std::vector<float> v = {1, 2, 3};
  t.values.resize(12);
  std::memcpy(t.values.data(), v.data(), 12);
  return t;
}

TEST(Densify, HandWritten) {
  auto r = RunDensify(Small(), IndexType::kInt32);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<float> got(6);
  std::memcpy(got.data(), r->second.data(), 24);
  EXPECT_EQ(got, (std::vector<float>{0, 1, 0, 2, 0, 3}));
}

TEST(Densify, MalformedSparsityIsAnError) {
  {
    SparseTensor t = Small();
    t.levels[1].indices[2] = 3;  // column out of range
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.levels[1].segments = {0, 2, 1};  // decreasing
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.levels[1].segments = {0, 1, 5};  // past array_indices
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.levels[1].segments = {0, 1};  // too short for 2 rows
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.levels[0].dense_size = 3;  // does not match the shape
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.traversal_order = {0, 0};
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.values.resize(8);  // two values for three positions
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();
    t.block_map = {1};  // block dimension without metadata
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32).ok());
  }
  {
    SparseTensor t = Small();  // a dense constant with no sparsity parameters
    t.values.assign(24, 0);
    EXPECT_FALSE(RunDensify(t, IndexType::kInt32, false).ok());
  }
}

}  // namespace
}  // namespace relite
