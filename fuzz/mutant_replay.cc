// relite_mutant_replay: structure-aware mutants of real models through load,
// allocate and invoke, as an attacker would feed them.
//
//   relite_mutant_replay [--mutants N] [--seed S] [--delegate gpu|onednn] [--limits fuzz|default]
//                        [--timeout-s T] [--threads N] [--only I [--write FILE]] [--save-unlocated DIR]
//                        MODEL_OR_DIR...
//
// Mutant i of a model is Mutate(model bytes, hash(seed, model name, i)), so
// any finding is reproduced with the same arguments (--only I runs just one).
// Fails (exit 1) when a mutant runs past the time bound or an error does not
// name a tensor, node or other location; a crash or sanitizer report aborts
// the process after naming the mutant.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fuzz/fuzz_run.h"
#include "fuzz/model_mutator.h"
#include "relite/gpu_delegate.h"
#include "relite/onednn_delegate.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

using relite::fuzz::RunResult;
using relite::fuzz::Stage;

char g_current[512] = "none";  // the mutant being run, for crash reports
std::atomic<int64_t> g_started_ms{-1};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void ReportCurrent() {
  const char head[] = "\nrelite_mutant_replay: died on mutant ";
  (void)!write(2, head, sizeof(head) - 1);
  (void)!write(2, g_current, std::strlen(g_current));
  (void)!write(2, "\n", 1);
}

void OnFatalSignal(int sig) {
  ReportCurrent();
  signal(sig, SIG_DFL);
  raise(sig);
}

uint64_t Hash(uint64_t seed, const std::string& name, uint64_t index) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  h = (h ^ index) * 1099511628211ull;
  return h ^ (h >> 29);
}

