// relite: run, inspect and benchmark .tflite models. Command-line wiring only;
// the subcommands live in run.cc, inspect.cc, bench.cc, convert.cc and zoo.cc.
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tools/relite/common.h"
#include "tools/relite/delegates.h"
#include "tools/relite/convert.h"
#include "tools/relite/diff.h"

namespace {

using relite::cli::ReportError;

int Main(int argc, char** argv) {
  CLI::App app{"relite: run, inspect and benchmark TensorFlow Lite (.tflite) models", "relite"};
  app.set_version_flag("--version", std::string("relite ") + relite::cli::kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  const std::string threads_help = "Worker threads (default: one per hardware core)";
  relite::cli::RegisterBuiltinDelegates();
  std::string delegate_help = "Run the operations this delegate supports on it, the rest on the CPU (available: ";
  {
    std::string names;
    for (const auto& d : relite::cli::RegisteredDelegates()) names += (names.empty() ? "" : ", ") + d.name;
    delegate_help += (names.empty() ? std::string("none in this build") : names) + ")";
  }

  // The resource bounds (relite::ResourceLimits) and the float mode on run, inspect, bench and diff.
  auto add_interpreter_flags = [](CLI::App* cmd, relite::cli::InterpreterFlags& flags) {
    cmd->add_option("--max-arena-bytes", flags.arena_bytes,
                    "Refuse a model whose activation arena exceeds SIZE (e.g. 512M, 4G; 0: no bound; default 4G)")
        ->type_name("SIZE");
    cmd->add_option("--max-tensor-bytes", flags.tensor_bytes,
                    "Refuse a model with a tensor larger than SIZE (0: no bound; default 1G)")
        ->type_name("SIZE");
    cmd->add_option("--max-macs", flags.macs,
                    "Refuse a model estimated to need more than N multiply-accumulates per inference (e.g. 2e11, 500G; "
                    "0: no bound; default 2e11)")
        ->type_name("N");
    cmd->add_flag("--keep-denormals", flags.keep_denormals,
                  "CPU kernels keep IEEE subnormal floats (default: taken as zero; an operation on one costs ~100 cycles "
                  "on x86)");
  };

  // The GPU delegate's kernel cache and tuning (run, inspect, bench).
  auto add_gpu_cache_flags = [](CLI::App* cmd, relite::cli::DelegateFlags& flags) {
    cmd->add_option("--serialization-dir", flags.serialization_dir,
                    "GPU delegate: keep compiled kernels (and tuned work-group sizes) in DIR; a later start skips the "
                    "compiler (created 0700)")
        ->type_name("DIR");
    cmd->add_option("--model-token", flags.model_token,
                    "GPU delegate: the model's name in the kernel cache (default: a hash of the model's bytes)")
        ->type_name("TOKEN");
    cmd->add_option("--inference-preference", flags.preference,
                    "GPU delegate: fast (default: heuristic work-group sizes) or sustained (tune each kernel on the "
                    "device; cached with --serialization-dir)")
        ->check(CLI::IsMember({"fast", "sustained"}));
    cmd->add_option("--gpu-backend", flags.gpu_backend,
                    "GPU delegate: auto (default: CUDA on an NVIDIA GPU whose driver loads, else OpenCL), opencl or cuda")
        ->check(CLI::IsMember({"auto", "opencl", "cuda"}));
    cmd->add_flag("--onednn-force", flags.force,
                  "oneDNN delegate: take nodes even where the CPU check expects no gain (oneDNN below AVX-512)");
  };

  relite::cli::RunOptions run_opts;
  CLI::App* run = app.add_subcommand("run", "Run one inference and summarise the outputs");
  run->add_option("MODEL", run_opts.model, "The .tflite model")->required();
  run->add_option("--input,-i", run_opts.inputs,
                  "Input file (.bin raw bytes, .npy, or .bmp/.png/.jpg image); once per graph input, in order. "
                  "Without --input, deterministic pseudo-random data is used")
      ->allow_extra_args(false)
      ->type_name("FILE");
  run->add_option("--output-dir,-o", run_opts.output_dir, "Write output_K.bin and output_K.npy here (created if missing)")
      ->type_name("DIR");
  run->add_option("--threads,-t", run_opts.threads, threads_help)->check(CLI::Range(1, 1024));
  run->add_option("--labels", run_opts.labels, "Labels file (one per line) for the top-K classes of output 0")
      ->type_name("FILE");
  CLI::Option* top = run->add_option("--top", run_opts.top, "How many classes to list (default 5)")
                         ->check(CLI::Range(1, 1000000));
  run->add_option("--float-range", run_opts.float_range,
                  "Pixel mapping for float inputs fed from images: -1,1 (pixel/127.5-1, default) or 0,1 (pixel/255)");
  run->add_flag("--save-inputs", run_opts.save_inputs,
                "Also write the inputs as fed (input_K.bin, input_K.npy) to --output-dir");
  run->add_option("--dump-tensors", run_opts.dump_tensors,
                  "Keep every intermediate tensor and write each as DIR/tensor_<index>.npy (layer-by-layer diffing)");
  run->add_option("--delegate", run_opts.delegate.name, delegate_help)->type_name("NAME");
  run->add_option("--precision", run_opts.delegate.precision, "Delegate precision: fp32 (default); GPU: fp16 (half storage, float arithmetic); oneDNN: bf16 (AVX-512 BF16 or AMX)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  add_interpreter_flags(run, run_opts.interpreter);
  add_gpu_cache_flags(run, run_opts.delegate);
  run->add_option("--gpu-device", run_opts.delegate.device, "GPU delegate device: an index or a name substring (default: the first GPU, else any OpenCL device)")
      ->type_name("N|NAME");

  relite::cli::InspectOptions inspect_opts;
  CLI::App* inspect =
      app.add_subcommand("inspect", "Describe the model: inputs, outputs, operators, tensors, memory plan");
  inspect->add_option("MODEL", inspect_opts.model, "The .tflite model")->required();
  inspect->add_option("--threads,-t", inspect_opts.threads, threads_help)->check(CLI::Range(1, 1024));
  inspect->add_option("--delegate", inspect_opts.delegate.name, delegate_help + "; adds a node-by-node placement table")
      ->type_name("NAME");
  inspect->add_option("--precision", inspect_opts.delegate.precision, "Delegate precision: fp32 (default); GPU: fp16 (half storage, float arithmetic); oneDNN: bf16 (AVX-512 BF16 or AMX)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  add_interpreter_flags(inspect, inspect_opts.interpreter);
  add_gpu_cache_flags(inspect, inspect_opts.delegate);
  inspect->add_option("--gpu-device", inspect_opts.delegate.device, "GPU delegate device: an index or a name substring (default: the first GPU, else any OpenCL device)")
      ->type_name("N|NAME");

  relite::cli::BenchOptions bench_opts;
  CLI::App* bench = app.add_subcommand("bench", "Measure init time, first inference and steady-state latency");
  bench->add_option("MODEL", bench_opts.model, "The .tflite model")->required();
  bench->add_option("--threads,-t", bench_opts.threads, threads_help)->check(CLI::Range(1, 1024));
  bench->add_option("--runs", bench_opts.runs, "Timed runs (default 50)")->check(CLI::Range(1, 100000000));
  bench->add_option("--warmup", bench_opts.warmup, "Warm-up runs after the first (default 5)")
      ->check(CLI::Range(0, 100000000));
  bench->add_flag("--json", bench_opts.json, "Print one JSON object instead of a table");
  bench->add_flag("--profile", bench_opts.profile, "Also time every operator and print the time per op type");
  bench->add_option("--profile-nodes", bench_opts.profile_nodes,
                    "With the per-op table, list the N slowest nodes with their shapes (implies --profile)")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  bench->add_option("--delegate", bench_opts.delegate.name, delegate_help)->type_name("NAME");
  bench->add_option("--precision", bench_opts.delegate.precision, "Delegate precision: fp32 (default); GPU: fp16 (half storage, float arithmetic); oneDNN: bf16 (AVX-512 BF16 or AMX)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  add_interpreter_flags(bench, bench_opts.interpreter);
  add_gpu_cache_flags(bench, bench_opts.delegate);
  bench->add_option("--gpu-device", bench_opts.delegate.device, "GPU delegate device: an index or a name substring (default: the first GPU, else any OpenCL device)")
      ->type_name("N|NAME");

  relite::cli::ConvertOptions convert_opts;
  CLI::App* convert = app.add_subcommand("convert", "Rewrite a model: --dequantize turns a quantized model into a float one");
  convert->add_option("MODEL", convert_opts.model, "The quantized .tflite model")->required();
  convert->add_flag("--dequantize", convert_opts.dequantize,
                    "Float model with the dequantized weights, float I/O, QUANTIZE/DEQUANTIZE removed");
  convert->add_option("--out,-o", convert_opts.out, "The .tflite file to write")->required()->type_name("FILE");
  convert->add_option("--weights", convert_opts.weights,
                      "float32 (default) or float16 (float16 constants + DEQUANTIZE ops)");

  relite::cli::DiffOptions diff_opts;
  CLI::App* diff = app.add_subcommand(
      "diff", "Run a model in two configurations (or two models) on the same inputs and compare every output "
              "(--per-layer: every tensor, naming the first past the bound)");
  diff->add_option("MODEL", diff_opts.model, "The .tflite model")->required();
  diff->add_option("--ref-model", diff_opts.ref_model,
                   "Compare against this model instead (e.g. a converted copy; tensors matched by name)")
      ->type_name("FILE");
  diff->add_option("--input,-i", diff_opts.inputs, "Input file, once per graph input (default: pseudo-random)")
      ->type_name("FILE");
  diff->add_option("--seed", diff_opts.seed, "Seed of the pseudo-random inputs (default 1)");
  diff->add_option("--delegate", diff_opts.delegate.name, "Test configuration: " + delegate_help)->type_name("NAME");
  diff->add_option("--precision", diff_opts.delegate.precision, "Test configuration: GPU precision fp32|fp16")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  diff->add_option("--gpu-device", diff_opts.delegate.device, "Test configuration: GPU device")->type_name("N|NAME");
  diff->add_option("--threads,-t", diff_opts.threads, "Test configuration: " + threads_help)->check(CLI::Range(1, 1024));
  diff->add_option("--ref-delegate", diff_opts.ref_delegate.name, "Reference configuration's delegate (default: CPU only)")
      ->type_name("NAME");
  diff->add_option("--ref-precision", diff_opts.ref_delegate.precision, "Reference configuration: GPU precision")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  diff->add_option("--ref-threads", diff_opts.ref_threads, "Reference configuration's threads (default: as the test's)")
      ->check(CLI::Range(1, 1024));
  diff->add_option("--atol", diff_opts.atol, "Bound: |a - b| <= atol + rtol * |b| (default 1e-3)");
  diff->add_option("--rtol", diff_opts.rtol, "Bound: relative part (default 1e-3)");
  diff->add_flag("--per-layer", diff_opts.per_layer, "Compare every tensor in execution order (keeps all tensors)");
  diff->add_flag("--verbose,-v", diff_opts.verbose, "With --per-layer, list every tensor, not only those past the bound");
  diff->add_flag("--json", diff_opts.json, "Print one JSON object");
  add_interpreter_flags(diff, diff_opts.interpreter);

  std::string cache_dir;
  bool cache_clear = false;
  CLI::App* cache = app.add_subcommand("cache", "List (or --clear) the GPU kernel cache entries in DIR (--serialization-dir)");
  cache->add_option("DIR", cache_dir, "The serialization directory")->required();
  cache->add_flag("--clear", cache_clear, "Remove every entry relite wrote there");

  bool ops_missing = false;
  CLI::App* ops = app.add_subcommand("ops", "Print every TFLite builtin op with the versions relite runs on CPU and GPU (docs/OPS.md)");
  ops->add_flag("--missing", ops_missing, "Only the ops relite's CPU kernels do not run");

  relite::cli::ZooOptions zoo_opts;
  CLI::App* zoo = app.add_subcommand("zoo", "Write a sample architecture with deterministic pseudo-random weights");
  zoo->add_option("NAME", zoo_opts.name,
                  "mobilenet_v1, mobilenet_v2, deeplab_v3, ssd_mobilenet_v1, posenet or inception_v3");
  zoo->add_option("--out,-o", zoo_opts.out, "The .tflite file to write")->type_name("FILE");
  zoo->add_option("--seed", zoo_opts.seed, "Weight seed (default 1)");
  zoo->add_option("--weights", zoo_opts.weights, "float32 (default) or float16 (float16 constants + DEQUANTIZE ops)");
  zoo->add_flag("--list", zoo_opts.list, "List the architectures");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11 reports "A subcommand is required" before an unknown first word.
    if (app.get_subcommands().empty() && argc > 1) {
      const std::string first = argv[1];
      ReportError(first.rfind('-', 0) == 0
                      ? fmt::format("unknown option '{}' (expected a subcommand: run, inspect, bench, diff, convert, zoo, ops or cache; see 'relite --help')", first)
                      : fmt::format("unknown subcommand '{}' (expected run, inspect, bench, diff, convert, zoo, ops or cache; see 'relite --help')", first));
      return 2;
    }
    ReportError(std::string(e.what()) + " (see 'relite --help')");
    return 2;  // usage error
  }

  if (run->parsed()) {
    run_opts.top_given = top->count() > 0;
    return relite::cli::RunCommand(run_opts);
  }
  if (inspect->parsed()) return relite::cli::InspectCommand(inspect_opts);
  if (bench->parsed()) return relite::cli::BenchCommand(bench_opts);
  if (convert->parsed()) return relite::cli::ConvertCommand(convert_opts);
  if (zoo->parsed()) return relite::cli::ZooCommand(zoo_opts);
  if (diff->parsed()) return relite::cli::DiffCommand(diff_opts);
  if (cache->parsed()) return relite::cli::CacheCommand(cache_dir, cache_clear);
  if (ops->parsed()) return relite::cli::OpsCommand(ops_missing);
  return ReportError("no subcommand given (see 'relite --help')");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    return ReportError(std::string("unexpected failure: ") + e.what());
  } catch (...) {
    return ReportError("unexpected failure");
  }
}
