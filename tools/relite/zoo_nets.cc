// The zoo architectures, written with ModelWriter. Every conv carries its
// folded batch norm as a bias and its activation fused, as TFLite's converter
// emits the published models.
#include "tools/relite/zoo_nets.h"

#include <cmath>
#include <functional>

#include <flatbuffers/flexbuffers.h>
#include <fmt/format.h>

namespace relite::zoo {
namespace {

using namespace relite::writer;  // NOLINT: option structs

// SplitMix64: the same stream on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [-bound, bound).
  float Uniform(float bound) {
    const float u = static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
    return (2.0f * u - 1.0f) * bound;
  }

 private:
  uint64_t state_;
};

int OutSize(int in, int k, int stride, int dilation, Padding pad) {
  const int eff = (k - 1) * dilation + 1;
  return pad == Padding::kSame ? (in + stride - 1) / stride : (in - eff) / stride + 1;
}

class Net {
 public:
  Net(ModelWriter* w, uint64_t seed, bool float16) : w_(w), rng_(seed), float16_(float16) {}

  ModelWriter& writer() { return *w_; }
  const Shape& shape(int t) const { return w_->tensor_shape(t); }

  int Input(const Shape& s, const std::string& name) { return w_->AddTensor(DataType::kFloat32, s, name); }

  // He-style uniform weights: variance gain / fan_in (gain 2 before a ReLU,
  // 1 for linear layers).
  int Conv(int x, int cout, int kh, int kw, int stride, Activation act, const std::string& name,
           Padding pad = Padding::kSame, int dilation = 1, float gain = -1.0f) {
    const Shape in = shape(x);
    const int cin = in[3];
    if (gain < 0) gain = act == Activation::kNone ? 1.0f : 2.0f;
    const int wt = Weights({cout, kh, kw, cin}, std::sqrt(3.0f * gain / static_cast<float>(kh * kw * cin)),
                           name + "/weights");
    const int b = Weights({cout}, 0.05f, name + "/bias");
    const int y = w_->AddTensor(DataType::kFloat32,
                                {in[0], OutSize(in[1], kh, stride, dilation, pad),
                                 OutSize(in[2], kw, stride, dilation, pad), cout},
                                name);
    w_->AddOp(BuiltinOp::kConv2D, {x, wt, b}, {y}, Conv2DOptions{pad, stride, stride, act, dilation, dilation});
    return y;
  }
  int Conv(int x, int cout, int k, int stride, Activation act, const std::string& name, Padding pad = Padding::kSame,
           int dilation = 1, float gain = -1.0f) {
    return Conv(x, cout, k, k, stride, act, name, pad, dilation, gain);
  }

  int Depthwise(int x, int k, int stride, Activation act, const std::string& name, int dilation = 1) {
    const Shape in = shape(x);
    const int c = in[3];
    const int wt = Weights({1, k, k, c}, std::sqrt(6.0f / static_cast<float>(k * k)), name + "/depthwise_weights");
    const int b = Weights({c}, 0.05f, name + "/bias");
    const int y = w_->AddTensor(DataType::kFloat32,
                                {in[0], OutSize(in[1], k, stride, dilation, Padding::kSame),
                                 OutSize(in[2], k, stride, dilation, Padding::kSame), c},
                                name);
    w_->AddOp(BuiltinOp::kDepthwiseConv2D, {x, wt, b}, {y},
              DepthwiseConv2DOptions{Padding::kSame, stride, stride, 1, act, dilation, dilation});
    return y;
  }

  int Add(int a, int b, const std::string& name) {
    const int y = w_->AddTensor(DataType::kFloat32, shape(a), name);
    w_->AddOp(BuiltinOp::kAdd, {a, b}, {y}, ArithmeticOptions{});
    return y;
  }

