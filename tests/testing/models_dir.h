// Where the real models live: $RELITE_MODELS_DIR, else ../shared/models.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace relite::testing {

inline std::string ModelsDir() {
  if (const char* env = std::getenv("RELITE_MODELS_DIR"); env != nullptr && env[0] != '\0') return env;
#ifdef RELITE_DEFAULT_MODELS_DIR
  return RELITE_DEFAULT_MODELS_DIR;
#else
  return "../shared/models";
#endif
}

inline bool ModelsRequired() {
  const char* env = std::getenv("RELITE_REQUIRE_MODELS");
  return env != nullptr && std::string(env) == "1";
}

}  // namespace relite::testing

// Skips the test (visibly) when the models folder is absent, or fails it
// when RELITE_REQUIRE_MODELS=1 says the folder must be there.
#define RELITE_REQUIRE_MODELS_DIR()                                                                      \
  do {                                                                                                   \
    const std::string relite_dir_ = ::relite::testing::ModelsDir();                                      \
    if (!std::filesystem::is_directory(relite_dir_)) {                                                   \
      if (::relite::testing::ModelsRequired()) {                                                         \
        FAIL() << "models folder " << relite_dir_ << " is missing and RELITE_REQUIRE_MODELS=1";          \
      }                                                                                                  \
      GTEST_SKIP() << "models folder " << relite_dir_ << " not found (set RELITE_MODELS_DIR); skipping"; \
    }                                                                                                    \
  } while (0)
