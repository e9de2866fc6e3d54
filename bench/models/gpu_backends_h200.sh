#!/bin/bash
# The GPU backends on an NVIDIA H200 (docs/PERFORMANCE.md, issue #17), run by the device
# tool from the repository root with build/device carried: ocl-icd .deb, bundle.tar.xz
# (stripped relite + gpu_* tests from build/release), models/ (../shared/models) and
# anchor_torch.py (../shared/tools/h200). Writes bench.log, profiles.log, torch.log to $OUT.
set -u
dpkg -x build/device/ocl-icd-libopencl1_2.3.1-1_amd64.deb / && ldconfig
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/b && tar -C /tmp/b -xJf build/device/bundle.tar.xz
B=/tmp/b/bin M=build/device/models
export RELITE_MODELS_DIR=$M RELITE_REQUIRE_MODELS=1 RELITE_REQUIRE_GPU=1 RELITE_REQUIRE_CUDA=1 RELITE_TEST_CLI=$B/relite
mkdir -p /tmp/zoo
for z in mobilenet_v1 mobilenet_v2 deeplab_v3 ssd_mobilenet_v1 posenet inception_v3; do $B/relite zoo $z --out /tmp/zoo/$z.tflite > /dev/null 2>&1; done
for m in $M/face_detection_short_range.tflite $M/face_detection_full_range.tflite $M/hand_landmark_lite.tflite $M/pose_landmark_lite.tflite $M/selfie_segmentation.tflite /tmp/zoo/*.tflite; do
  for be in opencl cuda; do for p in fp32 fp16; do
    echo "== $(basename $m) $be $p"; timeout 60 $B/relite bench $m --delegate gpu --gpu-backend $be --precision $p --runs 300 --warmup 30 --json 2>&1 | tail -1
  done; done
  echo "== $(basename $m) cpu16 fp32"; timeout 60 $B/relite bench $m --threads 16 --runs 100 --warmup 10 --json 2>&1 | tail -1
done > $OUT/bench.log 2>&1
for m in /tmp/zoo/mobilenet_v1.tflite /tmp/zoo/inception_v3.tflite $M/hand_landmark_lite.tflite; do for p in fp32 fp16; do
  echo "=== $(basename $m) cuda $p"; RELITE_GPU_PROFILE=1 timeout 60 $B/relite bench $m --delegate gpu --gpu-backend cuda --precision $p --runs 100 2>&1 | grep -E '^  |total'  | head -14
done; done > $OUT/profiles.log 2>&1
timeout 200 python3 build/device/anchor_torch.py > $OUT/torch.log 2>&1
