/* classify MODEL: the C API (relite/c_api.h, TFLite's C API renamed) on a
 * classifier: build with
 *   cc -std=c99 classify.c $(pkg-config --cflags --libs relite) -o classify */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relite/c_api.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: classify MODEL.tflite\n");
    return 2;
  }
  ReliteModel* model = ReliteModelCreateFromFile(argv[1]);
  if (model == NULL) {
    fprintf(stderr, "error: %s\n", ReliteGetLastErrorMessage());
    return 1;
  }
  ReliteInterpreterOptions* options = ReliteInterpreterOptionsCreate();
  ReliteInterpreterOptionsSetNumThreads(options, 2);
  ReliteInterpreter* interpreter = ReliteInterpreterCreate(model, options);
  int status = 1;
  if (interpreter != NULL && ReliteInterpreterAllocateTensors(interpreter) == kReliteOk) {
    ReliteTensor* input = ReliteInterpreterGetInputTensor(interpreter, 0);
    size_t bytes = ReliteTensorByteSize(input);
    void* pixels = malloc(bytes);
    memset(pixels, 128, bytes);
    if (ReliteTensorCopyFromBuffer(input, pixels, bytes) == kReliteOk && ReliteInterpreterInvoke(interpreter) == kReliteOk) {
      const ReliteTensor* out = ReliteInterpreterGetOutputTensor(interpreter, 0);
      int32_t classes = ReliteTensorDim(out, ReliteTensorNumDims(out) - 1);
      const uint8_t* scores = (const uint8_t*)ReliteTensorData(out);
      int32_t best = 0;
      for (int32_t i = 1; i < classes && ReliteTensorType(out) == kReliteUInt8; ++i) {
        if (scores[i] > scores[best]) best = i;
      }
      printf("%s: %d classes (%s), best %d\n", argv[1], classes, ReliteTypeGetName(ReliteTensorType(out)), best);
      status = 0;
    }
    free(pixels);
  }
  if (status != 0) fprintf(stderr, "error: %s\n", ReliteGetLastErrorMessage());
  ReliteInterpreterDelete(interpreter);
  ReliteInterpreterOptionsDelete(options);
  ReliteModelDelete(model);
  return status;
}
