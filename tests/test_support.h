#pragma once
// Helpers shared by the tests: paths of the source tree, temporary folders, file hashes.

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlperf/mllog/ruleset.h"
#include "mlperf/training/data_context.h"

namespace mlperf::testing {

/// The source tree (configs/, data/).
inline std::filesystem::path source_dir() { return MLPERF_SCORE_SOURCE_DIR; }

/// The data of the source tree (configs/, data/), read once for the whole test binary. It keeps
/// what it has listed of a submitter's tree: a test that changes a tree it scored scores it
/// again with a DataContext of its own.
inline const DataContext& source_data() {
  static const DataContext d(source_dir());
  return d;
}

/// AMD's MI355X v5.1 example system folder shipped in data/examples.
inline std::filesystem::path example_system() {
  return source_dir() / "data/examples/training_results_v5.1/AMD/results/MI355X_EPYC_9575F_pytorch";
}

/// A fresh temporary folder, removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("mlperf-score-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    // A test may leave read-only folders (or copy them from a read-only checkout): open them
    // again so that remove_all reaches their files.
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The built mlperf-score binary the CLI tests run.
inline std::string binary() { return MLPERF_SCORE_BINARY; }

/// `p` single-quoted for /bin/sh (test paths hold no single quote).
inline std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

/// A ruleset the test knows to be valid, e.g. rs("5.1.0").
inline Ruleset rs(const char* text) {
  auto r = Ruleset::parse(text);
  if (!r) throw std::logic_error(std::string("test ruleset does not parse: ") + text);
  return *r;
}

/// A file in the temp directory holding `content`, removed when the object goes away.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("mlperf-score-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".txt");
    std::ofstream out(path_, std::ios::binary);
    out << content;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Names of the files and folders directly in `folder`: what a command left behind.
inline std::set<std::string> names_in(const std::filesystem::path& folder) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) names.insert(e.path().filename().string());
  return names;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Replaces the first `from` in `file` by `to`. Throws std::runtime_error naming the file when
/// `from` is not there, so a test cannot go on with an unchanged file.
inline void replace_first(const std::filesystem::path& file, const std::string& from, const std::string& to) {
  std::string text = read_file(file);
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error(file.string() + ": no " + from);
  text.replace(at, from.size(), to);
  write_file(file, text);
}

/// Replaces every `from` by `to` in every regular file at or below `path` (a file or a folder).
/// Throws std::runtime_error naming `path` when no file holds `from`.
inline void replace_all_below(const std::filesystem::path& path, const std::string& from, const std::string& to) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  } else {
    files.push_back(path);
  }
  bool found = false;
  for (const auto& file : files) {
    std::string text = read_file(file);
    std::size_t at = text.find(from);
    if (at == std::string::npos) continue;
    found = true;
    for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    write_file(file, text);
  }
  if (!found) throw std::runtime_error(path.string() + ": no file holds " + from);
}

/// Applies an oracle record's ops under `root`, in order (scripts/official-inference-oracle,
/// scripts/official-inference-package-oracle): remove (a file or folder), replace (the first
/// `old` by `new`; it must be there), replace_all (every `old` in every file at or below the
/// path), write (folders created), append, move and copy (to `to`).
/// Throws std::runtime_error naming the op that cannot be applied.
inline void apply_ops(const nlohmann::json& ops, const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  for (const auto& op : ops) {
    const fs::path p = root / op.at("path").get<std::string>();
    const std::string kind = op.at("op");
    if (kind == "remove") {
      fs::remove_all(p);
    } else if (kind == "replace") {
      replace_first(p, op.at("old"), op.at("new"));
    } else if (kind == "replace_all") {
      replace_all_below(p, op.at("old"), op.at("new"));
    } else if (kind == "write") {
      write_file(p, op.at("text").get<std::string>());
    } else if (kind == "append") {
      std::ofstream(p, std::ios::binary | std::ios::app) << op.at("text").get<std::string>();
    } else if (kind == "move") {
      fs::rename(p, root / op.at("to").get<std::string>());
    } else if (kind == "copy") {
      const fs::path to = root / op.at("to").get<std::string>();
      fs::create_directories(to.parent_path());
      fs::copy_file(p, to);
    } else {
      throw std::runtime_error("unknown op " + kind);
    }
  }
}

/// Every file below `root` with its contents' hash and size: compared before and after a
/// command to prove it wrote nothing into its input.
inline std::map<std::string, std::pair<std::size_t, std::size_t>> snapshot(const std::filesystem::path& root) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    std::string contents = e.is_regular_file() ? read_file(e.path()) : std::string();
    out[e.path().string()] = {std::hash<std::string>{}(contents), contents.size()};
  }
  return out;
}

