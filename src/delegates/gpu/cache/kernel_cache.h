// The GPU delegate's on-disk cache (BRIEF.md §2, "Serialization"): compiled
// programs and tuned work-group sizes per model, so that a later start skips
// the compiler and the tuning. Backend-neutral: an entry is a set of named
// blobs; OpenCL stores program binaries in it, CUDA its cubins.
//
// Layout: DIR/<token>/<config hash>.rlkc, one file per (token, config).
// DIR is created 0700 and files 0600; a directory other users can write is
// refused. A file is written to a temporary name, fsynced and renamed into
// place, so concurrent writers leave one complete entry and readers never
// see a partial one. Every file carries the full key (config text and the
// model's content fingerprint) and a checksum: a truncated, corrupted or
// stale entry (another relite, device, driver, precision, or another model
// under the same token) is detected, reported, ignored and rewritten.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "relite/status.h"

namespace relite::gpu {

struct CacheKey {
  std::string token;        // namespace: the caller's model token, or the fingerprint
  std::string fingerprint;  // 128-bit content hash of the model bytes, hex
  std::string config;       // everything else a compiled kernel depends on, as text
};

// One model's compiled state.
class CacheEntry {
 public:
  const std::string* Find(const std::string& name) const;
  void Put(const std::string& name, std::string blob);
  bool dirty() const { return dirty_; }
  void mark_clean() { dirty_ = false; }
  size_t size() const { return blobs_.size(); }
  const std::map<std::string, std::string>& blobs() const { return blobs_; }

 private:
  std::map<std::string, std::string> blobs_;
  bool dirty_ = false;
};

struct CacheFileInfo {
  std::string path;
  uint64_t bytes = 0;
  int64_t mtime_ns = 0;
};

class KernelCache {
 public:
  // Never fails: an unusable directory (other users can write it, it cannot
  // be created, it is a file) gives a disabled cache with the reason in
  // `*warning`. max_bytes bounds the directory (least recently used entries
  // are evicted); 0: no bound.
  static std::unique_ptr<KernelCache> Open(const std::string& dir, uint64_t max_bytes, std::string* warning);

  bool enabled() const { return enabled_; }
  const std::string& dir() const { return dir_; }
  std::string PathOf(const CacheKey& key) const;

  // The entry for `key`; *hit tells whether a valid file was read. A file
  // that exists but is not valid for the key sets *warning (and is ignored).
  CacheEntry Load(const CacheKey& key, bool* hit, std::string* warning) const;
  // Writes the entry atomically, then evicts past the size bound. An error
  // (unwritable or full directory) leaves the cache as it was.
  Status Store(const CacheKey& key, const CacheEntry& entry) const;

  // relite's cache files under `dir`, oldest use first.
  static std::vector<CacheFileInfo> List(const std::string& dir);
  // Removes relite's cache files (and the emptied token folders) under `dir`.
  static Status Clear(const std::string& dir, int* removed = nullptr);

 private:
  KernelCache() = default;
  void Evict(const std::string& keep) const;

  std::string dir_;
  uint64_t max_bytes_ = 0;
  bool enabled_ = false;
};

// Serialisation of an entry (for tests of the format): header, blobs,
// checksum.
std::string EncodeCacheEntry(const CacheKey& key, const CacheEntry& entry);
// InvalidArgument naming what is wrong (truncated, checksum, version, key).
Status DecodeCacheEntry(const std::string& bytes, const CacheKey& key, CacheEntry* entry);

// 128-bit content hash (XXH3) of `size` bytes, as 32 hex digits.
std::string Fingerprint(const void* data, size_t size);
// 64-bit hash as 16 hex digits, for names inside entries.
std::string ShortHash(const std::string& text);

}  // namespace relite::gpu
