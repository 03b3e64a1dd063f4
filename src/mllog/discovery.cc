#include "mlperf/mllog/discovery.h"
#include "mlperf/mllog/line_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <charconv>
#include <fstream>
#include <string_view>

#include "mlperf/mllog/folder_cache.h"
#include "mlperf/mllog/folder_listing.h"
#include "mlperf/mllog/parallel.h"
#include "mlperf/mllog/path_text.h"

namespace mlperf {

namespace fs = std::filesystem;

bool may_hold(const BenchmarkDir& dir, std::string_view name) {
  return !dir.entries || std::binary_search(dir.entries->begin(), dir.entries->end(), name);
}

namespace {

// True when `s` is one or more ASCII digits.
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// N of result_<N>.txt (N digits); nullopt for other names and an N beyond long long.
// Hand-parsed: std::regex cost a millisecond per thousand names, on every sort comparison.
std::optional<long long> result_index(std::string_view name) {
  constexpr std::string_view prefix = "result_", suffix = ".txt";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  long long n = 0;
  if (!all_digits(digits) || std::from_chars(digits.data(), digits.data() + digits.size(), n).ec != std::errc{}) {
    return std::nullopt;
  }
  return n;
}

bool is_result_name(std::string_view name) {
  return name.size() > 11 && name.starts_with("result_") && name.ends_with(".txt");
}

// A compliance test's folder: TEST01, TEST04, ...
bool is_test_folder(std::string_view name) { return name.size() == 6 && name.substr(0, 4) == "TEST"; }

// True when a folder of the absolute path `absolute` is named `name`.
bool has_folder_named(std::string_view absolute, std::string_view name) {
  for (std::size_t at = 0; at < absolute.size();) {
    std::size_t end = absolute.find('/', at);
    if (end == std::string_view::npos) end = absolute.size();
    if (absolute.substr(at, end - at) == name) return true;
    at = end + 1;
  }
  return false;
}

bool is_directory_path(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool holds_loadgen_run(const fs::path& folder) { return loadgen_log_of(folder).has_value(); }

bool is_run_folder(std::string_view name) { return name.size() > 4 && name.substr(0, 4) == "run_"; }

// The folder `levels` folders above `given`, spelled as `given` is where it names them
// ("a/b/TEST01" → "a/b", "TEST01" → "."), else cut from `absolute` (normal, no trailing '/').
fs::path folder_above(const fs::path& given, std::size_t levels, const fs::path& absolute) {
  fs::path p = given.lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();  // "a/b/" → "a/b"
  fs::path cut = absolute;
  for (std::size_t i = 0; i < levels; ++i) cut = cut.parent_path();
  for (std::size_t i = 0; i < levels; ++i) {
    const fs::path name = p.filename();
    if (name.empty() || name == "." || name == "..") return cut;
    p = p.parent_path();
  }
  return p.empty() ? fs::path(".") : p;
}


// A scenario folder <org>/compliance/<system>/<model>/<scenario> of a compliance tree (the
// submission layout up to v5.1), its folders' names as views of its absolute, normal path.
struct ComplianceScenario {
  std::string_view org, system, model, scenario;

  // <org>/results/<system>/<model>/<scenario>: the scenario folder whose tests these are.
  std::string results() const {
    std::string text(org);
    if (text.back() != '/') text.push_back('/');
    text.append("results/").append(system).append("/").append(model).append("/").append(scenario);
    return text;
  }
};

// The scenario folder of a compliance tree at `absolute` (normal); nullopt for another folder.
std::optional<ComplianceScenario> compliance_scenario(std::string_view absolute) {
  const std::string_view model = path_parent(absolute);
  const std::string_view system = path_parent(model);
  const std::string_view compliance = path_parent(system);
  const std::string_view org = path_parent(compliance);
  if (path_name(compliance) != "compliance" || org.empty()) return std::nullopt;
  return ComplianceScenario{org, path_name(system), path_name(model), path_name(absolute)};
}

// For a scenario folder of a compliance tree at `absolute` (normal) and `path` (as found): the
// same scenario folder of results/, spelled as `path` is and as absolute text, where it holds
// a loadgen run. nullopt elsewhere.
std::optional<std::pair<fs::path, std::string>> results_scenario_of(const fs::path& path, std::string_view absolute) {
  const std::optional<ComplianceScenario> scenario = compliance_scenario(absolute);
  if (!scenario) return std::nullopt;
  std::string text = scenario->results();
  if (!holds_loadgen_run(text)) return std::nullopt;
  const fs::path org = folder_above(path, 4, fs::path(absolute));
  fs::path spelled = org == "." ? fs::path("results") : org / "results";
  for (std::string_view name : {scenario->system, scenario->model, scenario->scenario}) spelled /= std::string(name);
  return std::make_pair(std::move(spelled), std::move(text));
}

// The ruleset a path component names: training_vX.Y, training_vX.Y.Z, training_results_vX.Y
// (the round folders of MLCommons' result repositories), and hpc_vX.Y, hpc_results_vX.Y for
// MLPerf HPC (usage hpc); the patch number is not used.
std::optional<Ruleset> ruleset_from_component(std::string_view s) {
  Usage usage = Usage::kTraining;
  if (s.starts_with("training")) {
    s.remove_prefix(8);
  } else if (s.starts_with("hpc")) {
    s.remove_prefix(3);
    usage = Usage::kHpc;
  } else {
    return std::nullopt;
  }
  if (s.starts_with("_results")) s.remove_prefix(8);
  if (!s.starts_with("_v")) return std::nullopt;
  s.remove_prefix(2);
  std::size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view major = s.substr(0, dot), rest = s.substr(dot + 1);
  std::size_t dot2 = rest.find('.');
  std::string_view minor = rest.substr(0, dot2);
  if (!all_digits(major) || !all_digits(minor)) return std::nullopt;
  if (dot2 != std::string_view::npos && !all_digits(rest.substr(dot2 + 1))) return std::nullopt;
  auto r = Ruleset::parse(std::string(major) + "." + std::string(minor));
  if (r) r->usage = usage;
  return r;
}

std::optional<Ruleset> ruleset_from_path(const fs::path& path) {
  std::optional<Ruleset> found;
  for (const auto& part : fs::absolute(path).lexically_normal()) {
    if (auto r = ruleset_from_component(part.native())) found = r;
  }
  return found;
}

// What one pass over a directory finds, by name: its result_N.txt entries, the other
// *.log/*.txt files (candidates when there is no result_N.txt) and its subdirectories.
struct Listing {
  std::vector<std::string> result_files;
  std::vector<std::string> other_logs;
  std::vector<std::string> children;  // directories, symbolic links to them left out
  std::vector<std::string> names;     // every entry not hidden (no leading '.'), as listed
  bool loadgen_logs = false;          // holds mlperf_log_detail.txt or mlperf_log_summary.txt
  bool complete = true;               // false when reading the folder failed part way
};

// <DATESTAMP>_<N>.log: the name NVIDIA-style run scripts give each run's log.
bool is_run_script_log(std::string_view name) {
  if (!name.ends_with(".log")) return false;
  name.remove_suffix(4);
  std::size_t sep = name.rfind('_');
  return sep != std::string_view::npos && all_digits(name.substr(0, sep)) && all_digits(name.substr(sep + 1));
}

// True when the first 64 KiB of `file` hold an MLLOG line.
bool holds_mllog(const fs::path& file) {
  std::ifstream in = open_input_file(file, std::ios::binary);
  if (!in) return false;
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find(":::MLLOG") != std::string::npos;
}

std::string joined(std::string_view folder, std::string_view name) {
  std::string out(folder);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

// Where a folder of the walk is: the path as found, the same made absolute and normal (built
// down from the root's, so no folder pays for fs::absolute), and the ruleset its path names.
struct Place {
  fs::path path;
  std::string absolute;
  std::optional<Ruleset> ruleset;

  static Place of(const fs::path& path) {
    fs::path norm = fs::absolute(path).lexically_normal();
    if (!norm.has_filename()) norm = norm.parent_path();
    return {path, norm.string(), ruleset_from_path(path)};
  }
  // A subfolder `name` (a plain name, never "." or "..").
  Place child(const std::string& name) const {
    auto named = ruleset_from_component(name);
    return {path / name, joined(absolute, name), named ? named : ruleset};
  }
};

// <org>/systems/<system>.json, looked up once per system folder (every benchmark and
// scenario folder of a system asks for it). Shared by the threads of a walk.
class SystemDescriptions {
 public:
  std::optional<fs::path> of(const std::string& org_dir, const std::string& system) {
    std::string file;
    file.reserve(org_dir.size() + system.size() + 14);
    file.append(org_dir);
    if (file.empty() || file.back() != '/') file.push_back('/');
    file.append("systems/").append(system).append(".json");
    {
      std::lock_guard lock(mutex_);
      if (auto it = known_.find(file); it != known_.end()) return it->second;
    }
    std::error_code ec;
    std::optional<fs::path> found;
    if (fs::is_regular_file(file, ec)) found = fs::path(file);
    std::lock_guard lock(mutex_);
    return known_.emplace(std::move(file), std::move(found)).first->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::optional<fs::path>> known_;
};

// What the folder at `absolute` (normal) tells of a benchmark directory there: its name,
// and in the <org>/results/<system>/<benchmark> layout the system, submitter and system
// description. `systems` caches the description look-up (nullptr: looked up here).
void describe(BenchmarkDir& dir, std::string_view absolute, SystemDescriptions* systems) {
  dir.benchmark_name = std::string(path_name(absolute));
  std::string_view system_dir = path_parent(absolute);
  // MLPerf HPC: <org>/results/<system>/<strong|weak>/<benchmark>.
  if (std::string_view scaling = path_name(system_dir);
      (scaling == "strong" || scaling == "weak") && path_name(path_parent(path_parent(system_dir))) == "results") {
    dir.scaling = std::string(scaling);
    system_dir = path_parent(system_dir);
  }
  dir.system = std::string(path_name(system_dir));
  if (path_name(path_parent(system_dir)) == "results") {
    const std::string org_dir(path_parent(path_parent(system_dir)));
    dir.submitter = std::string(path_name(org_dir));
    if (systems != nullptr) {
      dir.system_description = systems->of(org_dir, dir.system);
    } else {
      SystemDescriptions own;
      dir.system_description = own.of(org_dir, dir.system);
    }
  }
}

// A compliance test's own run read on its own, `dir` made from its TEST0x folder: in the
// layout <org>/compliance/<system>/<model>/<scenario>/TEST0x its model folder tells the
// system, submitter and system description, as <org>/results/<system>/<model> would.
void describe_compliance_test(BenchmarkDir& dir, SystemDescriptions* systems) {
  if (auto scenario = compliance_scenario(path_parent(dir.absolute_path))) {
    const std::string results = scenario->results();
    describe(dir, path_parent(results), systems);
  }
}

// The benchmark directory at `place` whose result files are `files` (may be empty).
// `systems` caches the system description look-up (nullptr: looked up here).
BenchmarkDir as_benchmark_dir(const Place& place, std::vector<fs::path> files, SystemDescriptions* systems);

BenchmarkDir as_benchmark_dir(const fs::path& path, std::vector<fs::path> files) {
  return as_benchmark_dir(Place::of(path), std::move(files), nullptr);
}

BenchmarkDir as_benchmark_dir(const Place& place, std::vector<fs::path> files, SystemDescriptions* systems) {
  // Natural order by N; names whose N does not parse after the others, by name.
  struct Keyed {
    std::optional<long long> index;
    std::string name;
    fs::path path;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(files.size());
  for (auto& f : files) {
    std::string name = f.filename().string();
    keyed.push_back({result_index(name), std::move(name), std::move(f)});
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.index && b.index && *a.index != *b.index) return *a.index < *b.index;
    if (a.index.has_value() != b.index.has_value()) return a.index.has_value();
    return a.name < b.name;
  });
  for (std::size_t i = 0; i < keyed.size(); ++i) files[i] = std::move(keyed[i].path);
  BenchmarkDir dir;
  dir.path = place.path;
  dir.result_files = std::move(files);
  describe(dir, place.absolute, systems);
  dir.path_ruleset = place.ruleset;
  dir.absolute_path = place.absolute;
  return dir;
}

// Sorts `files` by natural order of their names.
void sort_natural(std::vector<fs::path>& files) {
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return natural_less(a.filename().string(), b.filename().string()); });
}

// `names` in `folder`, as paths.
std::vector<fs::path> paths_of(const fs::path& folder, const std::vector<std::string>& names) {
  std::vector<fs::path> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(folder / n);
  return out;
}

// The benchmark directory of a folder without result_N.txt: the files `glob` matches, else
// the run-script names, else the files holding MLLOG lines; nullopt when none.
std::optional<BenchmarkDir> other_logs_dir(const Place& place, const Listing& listing, const std::string& glob,
                                           SystemDescriptions* systems) {
  std::vector<fs::path> candidates = paths_of(place.path, listing.other_logs);
  std::vector<fs::path> taken, ignored;
  std::string rule;
  auto split = [&](auto&& take) {
    taken.clear();
    ignored.clear();
    for (const auto& f : candidates) (take(f) ? taken : ignored).push_back(f);
  };
  if (!glob.empty()) {
    std::vector<fs::path> results = paths_of(place.path, listing.result_files);
    candidates.insert(candidates.begin(), results.begin(), results.end());
    split([&](const fs::path& f) { return ::fnmatch(glob.c_str(), f.filename().c_str(), 0) == 0; });
    rule = "--glob " + glob;
  } else {
    if (candidates.empty()) return std::nullopt;
    split([](const fs::path& f) { return is_run_script_log(f.filename().string()); });
    rule = "run-script names";
    if (taken.empty()) {
      split([](const fs::path& f) { return holds_mllog(f); });
      rule = "MLLOG content";
    }
  }
  if (taken.empty()) return std::nullopt;
  sort_natural(taken);
  sort_natural(ignored);
  BenchmarkDir dir = as_benchmark_dir(place, {}, systems);
  dir.result_files = std::move(taken);
  dir.ignored_files = std::move(ignored);
  dir.file_rule = std::move(rule);
  return dir;
}

// One folder of the walk: where it is, what listing it found (a leaf's benchmark directory,
// errors) and the folders below it to walk, by index in the walk's node list. (Folders are
// opened by path: keeping hundreds open to open their children relative to them measured no
// faster, and growing the descriptor table of a threaded process waits for an RCU period.)
struct WalkNode {
  Place place;
  bool root = true;                        // the folder the walk started from
  std::optional<Ruleset> parent_ruleset;   // the round the folder above names
  int depth = 0;
  std::vector<BenchmarkDir> out;
  std::vector<DiscoveryError> errors;
  std::vector<std::string> below;  // the names of its subfolders to walk, in order
  // Below an inference submitter's folder, outside its results/: a folder listed only to keep
  // its listing for the submission checks' walk of the submitter (judge_submission_tree),
  // which then lists nothing itself. No directory is found there and no error is reported
  // (a folder that cannot be listed is left to that walk, which meets it as it always did).
  bool record_only = false;
  std::size_t below_record_only = 0;  // below[k] for k < this are listed record_only
  // A record-only folder two levels or more below the submitter's, or a scenario folder of
  // its results/, lists its whole subtree in its own job (no directory to hand out in order,
  // and a listing round per level of a deep tree started threads for a few folders each):
  // the listings of its subfolders, by path below the submitter's folder.
  std::vector<std::pair<std::string, std::vector<FolderEntry>>> recorded_below_it;
  // Below an inference submitter's folder (is_inference_submitter): the listings of its
  // results/ tree, which the submission checks walk again (BenchmarkDir::submitter_listings),
  // shared by the folders below it; where the submitter's folder is (its absolute path's
  // length, its depth); and this folder's entries as they are kept there.
  std::shared_ptr<FolderListings> submitter_listings;
  std::size_t submitter_path_size = 0;
  int submitter_depth = 0;
  std::vector<FolderEntry> recorded;
  std::string recorded_below;  // its path below the submitter's folder ("/results/...")
  bool recorded_whole = false;
};

// What the threads of one walk share.
struct WalkContext {
  std::string glob;
  SystemDescriptions systems;
  /// The root lies in a submitter's compliance/ tree, where no scenario folder of results/
  /// holds it (scenario_folder_part): its TEST0x folders are walked into, each its own run.
  bool in_compliance_tree = false;
};

// Lists the folder `path` once, with getdents64's d_type: no stat per entry, and names only
// (a path is built for what is kept). With `record`, every entry also goes there as
// list_folder_with_sizes gives it (a regular file's size: one fstatat). Returns the folder,
// open (-1 on an error, added to `errors` under `shown`, the path as the user knows it).
int list_directory(const char* path, const std::string& shown, Listing& listing, std::vector<DiscoveryError>& errors,
                   std::vector<FolderEntry>* record = nullptr) {
  const int fd = ::openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    errors.push_back({shown, std::string("cannot read directory: ") + std::strerror(errno)});
    return -1;
  }
  alignas(8) char buffer[32 * 1024];
  for (;;) {
    const ssize_t n = ::getdents64(fd, buffer, sizeof buffer);
    if (n < 0) {
      errors.push_back({shown, std::string("cannot read directory: ") + std::strerror(errno)});
      listing.complete = false;
      break;
    }
    if (n == 0) break;
    for (ssize_t at_byte = 0; at_byte < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at_byte);
      at_byte += entry->d_reclen;
      const std::string_view entry_name(entry->d_name);
      if (entry_name == "." || entry_name == "..") continue;
      if (record) record->push_back(listed_entry(fd, entry_name, entry->d_type, true));
      if (entry_name[0] != '.') listing.names.emplace_back(entry_name);
      // Everything named result_N.txt is a result file: one that is a directory or a FIFO
      // is reported when it is read, not left out in silence.
      if (is_result_name(entry_name)) {
        listing.result_files.emplace_back(entry_name);
        continue;
      }
      if (is_loadgen_log_name(entry_name)) listing.loadgen_logs = true;
      // Never follow symbolic links to directories: a link loop would never end.
      bool directory = entry->d_type == DT_DIR;
      if (entry->d_type == DT_UNKNOWN) {
        struct stat info {};
        directory = ::fstatat(fd, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
      }
      if (entry->d_type == DT_LNK || (entry->d_type == DT_UNKNOWN && !directory)) {
        // A link to a folder is not walked (a loop would never end), but never in silence.
        struct stat target {};
        if (::fstatat(fd, entry->d_name, &target, 0) == 0 && S_ISDIR(target.st_mode)) {
          errors.push_back({joined(shown, entry_name),
                            "a symbolic link to a folder; not followed inside a tree (give it as PATH to score it)",
                            true});
          continue;
        }
      }
      if (directory) {
        listing.children.emplace_back(entry_name);
      } else if (entry_name.ends_with(".log") || entry_name.ends_with(".txt")) {
        listing.other_logs.emplace_back(entry_name);
      }
    }
  }
  return fd;
}

// `names` in byte order (BenchmarkDir::entries).
std::vector<std::string> sorted_names(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

// True when `name` below the folder open at `fd` is a regular file (symbolic links followed).
bool regular_file_at(int fd, const char* name) {
  struct stat info {};
  return ::fstatat(fd, name, &info, 0) == 0 && S_ISREG(info.st_mode);
}

// An MLPerf Inference submitter's folder: <division>/<submitter> of an inference division
// (closed, open, network), holding results/ and measurements/ (the script checkers' layout,
// v4.1–v5.1) or results/ and systems/ (v6.x, whose measurements lie in the scenario folders;
// a training round has no division folder above its submitters). Its scenario folders lie in
// results/ only: the checker reads code/ or src/, measurements/, documentation/ and systems/
// as what they are, never as runs (a harness's logs kept in src/ are not results), and the
// submission checks list them (judge_submission_tree).
bool is_inference_submitter(std::string_view absolute, const std::vector<std::string>& sorted_children) {
  const std::string_view division = path_name(path_parent(absolute));
  auto has = [&](const char* name) { return std::binary_search(sorted_children.begin(), sorted_children.end(), name); };
  return (division == "closed" || division == "open" || division == "network") && has("results") &&
         (has("measurements") || has("systems"));
}

// As judge_submission_tree's walk lists a folder (list_folder_with_sizes) and goes down into
// it: `entries` and the names of its `folders` that are not symbolic links. The folder is
// `name` below the folder open at `dirfd` (AT_FDCWD: `name` is `folder`, its path); on
// success it is left open in `fd` for its subfolders. False when it cannot be listed (what
// was read is then not to be kept).
bool list_for_tree_walk(int dirfd, const char* name, const std::string& folder, std::vector<FolderEntry>& entries,
                        std::vector<std::string>& folders, OpenFolder& fd) {
  std::error_code ec;
  if (!list_folder_with_sizes_at(dirfd, name, entries, ec, fd.fd)) return false;
  for (const auto& e : entries) {
    if (e.is_directory(folder) && !e.is_symlink(folder)) folders.push_back(e.name);
  }
  return true;
}

// Lists, record-only, the folders `names` of `folder` (open at `folder_fd`) and everything
// below them, as list_for_tree_walk goes down, into `out` by their path below the
// submitter's folder (`folder` is at `below`). Each folder is opened from its parent's
// descriptor, held until its last subfolder is open (as many at once as the tree is deep).
// A folder that cannot be listed is left to the tree walk.
void record_subtrees(int folder_fd, const std::string& folder, const std::string& below,
                     const std::vector<std::string>& names,
                     std::vector<std::pair<std::string, std::vector<FolderEntry>>>& out) {
  struct Todo {
    std::shared_ptr<const OpenFolder> parent;  // null: the folder at folder_fd
    std::string path;
    std::string name;
  };
  std::vector<Todo> pending;
  for (const auto& name : names) pending.push_back({nullptr, path_join(folder, name), name});
  while (!pending.empty()) {
    Todo next = std::move(pending.back());
    pending.pop_back();
    // A path the kernel refuses whole (ENAMETOOLONG), though it opens from the parent: left
    // to the tree walk, which meets that error as the checker's os.walk does.
    if (next.path.size() >= PATH_MAX) continue;
    std::vector<FolderEntry> entries;
    std::vector<std::string> folders;
    auto open = std::make_shared<OpenFolder>();
    if (!list_for_tree_walk(next.parent ? next.parent->fd : folder_fd, next.name.c_str(), next.path, entries, folders,
                            *open)) {
      continue;
    }
    for (auto& name : folders) {
      std::string path = path_join(next.path, name);
      pending.push_back({open, std::move(path), std::move(name)});
    }
    out.emplace_back(below + next.path.substr(folder.size()), std::move(entries));
  }
}

// Lists `node` once: a leaf (a benchmark directory, an inference scenario folder or bare
// loadgen run, a folder of other logs) goes to node.out; otherwise its subdirectories to
// walk go to node.below, sorted (compliance folders of inference submissions left out).
// A scenario folder below the root is described by its model folder, and takes the round the
// folder above names.
void visit(WalkNode& node, WalkContext& context) {
  const Place& place = node.place;
  const fs::path& path = place.path;
  if (node.record_only) {
    OpenFolder open;
    if (node.depth > 64 || !list_for_tree_walk(AT_FDCWD, path.c_str(), path.native(), node.recorded, node.below, open)) {
      return;
    }
    node.recorded_below = place.absolute.substr(node.submitter_path_size);
    node.recorded_whole = true;
    if (node.depth < node.submitter_depth + 2) return;  // its subfolders: jobs of their own
    // Deeper: the whole subtree here.
    record_subtrees(open.fd, path.native(), node.recorded_below, node.below, node.recorded_below_it);
    node.below.clear();
    return;
  }
  if (node.depth > 64) {
    node.errors.push_back({path.string(), "directory tree too deep; not descending further"});
    return;
  }
  Listing listing;
  const int fd = list_directory(path.c_str(), path.string(), listing, node.errors,
                                node.submitter_listings ? &node.recorded : nullptr);
  if (fd < 0) return;
  if (node.submitter_listings && listing.complete) {
    node.recorded_below = place.absolute.substr(node.submitter_path_size);
    node.recorded_whole = true;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (!listing.result_files.empty() && context.glob.empty()) {
    BenchmarkDir dir = as_benchmark_dir(place, paths_of(path, listing.result_files), &context.systems);
    dir.ignored_files = paths_of(path, listing.other_logs);
    sort_natural(dir.ignored_files);
    dir.entries = sorted_names(std::move(listing.names));
    node.out.push_back(std::move(dir));
    return;  // a benchmark directory is a leaf
  }
  // A scenario folder of a compliance tree stands for the scenario folder of results/ that
  // holds its run: its tests are judged with that run. Without one, its tests are walked
  // into, each its own run (find_loadgen_run).
  if (context.in_compliance_tree && !listing.loadgen_logs) {
    if (auto results = results_scenario_of(path, place.absolute)) {
      std::optional<LoadgenRun> run = find_loadgen_run(results->first, false, true);
      BenchmarkDir dir = as_benchmark_dir(run->scenario_dir / "..", {});
      dir.loadgen = std::move(*run);
      dir.path = std::move(results->first);
      dir.absolute_path = std::move(results->second);
      node.out.push_back(std::move(dir));
      return;
    }
  }
  // An inference scenario folder (or a bare loadgen run) is a leaf too: its model folder
  // tells the system and submitter as a training benchmark folder does.
  const bool performance = std::find(listing.children.begin(), listing.children.end(), "performance") !=
                           listing.children.end();
  const bool performance_logs =
      !listing.loadgen_logs && performance &&
      (regular_file_at(fd, "performance/run_1/mlperf_log_detail.txt") ||
       regular_file_at(fd, "performance/run_1/mlperf_log_summary.txt"));
  // A scenario folder of a submission without a loadgen log (LoadgenRun::no_loadgen_log) is
  // found too: the checker judges it, so it is not skipped.
  const bool without_log = performance && !listing.loadgen_logs && !performance_logs && node.submitter_listings &&
                           node.depth == node.submitter_depth + 4;
  // An MLPerf endpoints run (v6.1: config.yaml and performance/result_summary.json, no loadgen
  // log) given or found outside a submission's results/ is a run of the same kind.
  const bool endpoints_run = performance && !listing.loadgen_logs && !performance_logs && !without_log &&
                             regular_file_at(fd, "performance/result_summary.json") &&
                             (regular_file_at(fd, "config.yaml") || regular_file_at(fd, "config.yml"));
  std::optional<LoadgenRun> run;
  if ((!node.root && (performance_logs || without_log) && !is_test_folder(path_name(place.absolute))) ||
      endpoints_run) {
    // The usual scenario folder of a submission, found by walking: its run's paths are made
    // here without normalizing any (find_loadgen_run does that for what a user gave).
    run.emplace();
    run->run_dir = path / "performance" / "run_1";
    run->scenario_dir = path;
    run->scenario = std::string(path_name(place.absolute));
    run->no_loadgen_log = without_log || endpoints_run;
  } else {
    run = find_loadgen_run(path, listing.loadgen_logs, performance_logs);
  }
  if (run) {
    BenchmarkDir dir;
    if (!run->compliance_test.empty()) {
      dir = as_benchmark_dir(run->scenario_dir, {});
      describe_compliance_test(dir, &context.systems);
    } else if (run->bare || node.root) {
      dir = as_benchmark_dir(run->bare ? run->scenario_dir : run->scenario_dir / "..", {});
    } else {
      describe(dir, path_parent(place.absolute), &context.systems);  // by its model folder
      dir.path_ruleset = node.parent_ruleset;
    }
    dir.loadgen = std::move(*run);
    // <submitter>/results/<system>/<model>/<scenario>: the submission checks' walk of that
    // submitter reads what this walk listed of it.
    if (!dir.loadgen->bare && node.submitter_listings && node.depth == node.submitter_depth + 4) {
      dir.submitter_listings = node.submitter_listings;
      // Its folders (performance/, accuracy/, ...) are listed here too, record-only, for the
      // submitter's tree walk: before the folder is handed out, and in this job.
      if (node.recorded_whole) {
        record_subtrees(fd, path.native(), node.recorded_below, listing.children, node.recorded_below_it);
      }
    }
    // A leaf: its place is not needed after this, and is moved from.
    dir.path = std::move(node.place.path);
    dir.absolute_path = std::move(node.place.absolute);
    node.out.push_back(std::move(dir));
    return;
  }
  if (auto dir = other_logs_dir(place, listing, context.glob, &context.systems)) {
    dir->entries = sorted_names(std::move(listing.names));
    node.out.push_back(std::move(*dir));
    return;
  }
  std::sort(listing.children.begin(), listing.children.end());
  if (is_inference_submitter(place.absolute, listing.children)) {
    if (!node.submitter_listings) {
      node.submitter_listings = std::make_shared<FolderListings>();
      node.submitter_path_size = place.absolute.size();
      node.submitter_depth = node.depth;
    }
    // results/ is walked for scenario folders. The submitter's other folders (code/,
    // compliance/, documentation/, measurements/, systems/, ...) are listed record-only,
    // many at once and before results/, so that the submission checks' walk of the
    // submitter (one thread's work while the others wait for it) finds them all listed.
    for (auto& child : listing.children) {
      if (child != "results") node.below.push_back(std::move(child));
    }
    node.below_record_only = node.below.size();
    node.below.push_back("results");
    return;
  }
  node.below.reserve(listing.children.size());
  for (auto& child : listing.children) {
    if (context.in_compliance_tree || !is_compliance_folder(child)) node.below.push_back(std::move(child));
  }
}

}  // namespace

// The walk, depth first in sorted order, listing many folders at once: `work` holds, in
// output order, what is found and not yet handed out (directories, errors) and the folders
// not yet listed; the first kListedAtOnce folders at its front are listed in parallel and
// replaced by what each held. Only the folders pending beside the current path are kept,
// never the whole tree.
struct BenchmarkDirWalk::State {
  // One entry of `work`, small (a folder of 100,000 subfolders keeps 100,000 of them): a
  // folder to list (`listed` false: its parent's node and its own name until it is listed),
  // or a directory found, or an error met.
  struct Pending {
    bool listed = true;                      // false: a folder still to list
    bool record_only = false;                // a folder to list record-only (WalkNode::record_only)
    std::shared_ptr<const WalkNode> parent;  // a folder's parent (null for the root)
    std::string name;                        // a folder's name
    std::unique_ptr<WalkNode> node;          // a folder being listed
    std::unique_ptr<BenchmarkDir> dir;
    std::unique_ptr<DiscoveryError> error;
  };
  fs::path root;
  WalkContext context;
  std::deque<Pending> work;
  bool started = false;
};

namespace {

// Folders listed in parallel at a time: enough to keep every thread busy (and the disk, for
// folders not in the cache) without keeping many folders' finds.
constexpr std::size_t kListedAtOnce = 256;

}  // namespace

BenchmarkDirWalk::BenchmarkDirWalk(const fs::path& root, const std::string& glob) : state_(std::make_unique<State>()) {
  state_->root = root;
  state_->context.glob = glob;
}

BenchmarkDirWalk::~BenchmarkDirWalk() = default;
BenchmarkDirWalk::BenchmarkDirWalk(BenchmarkDirWalk&&) noexcept = default;

bool BenchmarkDirWalk::next(std::vector<BenchmarkDir>& out, std::vector<DiscoveryError>& errors) {
  State& st = *state_;
  if (!st.started) {
    st.started = true;
    std::error_code ec;
    auto status = fs::status(st.root, ec);
    if (ec || !fs::exists(status)) {
      bool missing = !ec || ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
      errors.push_back({st.root.string(), missing ? "no such file or directory" : "cannot access: " + ec.message()});
      return false;
    }
    if (!fs::is_directory(status)) {
      errors.push_back({st.root.string(), "not a directory (give a benchmark directory or a folder above one)"});
      return false;
    }
    WalkNode root;
    root.place = Place::of(st.root);
    st.context.in_compliance_tree = has_folder_named(root.place.absolute, "compliance");
    State::Pending first;
    first.listed = false;
    first.node = std::make_unique<WalkNode>(std::move(root));
    st.work.push_back(std::move(first));
  }
  // Twice the cores: listing a folder whose blocks are not cached waits for the disk (seen
  // here on a round listed seconds apart), and another thread lists meanwhile. Inference
  // round: 81.0 -> 77.8 ms median with 4 threads on 2 cores (8 gave the same as 4).
  const unsigned threads = std::max(4u, 2 * default_threads());
  while (true) {
    bool found = false;
    while (!st.work.empty() && st.work.front().listed) {
      State::Pending& front = st.work.front();
      if (front.dir) {
        out.push_back(std::move(*front.dir));
        found = true;
      } else if (front.error) {
        errors.push_back(std::move(*front.error));
      }
      st.work.pop_front();
    }
    if (found) return true;
    if (st.work.empty()) return false;
    std::size_t n = 0;
    while (n < st.work.size() && n < kListedAtOnce && !st.work[n].listed) ++n;
    parallel_for(n, threads, [&](std::size_t i) {
      State::Pending& folder = st.work[i];
      if (!folder.node) {
        const WalkNode& parent = *folder.parent;
        folder.node = std::make_unique<WalkNode>();
        WalkNode& node = *folder.node;
        node.root = false;
        node.parent_ruleset = parent.place.ruleset;
        node.depth = parent.depth + 1;
        node.place = parent.place.child(folder.name);
        node.submitter_listings = parent.submitter_listings;
        node.submitter_path_size = parent.submitter_path_size;
        node.submitter_depth = parent.submitter_depth;
        node.record_only = parent.record_only || folder.record_only;
      }
      visit(*folder.node, st.context);
    });
    // Each listed folder gives way to its finds, its errors and its subfolders, in order.
    std::vector<State::Pending> expanded;
    for (std::size_t i = 0; i < n; ++i) {
      WalkNode& node = *st.work[i].node;
      if (node.recorded_whole) {
        node.submitter_listings->add(std::move(node.recorded_below), std::move(node.recorded));
      }
      for (auto& [below, entries] : node.recorded_below_it) node.submitter_listings->add(std::move(below), std::move(entries));
      node.recorded = {};
      node.recorded_below_it = {};
      for (auto& d : node.out) {
        expanded.push_back({true, false, nullptr, {}, nullptr, std::make_unique<BenchmarkDir>(std::move(d)), nullptr});
      }
      for (auto& e : node.errors) {
        expanded.push_back({true, false, nullptr, {}, nullptr, nullptr, std::make_unique<DiscoveryError>(std::move(e))});
      }
      if (node.below.empty()) continue;
      std::vector<std::string> below = std::move(node.below);
      const std::size_t record_only = node.below_record_only;
      node.out.clear();
      node.errors.clear();
      auto parent = std::make_shared<const WalkNode>(std::move(node));
      for (std::size_t k = 0; k < below.size(); ++k) {
        expanded.push_back({false, k < record_only, parent, std::move(below[k]), nullptr, nullptr, nullptr});
      }
    }
    st.work.erase(st.work.begin(), st.work.begin() + static_cast<std::ptrdiff_t>(n));
    st.work.insert(st.work.begin(), std::make_move_iterator(expanded.begin()), std::make_move_iterator(expanded.end()));
  }
}

BenchmarkDir single_log_dir(const fs::path& file) {
  BenchmarkDir dir = as_benchmark_dir(folder_of_file(file), {file});
  dir.single_log = true;
  return dir;
}

BenchmarkDir given_logs_dir(std::vector<fs::path> files) {
  const fs::path folder = files.empty() ? fs::path(".") : folder_of_file(files.front());
  sort_natural(files);
  // A path given twice is one run: counted twice it would weigh twice in the olympic mean.
  // One folder's paths with the same name are the same path, and sorted next to each other.
  files.erase(std::unique(files.begin(), files.end(),
                          [](const fs::path& a, const fs::path& b) { return a.filename() == b.filename(); }),
              files.end());
  BenchmarkDir dir = as_benchmark_dir(folder, {});
  dir.result_files = std::move(files);
  dir.file_rule = kGivenLogsRule;
  return dir;
}

std::optional<fs::path> loadgen_log_of(const fs::path& folder) {
  std::error_code ec;
  for (const fs::path& run : {folder, folder / "performance" / "run_1"}) {
    for (const char* name : {kDetailLogName, kSummaryLogName}) {
      if (fs::is_regular_file(run / name, ec)) return run / name;
    }
  }
  return std::nullopt;
}

fs::path folder_of_file(const fs::path& file) {
  return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      std::string_view x(a.data() + i, ie - i), y(b.data() + j, je - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

std::vector<BenchmarkDir> find_benchmark_dirs(const fs::path& root, std::vector<DiscoveryError>& errors,
                                              const std::string& glob) {
  std::vector<BenchmarkDir> out;
  BenchmarkDirWalk walk(root, glob);
  while (walk.next(out, errors)) {
  }
  return out;
}

namespace {

// A compliance test's folder (TEST0x) read as a scenario folder is that test's own run.
LoadgenRun as_compliance_test_run(LoadgenRun run) {
  std::string name = run.scenario_dir.filename().string();
  if (name.empty()) name = run.scenario_dir.parent_path().filename().string();
  if (is_test_folder(name)) {
    run.compliance_test = std::move(name);
    run.bare = true;
    run.scenario.clear();  // from the log
  }
  return run;
}

}  // namespace

bool is_compliance_folder(const std::string& name) { return name == "compliance" || is_test_folder(name); }

std::optional<LoadgenRun> find_loadgen_run(const fs::path& path, bool has_logs, bool performance_logs) {
  // Every folder of a tree passes here: the usual case (a scenario folder found by walking)
  // builds no normalized path; the division is read when scored.
  if (!has_logs && !performance_logs) return std::nullopt;
  const fs::path performance = path / "performance";
  fs::path name = path.has_filename() ? path : path.parent_path();
  LoadgenRun run;
  if (!has_logs && name.filename() != "." && name.filename() != "..") {
    run.run_dir = performance / "run_1";
    run.scenario_dir = name;
    run.scenario = name.filename().string();
    return as_compliance_test_run(std::move(run));
  }
  fs::path norm = fs::absolute(path).lexically_normal();
  if (!norm.has_filename()) norm = norm.parent_path();
  run.run_dir = has_logs ? path : performance / "run_1";
  run.scenario_dir = norm;
  run.scenario = norm.filename().string();
  run.bare = has_logs;
  if (has_logs && norm.parent_path().filename() == "performance") {
    // performance/run_N inside a scenario folder still names its scenario.
    run.scenario_dir = norm.parent_path().parent_path();
    run.scenario = run.scenario_dir.filename().string();
    run.bare = false;
  } else if (has_logs) {
    run.scenario.clear();  // a bare folder: the scenario comes from the log
  }
  return as_compliance_test_run(std::move(run));
}

std::optional<ScenarioFolderPart> scenario_folder_part(const fs::path& given) {
  std::error_code ec;
  fs::path absolute = fs::absolute(given, ec);
  if (ec) return std::nullopt;
  absolute = absolute.lexically_normal();
  if (!absolute.has_filename() && absolute.has_parent_path() && absolute != absolute.root_path()) {
    absolute = absolute.parent_path();
  }
  std::vector<std::string> names;  // the components, root left out
  for (const auto& c : absolute.relative_path()) names.push_back(c.string());
  if (names.empty() || !is_directory_path(absolute)) return std::nullopt;

  // <org>/compliance/<system>/<model>/<scenario>/TEST0x/...: the nearest "compliance" above.
  for (std::size_t i = names.size(); i-- > 0;) {
    if (names[i] != "compliance") continue;
    const std::size_t below = names.size() - i - 1;
    // Above the scenario level the walk maps each scenario folder (results_scenario_of).
    if (below < 3 || (below > 3 && !is_test_folder(names[i + 4]))) break;
    fs::path scenario = absolute;
    for (std::size_t k = 3; k < below; ++k) scenario = scenario.parent_path();
    auto results = results_scenario_of(folder_above(given, below - 3, absolute), scenario.native());
    if (!results) break;
    std::string what = below > 3 ? "is compliance test " + names[i + 4] + " of" : "holds the compliance tests of";
    return ScenarioFolderPart{std::move(results->first), std::move(what)};
  }

  // <scenario>/accuracy, <scenario>/performance[/run_N], <scenario>/TEST0x[/accuracy|performance[/run_N]].
  const std::size_t n = names.size();
  auto part = [&](std::size_t levels) -> std::optional<std::string> {
    if (levels >= n) return std::nullopt;
    const std::string* b = &names[n - levels];  // the names below the scenario folder
    if (is_test_folder(names[n - levels - 1]) || names[n - levels - 1] == "accuracy" ||
        names[n - levels - 1] == "performance") {
      return std::nullopt;  // the folder above is itself a part
    }
    const bool test = is_test_folder(b[0]);
    const std::string of_test = test ? "is compliance test " + b[0] + " of" : "";
    switch (levels) {
      case 1:
        if (b[0] == "accuracy") return "is the accuracy run of";
        if (b[0] == "performance") return "holds the performance run of";
        if (test) return of_test;
        return std::nullopt;
      case 2:
        if (b[0] == "performance" && is_run_folder(b[1])) return "is the performance run of";
        if (test && (b[1] == "accuracy" || b[1] == "performance")) return of_test;
        return std::nullopt;
      case 3:
        if (test && b[1] == "performance" && is_run_folder(b[2])) return of_test;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  };
  for (std::size_t levels = 1; levels <= 3; ++levels) {
    auto what = part(levels);
    if (!what) continue;
    fs::path scenario = folder_above(given, levels, absolute);
    if (holds_loadgen_run(scenario)) return ScenarioFolderPart{std::move(scenario), std::move(*what)};
  }
  return std::nullopt;
}

}  // namespace mlperf