/// Result of running a command: exit status and captured stdout.
struct CommandResult {
  int status = -1;
  std::string out;
};

/// Runs `command` with /bin/sh, capturing stdout (stderr goes to `stderr_file` when given).
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// A copy, under `root`, of the shipped MI355X llama31_8b example whose logs name the
/// placeholder platform (8xSUBMISSION_PLATFORM_PLACEHOLDER) and which has no system
/// description: what an engineer has right after running on their own node (the --probe tests).
inline std::filesystem::path placeholder_copy(const std::filesystem::path& root) {
  auto dir = root / "training_results_v5.1/AMD/results/MY_NODE/llama31_8b";
  const std::string key = "\"key\": \"submission_platform\", \"value\": \"";
  for (const auto& e : std::filesystem::directory_iterator(example_system() / "llama31_8b")) {
    std::string text = read_file(e.path());
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
      std::size_t begin = at + key.size();
      text.replace(begin, text.find('"', begin) - begin, "8xSUBMISSION_PLATFORM_PLACEHOLDER");
    }
    write_file(dir / e.path().filename(), text);
  }
  return dir;
}

/// Gives the submitter folder `org` (<root>/<division>/<submitter>) of an inference submission
/// in the script rounds' layout what the submission checker asks beside the results: AMD's
/// real v5.1 system description as systems/<system>.json (submitter and division set to the
/// folders'), AMD's real Llama 2 70B measurements in measurements/<system>/<model>/<scenario>
/// for each scenario, code/<model>/README.md and calibration.md.
inline void complete_inference_submission(const std::filesystem::path& org, const std::string& system,
                                          const std::string& model, const std::vector<std::string>& scenarios) {
  const std::filesystem::path amd = source_dir() / "data/examples/inference_results_v5.1/closed/AMD";
  std::string desc = read_file(amd / "systems/8xMI300X_2xEPYC_9575F.json");
  auto set = [&](const std::string& from, const std::string& to) {
    const auto at = desc.find(from);
    if (at == std::string::npos) throw std::runtime_error("the example system description lacks " + from);
    desc.replace(at, from.size(), to);
  };
  set("\"submitter\": \"AMD\"", "\"submitter\": \"" + org.filename().string() + "\"");
  set("\"division\": \"closed\"", "\"division\": \"" + org.parent_path().filename().string() + "\"");
  write_file(org / "systems" / (system + ".json"), desc);
  for (const auto& scenario : scenarios) {
    const std::filesystem::path from = amd / "measurements/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline";
    const std::filesystem::path to = org / "measurements" / system / model / scenario;
    write_file(to / (system + ".json"), read_file(from / "8xMI300X_2xEPYC_9575F.json"));
    for (const char* f : {"README.md", "user.conf", "mlperf.conf"}) write_file(to / f, read_file(from / f));
  }
  write_file(org / "code" / model / "README.md", read_file(amd / "code/llama2-70b-99/README.md"));
  write_file(org / "calibration.md", "");
}

/// Whether this build runs under AddressSanitizer, which needs terabytes of address space (no
/// RLIMIT_AS limit) and must be the first library loaded (no LD_PRELOAD of another malloc).
inline bool built_with_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

/// Keeps the calling thread's CPU affinity as it was made and puts it back when destroyed.
/// pin_to_first_cpu() narrows it to the first CPU it allowed: as under `taskset -c N`, the
/// thread and the processes it starts then see one CPU (the tool runs one worker, and its
/// allocations come in one order).
class AffinityGuard {
 public:
  AffinityGuard() {
    CPU_ZERO(&saved_);
    ok_ = ::sched_getaffinity(0, sizeof saved_, &saved_) == 0;
  }
  ~AffinityGuard() {
    if (ok_) ::sched_setaffinity(0, sizeof saved_, &saved_);
  }
  AffinityGuard(const AffinityGuard&) = delete;
  AffinityGuard& operator=(const AffinityGuard&) = delete;

  /// Whether the affinity could be read (and so will be put back).
  bool ok() const { return ok_; }
  /// The affinity as it was made.
  const cpu_set_t& saved() const { return saved_; }
  /// Allows only the first CPU of saved(); false when the affinity cannot be changed here.
  bool pin_to_first_cpu() {
    if (!ok_) return false;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &saved_)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    return ::sched_setaffinity(0, sizeof one, &one) == 0;
  }

 private:
  cpu_set_t saved_;
  bool ok_ = false;
};

}  // namespace mlperf::testing
