#pragma once
// What the fuzz targets that read the source tree share: where the tree is, and
// `-write_seeds=DIR` for the targets whose seeds are made from its files rather than kept in
// fuzz/corpus/ (scripts/fuzz runs the target so to seed its corpus).

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace mlperf::fuzz {

/// The source tree (configs/, data/examples/, fuzz/corpus/): $MLPERF_SCORE_SOURCE_DIR where set
/// (a target run from a copy of the tree on another machine), else the tree it was built from
/// (the MLPERF_SCORE_SOURCE_DIR definition fuzz/CMakeLists.txt passes).
inline const std::filesystem::path& source_dir() {
  static const std::filesystem::path p = [] {
    const char* given = std::getenv("MLPERF_SCORE_SOURCE_DIR");
    return std::filesystem::path(given && *given ? given : MLPERF_SCORE_SOURCE_DIR);
  }();
  return p;
}

/// The whole of `file` (binary); exits with status 2 naming it when it cannot be read.
inline std::string read_seed_source(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", file.c_str());
    std::exit(2);
  }
  return content.str();
}

/// For LLVMFuzzerInitialize: when the command line holds -write_seeds=DIR, writes each (name,
/// bytes) that `seeds` gives into DIR and exits (status 0, or 2 when a file cannot be
/// written); otherwise returns and libFuzzer goes on.
inline void write_seeds_if_asked(int argc, char** argv,
                                 const std::function<std::vector<std::pair<std::string, std::string>>()>& seeds) {
  const std::string flag = "-write_seeds=";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.compare(0, flag.size(), flag) != 0) continue;
    const std::filesystem::path dir = arg.substr(flag.size());
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : seeds()) {
      std::ofstream out(dir / name, std::ios::binary);
      out << bytes;
      if (!out) {
        std::fprintf(stderr, "cannot write the seed %s into %s\n", name.c_str(), dir.c_str());
        std::exit(2);
      }
    }
    std::exit(0);
  }
}

}  // namespace mlperf::fuzz
