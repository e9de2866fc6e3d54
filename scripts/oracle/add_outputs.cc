// add_outputs IN OUT [LIMIT]: make every op output tensor (first LIMIT ops' outputs) a subgraph output.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>
#include "tflite_generated.h"  // flatc --cpp --gen-object-api --scoped-enums schema/tflite.fbs
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary);
  std::vector<char> buf((std::istreambuf_iterator<char>(f)), {});
  auto m = tflite::UnPackModel(buf.data());
  size_t lim = argc > 3 ? std::stoul(argv[3]) : 1u << 30;
  auto& sg = *m->subgraphs[0];
  size_t n = 0;
  for (auto& op : sg.operators)
    for (int t : op->outputs)
      if (t >= 0 && n++ < lim && std::find(sg.outputs.begin(), sg.outputs.end(), t) == sg.outputs.end()) sg.outputs.push_back(t);
  flatbuffers::FlatBufferBuilder b;
  b.Finish(tflite::Model::Pack(b, m.get()), "TFL3");
  std::ofstream(argv[2], std::ios::binary).write(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}
