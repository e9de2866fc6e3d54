#include "src/delegates/gpu/cache/kernel_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include <fmt/format.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace relite::gpu {
namespace {

constexpr char kMagic[8] = {'R', 'L', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kFormatVersion = 1;
constexpr const char* kSuffix = ".rlkc";

std::string Hex(const void* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) {
    s += kDigits[b[i] >> 4];
    s += kDigits[b[i] & 15];
  }
  return s;
}

void PutU32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void PutU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
void PutString(std::string& out, const std::string& s) {
  PutU64(out, s.size());
  out += s;
}

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  bool U32(uint32_t* v) { return Raw(v, 4); }
  bool U64(uint64_t* v) { return Raw(v, 8); }
  bool String(std::string* v) {
    uint64_t n = 0;
    if (!U64(&n) || n > s_.size() - pos_) return false;
    v->assign(s_, pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  size_t pos() const { return pos_; }

 private:
  bool Raw(void* v, size_t n) {
    if (s_.size() - pos_ < n) return false;
    std::memcpy(v, s_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  const std::string& s_;
  size_t pos_ = 0;
};

// A token as a folder name: [A-Za-z0-9._-] kept, the rest '_', and a hash
// suffix whenever that changed anything (two tokens never share a folder).
std::string TokenFolder(const std::string& token) {
  std::string out;
  bool changed = token.empty() || token.size() > 64 || token[0] == '.';
  for (char c : token.substr(0, 64)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
    changed |= !ok;
  }
  if (changed) out += "-" + ShortHash(token);
  return out;
}

// mkdir -p with mode 0700 for what it creates.
Status MakeDirs(const std::string& path) {
  std::string sofar;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t next = path.find('/', at);
    sofar = path.substr(0, next == std::string::npos ? path.size() : next);
    at = next == std::string::npos ? path.size() + 1 : next + 1;
    if (sofar.empty()) continue;
    if (mkdir(sofar.c_str(), 0700) != 0 && errno != EEXIST) {
      return IoError(fmt::format("cannot create '{}': {}", sofar, std::strerror(errno)));
    }
  }
  return Status::Ok();
}

bool ReadFile(const std::string& path, std::string* out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return false;
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    const ssize_t n = read(fd, out->data() + done, out->size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  out->resize(done);
  return true;
}

}  // namespace

const std::string* CacheEntry::Find(const std::string& name) const {
  auto it = blobs_.find(name);
  return it == blobs_.end() ? nullptr : &it->second;
}

void CacheEntry::Put(const std::string& name, std::string blob) {
  auto it = blobs_.find(name);
  if (it != blobs_.end() && it->second == blob) return;
  blobs_[name] = std::move(blob);
  dirty_ = true;
}

std::string Fingerprint(const void* data, size_t size) {
  const XXH128_hash_t h = XXH3_128bits(data, size);
  uint64_t parts[2] = {h.high64, h.low64};
  return Hex(parts, sizeof(parts));
}

std::string ShortHash(const std::string& text) {
  const uint64_t h = XXH3_64bits(text.data(), text.size());
  return Hex(&h, sizeof(h));
}

std::string EncodeCacheEntry(const CacheKey& key, const CacheEntry& entry) {
  std::string out(kMagic, sizeof(kMagic));
  PutU32(out, kFormatVersion);
  PutString(out, key.config);
  PutString(out, key.fingerprint);
  PutU64(out, entry.blobs().size());
  for (const auto& [name, blob] : entry.blobs()) {
    PutString(out, name);
    PutString(out, blob);
  }
  PutU64(out, XXH3_64bits(out.data(), out.size()));
  return out;
}

Status DecodeCacheEntry(const std::string& bytes, const CacheKey& key, CacheEntry* entry) {
  *entry = CacheEntry();
  if (bytes.size() < sizeof(kMagic) + 4 + 8 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return InvalidArgumentError("not a relite kernel cache file (or truncated)");
  }
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  if (XXH3_64bits(bytes.data(), bytes.size() - 8) != stored) {
    return InvalidArgumentError("checksum mismatch (truncated or corrupted)");
  }
  const std::string body = bytes.substr(sizeof(kMagic), bytes.size() - sizeof(kMagic) - 8);
  Reader r(body);
  uint32_t version = 0;
  std::string config, fingerprint;
  uint64_t count = 0;
  if (!r.U32(&version)) return InvalidArgumentError("truncated header");
  if (version != kFormatVersion) return InvalidArgumentError(fmt::format("format version {} (this relite writes {})", version, kFormatVersion));
  if (!r.String(&config) || !r.String(&fingerprint) || !r.U64(&count)) return InvalidArgumentError("truncated header");
  if (config != key.config) return InvalidArgumentError("stale: made for another configuration (" + config + ")");
  if (fingerprint != key.fingerprint) return InvalidArgumentError("stale: made for another model under the same token");
  for (uint64_t i = 0; i < count; ++i) {
    std::string name, blob;
    if (!r.String(&name) || !r.String(&blob)) return InvalidArgumentError("truncated entry");
    entry->Put(name, std::move(blob));
  }
  if (r.pos() != body.size()) return InvalidArgumentError("trailing bytes");
  entry->mark_clean();
  return Status::Ok();
}

std::unique_ptr<KernelCache> KernelCache::Open(const std::string& dir, uint64_t max_bytes, std::string* warning) {
  std::unique_ptr<KernelCache> cache(new KernelCache());
  cache->dir_ = dir;
  cache->max_bytes_ = max_bytes;
  auto refuse = [&](const std::string& why) {
    if (warning != nullptr) *warning = fmt::format("GPU kernel cache '{}' is not used: {}", dir, why);
    return std::move(cache);
  };
  if (dir.empty()) return refuse("no directory given");
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return refuse(std::strerror(errno));
    if (Status s = MakeDirs(dir); !s.ok()) return refuse(s.message());
    if (stat(dir.c_str(), &st) != 0) return refuse(std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return refuse("it is not a directory");
  // The seed's rule: a cache directory is private. Loading binaries from one
  // that others can write would run their code.
  if (st.st_uid != geteuid()) return refuse(fmt::format("it belongs to uid {}, not to this user", st.st_uid));
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return refuse(fmt::format("other users can write it (mode {:o}); make it private (chmod 700)", st.st_mode & 0777));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) return refuse(fmt::format("not writable: {}", std::strerror(errno)));
  cache->enabled_ = true;
  return cache;
}

std::string KernelCache::PathOf(const CacheKey& key) const {
  return fmt::format("{}/{}/{}{}", dir_, TokenFolder(key.token), ShortHash(key.config), kSuffix);
}

CacheEntry KernelCache::Load(const CacheKey& key, bool* hit, std::string* warning) const {
  *hit = false;
  CacheEntry entry;
  if (!enabled_) return entry;
  const std::string path = PathOf(key);
  std::string bytes;
  if (!ReadFile(path, &bytes)) return entry;  // a miss
  if (Status s = DecodeCacheEntry(bytes, key, &entry); !s.ok()) {
    if (warning != nullptr) *warning = fmt::format("GPU kernel cache entry '{}' ignored and rebuilt: {}", path, s.message());
    return CacheEntry();
  }
  *hit = true;
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recency, for the LRU bound
  return entry;
}

Status KernelCache::Store(const CacheKey& key, const CacheEntry& entry) const {
  if (!enabled_) return Status::Ok();
  const std::string path = PathOf(key);
  const std::string folder = path.substr(0, path.rfind('/'));
  RELITE_RETURN_IF_ERROR(MakeDirs(folder));
  const std::string bytes = EncodeCacheEntry(key, entry);
  std::random_device rd;
  const std::string tmp = fmt::format("{}.tmp.{}.{:08x}", path, getpid(), rd());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return IoError(fmt::format("cannot create '{}': {}", tmp, std::strerror(errno)));
  fchmod(fd, 0600);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      close(fd);
      unlink(tmp.c_str());
      return IoError(fmt::format("cannot write '{}': {}", tmp, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    const int err = errno;
    close(fd);
    unlink(tmp.c_str());
    return IoError(fmt::format("cannot sync '{}': {}", tmp, std::strerror(err)));
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return IoError(fmt::format("cannot rename '{}' into place: {}", tmp, std::strerror(err)));
  }
  if (const int dfd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  Evict(path);
  return Status::Ok();
}

std::vector<CacheFileInfo> KernelCache::List(const std::string& dir) {
  std::vector<CacheFileInfo> files;
  DIR* top = opendir(dir.c_str());
  if (top == nullptr) return files;
  while (dirent* d = readdir(top)) {
    const std::string name = d->d_name;
    if (name == "." || name == "..") continue;
    const std::string folder = dir + "/" + name;
    DIR* sub = opendir(folder.c_str());
    if (sub == nullptr) continue;
    while (dirent* e = readdir(sub)) {
      const std::string file = e->d_name;
      if (file.size() <= std::strlen(kSuffix) || file.compare(file.size() - std::strlen(kSuffix), std::string::npos, kSuffix) != 0) continue;
      struct stat st {};
      const std::string path = folder + "/" + file;
      if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      files.push_back({path, static_cast<uint64_t>(st.st_size),
                       static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
    }
    closedir(sub);
  }
  closedir(top);
  std::sort(files.begin(), files.end(), [](const CacheFileInfo& a, const CacheFileInfo& b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.path < b.path;
  });
  return files;
}

void KernelCache::Evict(const std::string& keep) const {
  if (max_bytes_ == 0) return;
  std::vector<CacheFileInfo> files = List(dir_);
  uint64_t total = 0;
  for (const CacheFileInfo& f : files) total += f.bytes;
  for (const CacheFileInfo& f : files) {  // oldest use first
    if (total <= max_bytes_) break;
    if (f.path == keep) continue;
    if (unlink(f.path.c_str()) == 0) total -= f.bytes;
  }
}

Status KernelCache::Clear(const std::string& dir, int* removed) {
  int n = 0;
  for (const CacheFileInfo& f : List(dir)) {
    if (unlink(f.path.c_str()) != 0) return IoError(fmt::format("cannot remove '{}': {}", f.path, std::strerror(errno)));
    ++n;
    rmdir(f.path.substr(0, f.path.rfind('/')).c_str());  // only succeeds once the folder is empty
  }
  if (removed != nullptr) *removed = n;
  return Status::Ok();
}

}  // namespace relite::gpu