  int Pool(BuiltinOp op, int x, int k, int stride, Padding pad, const std::string& name) {
    return Pool(op, x, k, k, stride, pad, name);
  }
  int Pool(BuiltinOp op, int x, int kh, int kw, int stride, Padding pad, const std::string& name) {
    const Shape in = shape(x);
    const int y = w_->AddTensor(
        DataType::kFloat32, {in[0], OutSize(in[1], kh, stride, 1, pad), OutSize(in[2], kw, stride, 1, pad), in[3]},
        name);
    w_->AddOp(op, {x}, {y}, Pool2DOptions{pad, stride, stride, kw, kh, Activation::kNone});
    return y;
  }

  int Concat(const std::vector<int>& xs, int axis, const std::string& name) {
    Shape s = shape(xs[0]);
    s[static_cast<size_t>(axis)] = 0;
    for (int x : xs) s[static_cast<size_t>(axis)] += shape(x)[static_cast<size_t>(axis)];
    const int y = w_->AddTensor(DataType::kFloat32, s, name);
    w_->AddOp(BuiltinOp::kConcatenation, xs, {y}, ConcatenationOptions{axis, Activation::kNone});
    return y;
  }

  // The converter writes the new shape both as an int32 input and in the options.
  int Reshape(int x, const Shape& s, const std::string& name) {
    const int st = w_->AddConstantOf<int32_t>({static_cast<int32_t>(s.size())}, name + "/shape", s);
    const int y = w_->AddTensor(DataType::kFloat32, s, name);
    w_->AddOp(BuiltinOp::kReshape, {x, st}, {y}, ReshapeOptions{s});
    return y;
  }

  int Softmax(int x, const std::string& name) {
    const int y = w_->AddTensor(DataType::kFloat32, shape(x), name);
    w_->AddOp(BuiltinOp::kSoftmax, {x}, {y}, SoftmaxOptions{1.0f});
    return y;
  }

  int Logistic(int x, const std::string& name) {
    const int y = w_->AddTensor(DataType::kFloat32, shape(x), name);
    w_->AddOp(BuiltinOp::kLogistic, {x}, {y});
    return y;
  }

  int Resize(int x, int h, int wd, bool align_corners, const std::string& name) {
    const Shape in = shape(x);
    const int size = w_->AddConstantOf<int32_t>({2}, name + "/size", {h, wd});
    const int y = w_->AddTensor(DataType::kFloat32, {in[0], h, wd, in[3]}, name);
    w_->AddOp(BuiltinOp::kResizeBilinear, {x, size}, {y}, ResizeBilinearOptions{align_corners, false});
    return y;
  }

  // float32 constant, or float16 + DEQUANTIZE.
  int Weights(const Shape& s, float bound, const std::string& name) {
    std::vector<float> v(static_cast<size_t>(NumElements(s)));
    for (float& x : v) x = rng_.Uniform(bound);
    if (!float16_) return w_->AddConstantOf<float>(s, name, v);
    const int h = w_->AddFloat16Constant(s, name + "_fp16", v);
    const int f = w_->AddTensor(DataType::kFloat32, s, name);
    w_->AddOp(BuiltinOp::kDequantize, {h}, {f});
    return f;
  }