std::vector<std::string> ModelFiles(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const std::string& a : args) {
    if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a)) {
        if (e.path().extension() == ".tflite") files.push_back(e.path().string());
      }
    } else {
      files.push_back(a);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

int Usage(const char* why) {
  std::fprintf(stderr,
               "error: %s\nusage: relite_mutant_replay [--mutants N] [--seed S] [--delegate gpu|onednn] [--limits fuzz|default] "
               "[--timeout-s T] [--threads N] [--only I [--write FILE]] [--print-errors] [--save-unlocated DIR] MODEL_OR_DIR...\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int mutants = 100;
  uint64_t seed = 1;
  int timeout_s = 30;
  int only = -1;
  bool print_errors = false;
  std::string delegate_name, limits_name = "default", save_dir, write_path;
  relite::fuzz::RunConfig config;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--mutants" && (v = value())) mutants = std::atoi(v);
    else if (a == "--seed" && (v = value())) seed = std::strtoull(v, nullptr, 10);
    else if (a == "--timeout-s" && (v = value())) timeout_s = std::atoi(v);
    else if (a == "--threads" && (v = value())) config.threads = std::atoi(v);
    else if (a == "--only" && (v = value())) only = std::atoi(v);
    else if (a == "--delegate" && (v = value())) delegate_name = v;
    else if (a == "--limits" && (v = value())) limits_name = v;
    else if (a == "--save-unlocated" && (v = value())) save_dir = v;
    else if (a == "--write" && (v = value())) write_path = v;
    else if (a == "--print-errors") print_errors = true;
    else if (!a.empty() && a[0] == '-') return Usage(("unknown or incomplete option " + a).c_str());
    else inputs.push_back(a);
  }
  if (inputs.empty()) return Usage("no models given");
  if (limits_name == "fuzz") config.limits = relite::fuzz::FuzzLimits();
  else if (limits_name != "default") return Usage("--limits must be fuzz or default");
  std::unique_ptr<relite::Delegate> delegate;
  if (delegate_name == "gpu") {
    auto d = relite::CreateGpuDelegate({});
    if (!d.ok()) {
      std::fprintf(stderr, "error: the GPU delegate is not available: %s\n", d.status().ToString().c_str());
      return 1;
    }
    delegate = std::move(d).value();
    config.delegate = delegate.get();
  } else if (delegate_name == "onednn") {
    // Forced: the mutants reach the builders below AVX-512 too. Where
    // oneDNN cannot load, every node stays on the CPU (still a valid run).
    relite::OnednnDelegateOptions o;
    o.force = true;
    auto d = relite::CreateOnednnDelegate(o);
    if (!d.ok()) {
      std::fprintf(stderr, "error: the oneDNN delegate: %s\n", d.status().ToString().c_str());
      return 1;
    }
    delegate = std::move(d).value();
    config.delegate = delegate.get();
  } else if (!delegate_name.empty()) {
    return Usage("--delegate must be gpu or onednn");
  }

  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(ReportCurrent);
  signal(SIGSEGV, OnFatalSignal);
  signal(SIGBUS, OnFatalSignal);
  signal(SIGFPE, OnFatalSignal);
  signal(SIGABRT, OnFatalSignal);

  // The hang bound: a mutant still running after timeout_s seconds fails the run.
  std::thread watchdog([timeout_s] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const int64_t start = g_started_ms.load();
      if (start == -2) return;
      if (start >= 0 && NowMs() - start > int64_t{timeout_s} * 1000) {
        std::fprintf(stderr, "\nrelite_mutant_replay: HANG: mutant %s ran past %d s\n", g_current, timeout_s);
        std::_Exit(3);
      }
    }
  });

  std::map<std::string, int> by_stage;
  int total = 0, unlocated = 0;
  double slowest_ms = 0;
  std::string slowest;
  for (const std::string& path : ModelFiles(inputs)) {
    std::ifstream f(path, std::ios::binary);
    const std::vector<uint8_t> original((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const std::string name = std::filesystem::path(path).filename().string();
    std::map<std::string, int> model_stage;
    for (int i = 0; i < mutants; ++i) {
      if (only >= 0 && i != only) continue;
      std::vector<uint8_t> bytes = original;
      if (!relite::fuzz::Mutate(bytes.data(), bytes.size(), Hash(seed, name, static_cast<uint64_t>(i)))) {
        std::fprintf(stderr, "error: %s is not a valid model\n", path.c_str());
        return 1;
      }
      if (!write_path.empty()) {  // with --only: the mutant as a file, to inspect or replay with `relite run`
        std::ofstream out(write_path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      }
      std::snprintf(g_current, sizeof(g_current), "%s #%d (--seed %llu --only %d)", path.c_str(), i,
                    static_cast<unsigned long long>(seed), i);
      const int64_t start = NowMs();
      g_started_ms = start;
      const RunResult r = relite::fuzz::RunModel(bytes.data(), bytes.size(), config);
      g_started_ms = -1;
      const double ms = static_cast<double>(NowMs() - start);
      if (ms > slowest_ms) {
        slowest_ms = ms;
        slowest = g_current;
      }
      ++total;
      const std::string outcome = r.reached == Stage::kDone ? "ran" : std::string("error at ") + relite::fuzz::StageName(r.reached);
      ++by_stage[outcome];
      ++model_stage[outcome];
      if (print_errors && r.reached != Stage::kDone) std::printf("error: %s\n", r.status.message().c_str());
      if (r.reached != Stage::kDone && !relite::fuzz::NamesLocation(r.status.message())) {
        ++unlocated;
        std::printf("UNLOCATED %s: %s\n", g_current, r.status.ToString().c_str());
        if (!save_dir.empty()) {
          std::filesystem::create_directories(save_dir);
          std::ofstream out(save_dir + "/" + name + "." + std::to_string(i) + ".tflite", std::ios::binary);
          out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        }
      }
    }
    std::string line;
    for (const auto& [k, n] : model_stage) line += " " + k + ": " + std::to_string(n) + ";";
    std::printf("%-55s%s\n", name.c_str(), line.c_str());
    std::fflush(stdout);
  }
  g_started_ms = -2;
  watchdog.join();
  std::printf("total %d mutants:", total);
  for (const auto& [k, n] : by_stage) std::printf(" %s %d;", k.c_str(), n);
  std::printf(" errors without a location: %d; slowest %.0f ms (%s)\n", unlocated, slowest_ms, slowest.c_str());
  return unlocated == 0 ? 0 : 1;
}
