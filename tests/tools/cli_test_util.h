// Helpers for the relite CLI tests: running the binary with captured output,
// locating the real models, temp dirs, file I/O and a tiny JSON parser.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace relite::cli_testing {

struct CommandResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

inline std::string ReadTextFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline std::vector<uint8_t> ReadBinaryFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline void WriteBinaryFile(const std::string& path, const void* data, size_t size) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// A directory removed (recursively) when the object goes away.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/relite_cli_test_XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~TempDir() {
    if (!path_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs `argv` (argv[0] is the program path, no shell), capturing stdout and
// stderr separately through temp files.
inline CommandResult RunCommand(const std::vector<std::string>& argv) {
  CommandResult r;
  TempDir tmp;
  const std::string out_path = tmp / "stdout", err_path = tmp / "stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.err = std::string("posix_spawn failed: ") + std::strerror(rc);
    return r;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.exit_code = 128 + WTERMSIG(status);
  r.out = ReadTextFile(out_path);
  r.err = ReadTextFile(err_path);
  return r;
}

inline std::string CliPath() {
#ifdef RELITE_CLI_PATH
  return RELITE_CLI_PATH;
#else
  return "relite";
#endif
}

// Runs the relite CLI with `args`.
inline CommandResult RunCli(const std::vector<std::string>& args) {
  std::vector<std::string> argv{CliPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

// RELITE_MODELS_DIR, else the build-time default; "" if it does not exist.
inline std::string ModelsDir() {
  const char* env = std::getenv("RELITE_MODELS_DIR");
  std::string dir = env && *env ? env : "";
#ifdef RELITE_DEFAULT_MODELS_DIR
  if (dir.empty()) dir = RELITE_DEFAULT_MODELS_DIR;
#endif
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return "";
  return dir;
}

inline bool ModelsRequired() {
  const char* env = std::getenv("RELITE_REQUIRE_MODELS");
  return env != nullptr && std::string(env) == "1";
}

inline std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// --- A tiny JSON parser (enough to check the CLI's output) ---

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  // Parses one value spanning the whole text (surrounding whitespace allowed).
  bool Parse(JsonValue* out) {
    Skip();
    if (!Value(out, 0)) return false;
    Skip();
    return pos_ == s_.size();
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Literal(const char* lit) {
    size_t n = std::strlen(lit);
    if (s_.compare(pos_, n, lit) != 0) return false;
    pos_ += n;
    return true;
  }
  bool String(std::string* out) {
    if (pos_ >= s_.size() || s_[pos_] != '"') return false;
    ++pos_;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) return false;
      char e = s_[pos_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return false;
          for (int i = 0; i < 4; ++i)
            if (!std::isxdigit(static_cast<unsigned char>(s_[pos_ + static_cast<size_t>(i)]))) return false;
          unsigned v = static_cast<unsigned>(std::stoul(s_.substr(pos_, 4), nullptr, 16));
          pos_ += 4;
          *out += v < 0x80 ? static_cast<char>(v) : '?';
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool Number(double* out) {
    size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_]))) return false;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == '+' || s_[pos_] == '-'))
      ++pos_;
    std::string text = s_.substr(start, pos_ - start);
    char* end = nullptr;
    *out = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
  }
  bool Value(JsonValue* v, int depth) {
    if (depth > 64 || pos_ >= s_.size()) return false;
    char c = s_[pos_];
    if (c == '{') {
      v->kind = JsonValue::Kind::kObject;
      ++pos_;
      Skip();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      while (true) {
        Skip();
        std::string key;
        if (!String(&key)) return false;
        Skip();
        if (pos_ >= s_.size() || s_[pos_++] != ':') return false;
        Skip();
        JsonValue item;
        if (!Value(&item, depth + 1)) return false;
        v->object[key] = std::move(item);
        Skip();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == '}') return ++pos_, true;
        return false;
      }
    }
    if (c == '[') {
      v->kind = JsonValue::Kind::kArray;
      ++pos_;
      Skip();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      while (true) {
        Skip();
        JsonValue item;
        if (!Value(&item, depth + 1)) return false;
        v->array.push_back(std::move(item));
        Skip();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == ']') return ++pos_, true;
        return false;
      }
    }
    if (c == '"') {
      v->kind = JsonValue::Kind::kString;
      return String(&v->string);
    }
    if (Literal("true")) {
      v->kind = JsonValue::Kind::kBool;
      v->boolean = true;
      return true;
    }
    if (Literal("false")) {
      v->kind = JsonValue::Kind::kBool;
      return true;
    }
    if (Literal("null")) {
      v->kind = JsonValue::Kind::kNull;
      return true;
    }
    v->kind = JsonValue::Kind::kNumber;
    return Number(&v->number);
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace relite::cli_testing