 private:
  ModelWriter* w_;
  Rng rng_;
  bool float16_;
};

// Classifier tail of the MobileNets / Inception: global average pool, 1x1
// conv to 1001 logits, reshape to [1, 1001], softmax.
int ClassifierHead(Net& n, int x, const std::string& scope) {
  const Shape s = n.shape(x);
  const int pool = n.Pool(BuiltinOp::kAveragePool2D, x, s[1], s[2], 1, Padding::kValid, scope + "/AvgPool");
  const int logits = n.Conv(pool, 1001, 1, 1, Activation::kNone, scope + "/Conv2d_1c_1x1");
  const int flat = n.Reshape(logits, {1, 1001}, scope + "/Reshape");
  return n.Softmax(flat, scope + "/Predictions");
}

// MobileNet v1 (depth multiplier 1.0) up to Conv2d_13_pointwise; with
// output_stride 16 the last stride-2 layer keeps stride 1 and the layers
// after it are dilated (rate 2), as TF's mobilenet_v1 does. `keep_at` > 0
// also returns the output of that pointwise layer (SSD's 19x19 map).
int MobileNetV1Body(Net& n, int x, int output_stride, int keep_at = -1, int* kept = nullptr) {
  const Activation r6 = Activation::kRelu6;
  x = n.Conv(x, 32, 3, 2, r6, "MobilenetV1/Conv2d_0");
  const int spec[13][2] = {{1, 64},  {2, 128}, {1, 128}, {2, 256}, {1, 256}, {2, 512},  {1, 512},
                           {1, 512}, {1, 512}, {1, 512}, {1, 512}, {2, 1024}, {1, 1024}};
  int current = 2, rate = 1;
  for (int i = 0; i < 13; ++i) {
    int stride = spec[i][0], layer_rate = 1;
    if (output_stride > 0 && current == output_stride) {
      layer_rate = rate;
      rate *= stride;
      stride = 1;
    } else {
      current *= stride;
    }
    const std::string scope = fmt::format("MobilenetV1/Conv2d_{}", i + 1);
    x = n.Depthwise(x, 3, stride, r6, scope + "_depthwise", layer_rate);
    x = n.Conv(x, spec[i][1], 1, 1, r6, scope + "_pointwise");
    if (i + 1 == keep_at && kept != nullptr) *kept = x;
  }
  return x;
}

// MobileNet v2 inverted residual blocks (expansion t, channels c, repeats n,
// stride s); dilated past output_stride like TF's mobilenet_v2.
int MobileNetV2Body(Net& n, int x, int output_stride) {
  const Activation r6 = Activation::kRelu6;
  x = n.Conv(x, 32, 3, 2, r6, "MobilenetV2/Conv");
  const int spec[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int current = 2, rate = 1, block = 0;
  for (const auto& g : spec) {
    for (int r = 0; r < g[2]; ++r, ++block) {
      int stride = r == 0 ? g[3] : 1, layer_rate = 1;
      if (output_stride > 0 && current == output_stride) {
        layer_rate = rate;
        rate *= stride;
        stride = 1;
      } else {
        current *= stride;
      }
      const std::string scope = block == 0 ? "MobilenetV2/expanded_conv" : fmt::format("MobilenetV2/expanded_conv_{}", block);
      const int in = x;
      const int cin = n.shape(x)[3];
      int h = x;
      if (g[0] != 1) h = n.Conv(h, cin * g[0], 1, 1, r6, scope + "/expand");
      h = n.Depthwise(h, 3, stride, r6, scope + "/depthwise", layer_rate);
      const bool residual = stride == 1 && cin == g[1];
      // Residual branches start small so the sum's variance grows slowly.
      h = n.Conv(h, g[1], 1, 1, Activation::kNone, scope + "/project", Padding::kSame, 1, residual ? 0.25f : 1.0f);
      x = residual ? n.Add(in, h, scope + "/add") : h;
    }
  }
  return x;
}

Status MobileNetV1(Net& n) {
  const int in = n.Input({1, 224, 224, 3}, "input");
  const int out = ClassifierHead(n, MobileNetV1Body(n, in, 0), "MobilenetV1/Logits");
  n.writer().SetInputs({in});
  n.writer().SetOutputs({out});
  return Status::Ok();
}

Status MobileNetV2(Net& n) {
  const int in = n.Input({1, 224, 224, 3}, "input");
  int x = MobileNetV2Body(n, in, 0);
  x = n.Conv(x, 1280, 1, 1, Activation::kRelu6, "MobilenetV2/Conv_1");
  const int out = ClassifierHead(n, x, "MobilenetV2/Logits");
  n.writer().SetInputs({in});
  n.writer().SetOutputs({out});
  return Status::Ok();
}

// DeepLab v3 on MobileNet v2 (output stride 16): ASPP = image pooling branch
// (global average pool, 1x1 conv, bilinear upsampling) + 1x1 branch,
// concatenated and projected to 256, 1x1 logits, bilinear upsampling to the
// input size (align_corners, as TF1 DeepLab).
Status DeepLabV3(Net& n) {
  const int in = n.Input({1, 257, 257, 3}, "sub_7");
  const int f = MobileNetV2Body(n, in, 16);
  const Shape fs = n.shape(f);
  const Activation relu = Activation::kRelu;
  int pool = n.Pool(BuiltinOp::kAveragePool2D, f, fs[1], fs[2], 1, Padding::kValid, "AvgPool2D");
  pool = n.Conv(pool, 256, 1, 1, relu, "image_pooling");
  pool = n.Resize(pool, fs[1], fs[2], true, "ResizeBilinear");
  const int aspp0 = n.Conv(f, 256, 1, 1, relu, "aspp0");
  const int cat = n.Concat({pool, aspp0}, 3, "concat");
  const int proj = n.Conv(cat, 256, 1, 1, relu, "concat_projection");
  const int logits = n.Conv(proj, 21, 1, 1, Activation::kNone, "logits/semantic");
  const int out = n.Resize(logits, 257, 257, true, "ResizeBilinear_2");
  n.writer().SetInputs({in});
  n.writer().SetOutputs({out});
  return Status::Ok();
}

// SSD MobileNet v1 (COCO, 300x300): feature maps Conv2d_11 (19x19) and
// Conv2d_13 (10x10) plus four extra layers (5, 3, 2, 1); 1x1 box and class
// predictors; 1917 anchors; sigmoid scores; TFLite_Detection_PostProcess.
Status SsdMobileNetV1(Net& n) {
  const int in = n.Input({1, 300, 300, 3}, "normalized_input_image_tensor");
  int conv11 = -1;
  const int conv13 = MobileNetV1Body(n, in, 0, 11, &conv11);
  std::vector<int> maps = {conv11, conv13};
  const int extra[4][2] = {{256, 512}, {128, 256}, {128, 256}, {64, 128}};
  int x = conv13;
  for (int i = 0; i < 4; ++i) {
    const std::string scope = fmt::format("FeatureExtractor/MobilenetV1/Conv2d_13_pointwise_{}", i + 2);
    x = n.Conv(x, extra[i][0], 1, 1, Activation::kRelu6, fmt::format("{}_1_Conv2d_{}_1x1_{}", scope, i + 2, extra[i][0]));
    x = n.Conv(x, extra[i][1], 3, 2, Activation::kRelu6,
               fmt::format("{}_2_Conv2d_{}_3x3_s2_{}", scope, i + 2, extra[i][1]));
    maps.push_back(x);
  }
  constexpr int kClasses = 91;  // 90 COCO classes + background
  std::vector<int> boxes, classes, sizes;
  int total = 0;
  for (size_t l = 0; l < maps.size(); ++l) {
    const Shape s = n.shape(maps[l]);
    const int anchors = l == 0 ? 3 : 6;
    const int cells = s[1] * s[2] * anchors;
    total += cells;
    sizes.push_back(s[1]);
    const std::string scope = fmt::format("BoxPredictor_{}", l);
    const int b = n.Conv(maps[l], anchors * 4, 1, 1, Activation::kNone, scope + "/BoxEncodingPredictor");
    boxes.push_back(n.Reshape(b, {1, cells, 4}, scope + "/Reshape"));
    const int c = n.Conv(maps[l], anchors * kClasses, 1, 1, Activation::kNone, scope + "/ClassPredictor");
    classes.push_back(n.Reshape(c, {1, cells, kClasses}, scope + "/Reshape_1"));
  }
  const int box_enc = n.Concat(boxes, 1, "concat");
  const int class_logits = n.Concat(classes, 1, "concat_1");
  const int scores = n.Logistic(class_logits, "raw_outputs/class_predictions");
  const std::vector<float> anchors = SsdAnchors(sizes);
  if (static_cast<int>(anchors.size()) != total * 4) {
    return InternalError(fmt::format("ssd: {} anchors for {} box predictions", anchors.size() / 4, total));
  }
  ModelWriter& w = n.writer();
  const int anchor_t = w.AddConstantOf<float>({total, 4}, "anchors", anchors);

  flexbuffers::Builder fbb;
  fbb.Map([&]() {
    fbb.Int("max_detections", 10);
    fbb.Int("max_classes_per_detection", 1);
    fbb.Int("detections_per_class", 100);
    fbb.Bool("use_regular_nms", false);
    fbb.Float("nms_score_threshold", 1e-8f);
    fbb.Float("nms_iou_threshold", 0.6f);
    fbb.Int("num_classes", kClasses - 1);
    fbb.Float("y_scale", 10.0f);
    fbb.Float("x_scale", 10.0f);
    fbb.Float("h_scale", 5.0f);
    fbb.Float("w_scale", 5.0f);
  });
  fbb.Finish();
  const int det_boxes = w.AddTensor(DataType::kFloat32, {1, 10, 4}, "TFLite_Detection_PostProcess");
  const int det_classes = w.AddTensor(DataType::kFloat32, {1, 10}, "TFLite_Detection_PostProcess:1");
  const int det_scores = w.AddTensor(DataType::kFloat32, {1, 10}, "TFLite_Detection_PostProcess:2");
  const int det_count = w.AddTensor(DataType::kFloat32, {1}, "TFLite_Detection_PostProcess:3");
  w.AddCustomOp("TFLite_Detection_PostProcess", {box_enc, scores, anchor_t},
                {det_boxes, det_classes, det_scores, det_count}, fbb.GetBuffer());
  w.SetInputs({in});
  w.SetOutputs({det_boxes, det_classes, det_scores, det_count});
  return Status::Ok();
}

// PoseNet (MobileNet v1 1.0, 257x257, output stride 16): heatmaps (17
// keypoints, logits), offsets (34), forward and backward displacements (32 each).
Status PoseNet(Net& n) {
  const int in = n.Input({1, 257, 257, 3}, "sub_2");
  const int f = MobileNetV1Body(n, in, 16);
  const int heat = n.Conv(f, 17, 1, 1, Activation::kNone, "MobilenetV1/heatmap_2/BiasAdd");
  const int off = n.Conv(f, 34, 1, 1, Activation::kNone, "MobilenetV1/offset_2/BiasAdd");
  const int fwd = n.Conv(f, 32, 1, 1, Activation::kNone, "MobilenetV1/displacement_fwd_2/BiasAdd");
  const int bwd = n.Conv(f, 32, 1, 1, Activation::kNone, "MobilenetV1/displacement_bwd_2/BiasAdd");
  n.writer().SetInputs({in});
  n.writer().SetOutputs({heat, off, fwd, bwd});
  return Status::Ok();
}

// Inception v3 (299x299): stem, 3x Inception-A, reduction, 4x Inception-C
// (factorised 7x7), reduction, 2x Inception-E, average pool, 1001 logits.
Status InceptionV3(Net& n) {
  const Activation relu = Activation::kRelu;
  const Padding same = Padding::kSame, valid = Padding::kValid;
  auto conv = [&](int x, int c, int kh, int kw, int s, Padding p, const std::string& name) {
    return n.Conv(x, c, kh, kw, s, relu, name, p);
  };
  const int in = n.Input({1, 299, 299, 3}, "input");
  int x = conv(in, 32, 3, 3, 2, valid, "InceptionV3/Conv2d_1a_3x3");
  x = conv(x, 32, 3, 3, 1, valid, "InceptionV3/Conv2d_2a_3x3");
  x = conv(x, 64, 3, 3, 1, same, "InceptionV3/Conv2d_2b_3x3");
  x = n.Pool(BuiltinOp::kMaxPool2D, x, 3, 2, valid, "InceptionV3/MaxPool_3a_3x3");
  x = conv(x, 80, 1, 1, 1, valid, "InceptionV3/Conv2d_3b_1x1");
  x = conv(x, 192, 3, 3, 1, valid, "InceptionV3/Conv2d_4a_3x3");
  x = n.Pool(BuiltinOp::kMaxPool2D, x, 3, 2, valid, "InceptionV3/MaxPool_5a_3x3");
  const char* a_names[3] = {"Mixed_5b", "Mixed_5c", "Mixed_5d"};
  const int a_pool[3] = {32, 64, 64};
  for (int i = 0; i < 3; ++i) {
    const std::string s = std::string("InceptionV3/") + a_names[i];
    const int b0 = conv(x, 64, 1, 1, 1, same, s + "/Branch_0/Conv2d_0a_1x1");
    int b1 = conv(x, 48, 1, 1, 1, same, s + "/Branch_1/Conv2d_0a_1x1");
    b1 = conv(b1, 64, 5, 5, 1, same, s + "/Branch_1/Conv2d_0b_5x5");
    int b2 = conv(x, 64, 1, 1, 1, same, s + "/Branch_2/Conv2d_0a_1x1");
    b2 = conv(b2, 96, 3, 3, 1, same, s + "/Branch_2/Conv2d_0b_3x3");
    b2 = conv(b2, 96, 3, 3, 1, same, s + "/Branch_2/Conv2d_0c_3x3");
    int b3 = n.Pool(BuiltinOp::kAveragePool2D, x, 3, 1, same, s + "/Branch_3/AvgPool_0a_3x3");
    b3 = conv(b3, a_pool[i], 1, 1, 1, same, s + "/Branch_3/Conv2d_0b_1x1");
    x = n.Concat({b0, b1, b2, b3}, 3, s + "/concat");
  }
  {
    const std::string s = "InceptionV3/Mixed_6a";
    const int b0 = conv(x, 384, 3, 3, 2, valid, s + "/Branch_0/Conv2d_1a_1x1");
    int b1 = conv(x, 64, 1, 1, 1, same, s + "/Branch_1/Conv2d_0a_1x1");
    b1 = conv(b1, 96, 3, 3, 1, same, s + "/Branch_1/Conv2d_0b_3x3");
    b1 = conv(b1, 96, 3, 3, 2, valid, s + "/Branch_1/Conv2d_1a_1x1");
    const int b2 = n.Pool(BuiltinOp::kMaxPool2D, x, 3, 2, valid, s + "/Branch_2/MaxPool_1a_3x3");
    x = n.Concat({b0, b1, b2}, 3, s + "/concat");
  }
  const char* c_names[4] = {"Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e"};
  const int c7s[4] = {128, 160, 160, 192};
  for (int i = 0; i < 4; ++i) {
    const std::string s = std::string("InceptionV3/") + c_names[i];
    const int c7 = c7s[i];
    const int b0 = conv(x, 192, 1, 1, 1, same, s + "/Branch_0/Conv2d_0a_1x1");
    int b1 = conv(x, c7, 1, 1, 1, same, s + "/Branch_1/Conv2d_0a_1x1");
    b1 = conv(b1, c7, 1, 7, 1, same, s + "/Branch_1/Conv2d_0b_1x7");
    b1 = conv(b1, 192, 7, 1, 1, same, s + "/Branch_1/Conv2d_0c_7x1");
    int b2 = conv(x, c7, 1, 1, 1, same, s + "/Branch_2/Conv2d_0a_1x1");
    b2 = conv(b2, c7, 7, 1, 1, same, s + "/Branch_2/Conv2d_0b_7x1");
    b2 = conv(b2, c7, 1, 7, 1, same, s + "/Branch_2/Conv2d_0c_1x7");
    b2 = conv(b2, c7, 7, 1, 1, same, s + "/Branch_2/Conv2d_0d_7x1");
    b2 = conv(b2, 192, 1, 7, 1, same, s + "/Branch_2/Conv2d_0e_1x7");
    int b3 = n.Pool(BuiltinOp::kAveragePool2D, x, 3, 1, same, s + "/Branch_3/AvgPool_0a_3x3");
    b3 = conv(b3, 192, 1, 1, 1, same, s + "/Branch_3/Conv2d_0b_1x1");
    x = n.Concat({b0, b1, b2, b3}, 3, s + "/concat");
  }
  {
    const std::string s = "InceptionV3/Mixed_7a";
    int b0 = conv(x, 192, 1, 1, 1, same, s + "/Branch_0/Conv2d_0a_1x1");
    b0 = conv(b0, 320, 3, 3, 2, valid, s + "/Branch_0/Conv2d_1a_3x3");
    int b1 = conv(x, 192, 1, 1, 1, same, s + "/Branch_1/Conv2d_0a_1x1");
    b1 = conv(b1, 192, 1, 7, 1, same, s + "/Branch_1/Conv2d_0b_1x7");
    b1 = conv(b1, 192, 7, 1, 1, same, s + "/Branch_1/Conv2d_0c_7x1");
    b1 = conv(b1, 192, 3, 3, 2, valid, s + "/Branch_1/Conv2d_1a_3x3");
    const int b2 = n.Pool(BuiltinOp::kMaxPool2D, x, 3, 2, valid, s + "/Branch_2/MaxPool_1a_3x3");
    x = n.Concat({b0, b1, b2}, 3, s + "/concat");
  }
  const char* e_names[2] = {"Mixed_7b", "Mixed_7c"};
  for (int i = 0; i < 2; ++i) {
    const std::string s = std::string("InceptionV3/") + e_names[i];
    const int b0 = conv(x, 320, 1, 1, 1, same, s + "/Branch_0/Conv2d_0a_1x1");
    int b1 = conv(x, 384, 1, 1, 1, same, s + "/Branch_1/Conv2d_0a_1x1");
    const int b1a = conv(b1, 384, 1, 3, 1, same, s + "/Branch_1/Conv2d_0b_1x3");
    const int b1b = conv(b1, 384, 3, 1, 1, same, s + "/Branch_1/Conv2d_0c_3x1");
    b1 = n.Concat({b1a, b1b}, 3, s + "/Branch_1/concat");
    int b2 = conv(x, 448, 1, 1, 1, same, s + "/Branch_2/Conv2d_0a_1x1");
    b2 = conv(b2, 384, 3, 3, 1, same, s + "/Branch_2/Conv2d_0b_3x3");
    const int b2a = conv(b2, 384, 1, 3, 1, same, s + "/Branch_2/Conv2d_0c_1x3");
    const int b2b = conv(b2, 384, 3, 1, 1, same, s + "/Branch_2/Conv2d_0d_3x1");
    b2 = n.Concat({b2a, b2b}, 3, s + "/Branch_2/concat");
    int b3 = n.Pool(BuiltinOp::kAveragePool2D, x, 3, 1, same, s + "/Branch_3/AvgPool_0a_3x3");
    b3 = conv(b3, 192, 1, 1, 1, same, s + "/Branch_3/Conv2d_0b_1x1");
    x = n.Concat({b0, b1, b2, b3}, 3, s + "/concat");
  }
  const int out = ClassifierHead(n, x, "InceptionV3/Logits");
  n.writer().SetInputs({in});
  n.writer().SetOutputs({out});
  return Status::Ok();
}

struct Builder {
  ZooEntry entry;
  std::function<Status(Net&)> build;
};

const std::vector<Builder>& Builders() {
  static const std::vector<Builder> builders = {
      {{"mobilenet_v1", "MobileNet v1 1.0, 224x224x3 -> softmax over 1001 classes"}, MobileNetV1},
      {{"mobilenet_v2", "MobileNet v2 1.0, 224x224x3 -> softmax over 1001 classes"}, MobileNetV2},
      {{"deeplab_v3", "DeepLab v3, MobileNet v2 backbone (output stride 16), ASPP with image pooling, "
                      "257x257x3 -> 257x257x21 logits"},
       DeepLabV3},
      {{"ssd_mobilenet_v1", "SSD MobileNet v1 (COCO), 300x300x3, 1917 anchors, TFLite_Detection_PostProcess"},
       SsdMobileNetV1},
      {{"posenet", "PoseNet, MobileNet v1 backbone (output stride 16), 257x257x3 -> 17x17 heatmaps/offsets/"
                   "displacements"},
       PoseNet},
      {{"inception_v3", "Inception v3, 299x299x3 -> softmax over 1001 classes"}, InceptionV3},
  };
  return builders;
}

}  // namespace

const std::vector<ZooEntry>& ZooModels() {
  static const std::vector<ZooEntry> entries = [] {
    std::vector<ZooEntry> e;
    for (const auto& b : Builders()) e.push_back(b.entry);
    return e;
  }();
  return entries;
}

std::vector<float> SsdAnchors(const std::vector<int>& feature_sizes) {
  const int layers = static_cast<int>(feature_sizes.size());
  const float min_scale = 0.2f, max_scale = 0.95f;
  std::vector<float> scales;
  for (int i = 0; i < layers; ++i) {
    scales.push_back(min_scale + (max_scale - min_scale) * static_cast<float>(i) / static_cast<float>(layers - 1));
  }
  scales.push_back(1.0f);
  const float ratios[5] = {1.0f, 2.0f, 0.5f, 3.0f, 1.0f / 3.0f};
  std::vector<float> out;
  for (int l = 0; l < layers; ++l) {
    std::vector<std::pair<float, float>> specs;  // (scale, aspect ratio)
    if (l == 0) {
      specs = {{0.1f, 1.0f}, {scales[0], 2.0f}, {scales[0], 0.5f}};
    } else {
      for (float r : ratios) specs.push_back({scales[static_cast<size_t>(l)], r});
      specs.push_back({std::sqrt(scales[static_cast<size_t>(l)] * scales[static_cast<size_t>(l) + 1]), 1.0f});
    }
    const int size = feature_sizes[static_cast<size_t>(l)];
    const float stride = 1.0f / static_cast<float>(size);
    for (int y = 0; y < size; ++y)
      for (int x = 0; x < size; ++x)
        for (const auto& [scale, ratio] : specs) {
          const float r = std::sqrt(ratio);
          out.push_back((static_cast<float>(y) + 0.5f) * stride);
          out.push_back((static_cast<float>(x) + 0.5f) * stride);
          out.push_back(scale / r);
          out.push_back(scale * r);
        }
  }
  return out;
}

Status BuildZooModel(const std::string& name, uint64_t seed, bool float16, ModelWriter* writer) {
  for (const auto& b : Builders()) {
    if (b.entry.name != name) continue;
    if (writer->num_tensors() != 0) return InvalidArgumentError("zoo: the model writer is not empty");
    // One stream per (model, seed): the same seed gives different weights
    // for different architectures but the same file every time.
    uint64_t h = 1469598103934665603ull;
    for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    Net net(writer, h ^ (seed * 0x9e3779b97f4a7c15ull), float16);
    return b.build(net);
  }
  std::string names;
  for (const auto& e : ZooModels()) names += (names.empty() ? "" : ", ") + e.name;
  return NotFoundError(fmt::format("zoo: no model named '{}' (known: {})", name, names));
}

}  // namespace relite::zoo
