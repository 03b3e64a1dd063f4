// Discovery (src/mllog/discovery.cc): which folders are benchmark directories, their result files
// in natural order, and what the path tells (submitter, system, ruleset).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "mlperf/mllog/discovery.h"
#include "../test_support.h"

namespace mlperf {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

std::vector<std::string> names(const BenchmarkDir& dir) {
  std::vector<std::string> out;
  for (const auto& f : dir.result_files) out.push_back(f.filename().string());
  return out;
}

TEST(Discovery, ResultFilesInNaturalOrderThenUnnumberedByName) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "bert";
  for (const char* name : {"result_10.txt", "result_9.txt", "result_0.txt", "result_b.txt", "result_a1.txt",
                           "result_010.txt", "result_99999999999999999999.txt", "notes.txt", "result_1.log"}) {
    write_file(dir / name, "");
  }
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_TRUE(errors.empty());
  // 010 and 10 tie on N and go by name; an N beyond long long sorts with the unnumbered.
  EXPECT_EQ(names(dirs[0]), (std::vector<std::string>{"result_0.txt", "result_9.txt", "result_010.txt",
                                                       "result_10.txt", "result_99999999999999999999.txt",
                                                       "result_a1.txt", "result_b.txt"}));
  EXPECT_EQ(dirs[0].benchmark_name, "bert");
  EXPECT_FALSE(dirs[0].path_ruleset.has_value());
}

// The walk keeps what it listed of each benchmark directory (BenchmarkDir::entries): every
// entry not hidden, in byte order, so that later stages know scaling.json, power or
// package_checker_params absent without a stat; where it listed nothing, may_hold says maybe.
TEST(Discovery, ABenchmarkDirKeepsItsListingAndSaysWhatIsAbsent) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "bert";
  for (const char* name : {"result_1.txt", "result_0.txt", ".hidden", "scaling.json", "power/node_0", "Zeta.log"}) {
    write_file(dir / name, "");
  }
  const fs::path runs = tmp.path() / "runs" / "llama31_8b";  // run-script names: another rule
  write_file(runs / "2510011200_1.log", "");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 2u);
  ASSERT_TRUE(dirs[0].entries.has_value());
  EXPECT_EQ(*dirs[0].entries,
            (std::vector<std::string>{"Zeta.log", "power", "result_0.txt", "result_1.txt", "scaling.json"}));
  EXPECT_TRUE(may_hold(dirs[0], "power"));
  EXPECT_TRUE(may_hold(dirs[0], "scaling.json"));
  EXPECT_FALSE(may_hold(dirs[0], "package_checker_params"));
  EXPECT_FALSE(may_hold(dirs[0], ".hidden"));
  EXPECT_EQ(dirs[1].file_rule, "run-script names");
  ASSERT_TRUE(dirs[1].entries.has_value());
  EXPECT_EQ(*dirs[1].entries, (std::vector<std::string>{"2510011200_1.log"}));
  EXPECT_FALSE(may_hold(dirs[1], "scaling.json"));
  // A log given on its own: its folder was not listed.
  const BenchmarkDir alone = single_log_dir(dir / "result_0.txt");
  EXPECT_FALSE(alone.entries.has_value());
  EXPECT_TRUE(may_hold(alone, "scaling.json"));
}

// Logs given by their paths (`score LOG...`): their folder, the logs in natural order, each
// once, by "the paths given"; what the path says (ruleset, submitter) read as for the folder.
TEST(Discovery, LogsGivenByTheirPathsAreTheirFoldersRuns) {
  const fs::path folder = "training_results_v5.1/AMD/results/sys/llama31_8b";
  const BenchmarkDir dir = given_logs_dir(
      {folder / "run_10.log", folder / "run_2.log", folder / "notes.txt", folder / "run_2.log", folder / "run_1.log"});
  EXPECT_EQ(dir.path, folder);
  EXPECT_EQ(dir.result_files, (std::vector<fs::path>{folder / "notes.txt", folder / "run_1.log", folder / "run_2.log",
                                                     folder / "run_10.log"}));
  EXPECT_EQ(dir.file_rule, "the paths given");
  EXPECT_TRUE(dir.ignored_files.empty());
  EXPECT_FALSE(dir.single_log);
  EXPECT_FALSE(dir.entries.has_value());
  EXPECT_EQ(dir.benchmark_name, "llama31_8b");
  EXPECT_EQ(dir.submitter, "AMD");
  EXPECT_EQ(dir.system, "sys");
  ASSERT_TRUE(dir.path_ruleset.has_value());
  EXPECT_EQ(dir.path_ruleset->str(), "5.1.0");
  // A bare name: the current folder.
  EXPECT_EQ(given_logs_dir({"run.log"}).path, fs::path("."));
  EXPECT_TRUE(is_loadgen_log_name("mlperf_log_detail.txt"));
  EXPECT_TRUE(is_loadgen_log_name("mlperf_log_summary.txt"));
  EXPECT_FALSE(is_loadgen_log_name("mlperf_log_accuracy.json"));
  EXPECT_FALSE(is_loadgen_log_name("result_0.txt"));
}

// A folder given that is a part of an inference scenario folder (its accuracy run, its
// performance run, a compliance test, the compliance tree beside results/) stands for it.
TEST(Discovery, APartOfAScenarioFolderStandsForIt) {
  TempDir tmp;
  const fs::path root = fs::canonical(tmp.path());  // relative paths are made absolute from getcwd's
  const fs::path org = root / "closed/Org";
  const fs::path scenario = org / "results/sys/llama2-70b-99/Offline";
  write_file(scenario / "performance/run_1/mlperf_log_detail.txt", "");
  write_file(scenario / "accuracy/accuracy.txt", "");
  const fs::path tests = org / "compliance/sys/llama2-70b-99/Offline";
  write_file(tests / "TEST01/performance/run_1/mlperf_log_detail.txt", "");
  write_file(tests / "TEST01/accuracy/accuracy.txt", "");
  // A test whose scenario has no folder in results/.
  write_file(org / "compliance/sys/llama2-70b-99/Server/TEST01/performance/run_1/mlperf_log_detail.txt", "");
  // A harness's own folder: the logs in it, its accuracy run and a test beside them.
  const fs::path harness = root / "runs/offline";
  write_file(harness / "mlperf_log_summary.txt", "");
  write_file(harness / "accuracy/mlperf_log_detail.txt", "");
  write_file(harness / "TEST04/mlperf_log_detail.txt", "");
  write_file(root / "other/accuracy/mlperf_log_detail.txt", "");  // no run above it
  write_file(tests / "TEST01/accuracy/more/notes.txt", "");

  struct Case {
    fs::path given;
    fs::path folder;
    std::string what;
  };
  for (const Case& c : std::vector<Case>{
           {scenario / "accuracy", scenario, "is the accuracy run of"},
           {scenario / "performance", scenario, "holds the performance run of"},
           {scenario / "performance/run_1", scenario, "is the performance run of"},
           {scenario / "performance/run_1/", scenario, "is the performance run of"},
           {tests / "TEST01", scenario, "is compliance test TEST01 of"},
           {tests / "TEST01/accuracy", scenario, "is compliance test TEST01 of"},
           {tests / "TEST01/performance/run_1", scenario, "is compliance test TEST01 of"},
           {tests / "TEST01/accuracy/more", scenario, "is compliance test TEST01 of"},  // all of its tree
           {tests, scenario, "holds the compliance tests of"},
           {harness / "accuracy", harness, "is the accuracy run of"},
           {harness / "TEST04", harness, "is compliance test TEST04 of"},
       }) {
    auto part = scenario_folder_part(c.given);
    ASSERT_TRUE(part.has_value()) << c.given;
    EXPECT_EQ(part->folder, c.folder) << c.given;
    EXPECT_EQ(part->what, c.what) << c.given;
  }
  // Not parts: the scenario folder itself and the folders above it, a compliance test
  // without results/ for it, an accuracy folder without a run above it, a missing folder,
  // and a log (a file: the caller gives its folder).
  for (const fs::path& given :
       {scenario, org / "results", org, org / "compliance/sys/llama2-70b-99/Server/TEST01",
        org / "compliance/sys", org / "compliance",  // the walk maps each scenario folder below
        root / "other/accuracy", scenario / "TEST09", harness,
        tests / "TEST01/performance/run_1/mlperf_log_detail.txt"}) {
    EXPECT_FALSE(scenario_folder_part(given).has_value()) << given;
  }
  // A relative path keeps its spelling; one that climbs out of what it names is absolute.
  struct Cwd {
    fs::path was = fs::current_path();
    ~Cwd() { fs::current_path(was); }
  } cwd;
  fs::current_path(org);
  EXPECT_EQ(scenario_folder_part("results/sys/llama2-70b-99/Offline/accuracy")->folder,
            fs::path("results/sys/llama2-70b-99/Offline"));
  EXPECT_EQ(scenario_folder_part("compliance/sys/llama2-70b-99/Offline/TEST01/")->folder,
            fs::path("results/sys/llama2-70b-99/Offline"));
  fs::current_path(tests / "TEST01");
  EXPECT_EQ(scenario_folder_part(".")->folder, scenario);
  EXPECT_EQ(scenario_folder_part("performance/run_1")->folder, scenario);
  fs::current_path(scenario / "accuracy");
  EXPECT_EQ(scenario_folder_part(".")->folder, scenario);
  EXPECT_EQ(scenario_folder_part("../accuracy")->folder, fs::path(".."));

  // Walked from a folder of the compliance tree: a scenario folder whose run is in results/
  // is that scenario folder; one without is walked into, each test its own run.
  fs::current_path(org);
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs("compliance", errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0].path, fs::path("results/sys/llama2-70b-99/Offline"));
  ASSERT_TRUE(dirs[0].loadgen.has_value());
  EXPECT_EQ(dirs[0].loadgen->scenario, "Offline");
  EXPECT_FALSE(dirs[0].loadgen->bare);
  EXPECT_EQ(dirs[0].system, "sys");
  EXPECT_EQ(dirs[0].submitter, "Org");
  EXPECT_EQ(dirs[0].absolute_path, (scenario).string());
  EXPECT_EQ(dirs[1].path, fs::path("compliance/sys/llama2-70b-99/Server/TEST01"));
  ASSERT_TRUE(dirs[1].loadgen.has_value());
  EXPECT_EQ(dirs[1].loadgen->compliance_test, "TEST01");
  EXPECT_EQ(dirs[1].system, "sys");
  EXPECT_EQ(dirs[1].submitter, "Org");
  // The same tree walked from above compliance/: results/ only, as the checker reads it.
  dirs = find_benchmark_dirs(org / "results", errors);
  ASSERT_EQ(dirs.size(), 1u);
}

// A compliance test's folder read as a scenario folder is that test's own run, read bare.
TEST(Discovery, AComplianceTestsFolderIsItsOwnRun) {
  auto run = find_loadgen_run("compliance/sys/model/Server/TEST01", false, true);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->compliance_test, "TEST01");
  EXPECT_TRUE(run->bare);
  EXPECT_EQ(run->scenario, "");  // from the log
  EXPECT_EQ(run->scenario_dir, fs::path("compliance/sys/model/Server/TEST01"));
  EXPECT_EQ(run->run_dir, fs::path("compliance/sys/model/Server/TEST01/performance/run_1"));
  run = find_loadgen_run("compliance/sys/model/Server/TEST04/performance/run_1", true, false);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->compliance_test, "TEST04");
  EXPECT_TRUE(run->bare);
  EXPECT_EQ(run->scenario_dir.filename(), "TEST04");
  // A scenario folder and its run are no test's.
  run = find_loadgen_run("results/sys/model/Server", false, true);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->compliance_test, "");
  EXPECT_FALSE(run->bare);
  EXPECT_EQ(run->scenario, "Server");
  run = find_loadgen_run("results/sys/model/Server/performance/run_1", true, false);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->compliance_test, "");
  EXPECT_EQ(run->scenario, "Server");
}

TEST(Discovery, RulesetFromTheLastRoundFolderOnThePath) {
  TempDir tmp;
  struct Case {
    const char* folder;
    std::optional<std::string> ruleset;
  };
  const Case cases[] = {
      {"training_v5.1", "5.1.0"},          {"training_results_v4.1", "4.1.0"},
      {"training_v5.0.2", "5.0.0"},        {"training_v5", std::nullopt},
      {"training_v5.1.", std::nullopt},    {"training_v5.x", std::nullopt},
      {"training_results5.1", std::nullopt}, {"my_training_v5.1", std::nullopt},
      {"training_v5.1-old", std::nullopt},
  };
  for (const auto& c : cases) {
    const fs::path dir = tmp.path() / c.folder / "Org/results/SYS/bert";
    write_file(dir / "result_0.txt", "");
    std::vector<DiscoveryError> errors;
    auto dirs = find_benchmark_dirs(dir, errors);
    ASSERT_EQ(dirs.size(), 1u) << c.folder;
    ASSERT_EQ(dirs[0].path_ruleset.has_value(), c.ruleset.has_value()) << c.folder;
    if (c.ruleset) EXPECT_EQ(dirs[0].path_ruleset->str(), *c.ruleset) << c.folder;
  }
  // Nested round folders: the innermost names the ruleset.
  const fs::path nested = tmp.path() / "training_v4.1/copy/training_results_v5.0/O/results/S/ssd";
  write_file(nested / "result_0.txt", "");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(nested, errors);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0].path_ruleset->str(), "5.0.0");
}

TEST(Discovery, WalksOnceIntoSubfoldersInSortedOrderAndStopsAtBenchmarkDirs) {
  TempDir tmp;
  const fs::path round = tmp.path() / "training_v5.1";
  write_file(round / "B/results/S2/llama31_8b/result_0.txt", "");
  write_file(round / "A/results/S1/ssd/result_0.txt", "");
  write_file(round / "A/results/S1/bert/result_0.txt", "");
  write_file(round / "A/results/S1/bert/sub/result_0.txt", "");  // below a benchmark dir: not one
  write_file(round / "A/systems/S1.json", "{}");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(round, errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[0].path, round / "A/results/S1/bert");
  EXPECT_EQ(dirs[1].path, round / "A/results/S1/ssd");
  EXPECT_EQ(dirs[2].path, round / "B/results/S2/llama31_8b");
  EXPECT_EQ(dirs[0].submitter, "A");
  EXPECT_EQ(dirs[0].system, "S1");
  ASSERT_TRUE(dirs[0].system_description.has_value());
  EXPECT_EQ(*dirs[0].system_description, round / "A/systems/S1.json");
  // Looked up once per system folder: the second benchmark of S1 has it too.
  ASSERT_TRUE(dirs[1].system_description.has_value());
  EXPECT_EQ(*dirs[1].system_description, round / "A/systems/S1.json");
  EXPECT_FALSE(dirs[2].system_description.has_value());  // B has no systems/S2.json
  // The absolute, normal path each was found at, as text.
  EXPECT_EQ(dirs[2].absolute_path, fs::absolute(round / "B/results/S2/llama31_8b").lexically_normal().string());
}

// A scenario folder of an inference submission whose performance/run_1 holds no loadgen log
// (an MLPerf endpoints folder, a run not copied in) is still one of its folders: found with
// no_loadgen_log set, not skipped. The same folder outside a submission's results/ is no run.
TEST(Discovery, AScenarioFolderWithoutLoadgenLogsIsFound) {
  TempDir tmp;
  const fs::path results = tmp.path() / "closed/Org/results/sys/gpt-oss-120b";
  write_file(results / "Offline/performance/run_1/mlperf_log_detail.txt", "");
  write_file(results / "Server/config.yaml", "type: online\n");
  write_file(results / "Server/performance/result_summary.json", "{}\n");
  write_file(tmp.path() / "closed/Org/measurements/sys/gpt-oss-120b/Server/performance/x.json", "{}\n");
  write_file(tmp.path() / "lab/Server/performance/result_summary.json", "{}\n");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0].path, results / "Offline");
  ASSERT_TRUE(dirs[0].loadgen.has_value());
  EXPECT_FALSE(dirs[0].loadgen->no_loadgen_log);
  EXPECT_EQ(dirs[1].path, results / "Server");
  ASSERT_TRUE(dirs[1].loadgen.has_value());
  EXPECT_TRUE(dirs[1].loadgen->no_loadgen_log);
  EXPECT_EQ(dirs[1].loadgen->scenario, "Server");
  EXPECT_EQ(dirs[1].loadgen->run_dir, results / "Server/performance/run_1");
  EXPECT_EQ(dirs[1].submitter, "Org");
  EXPECT_EQ(dirs[1].system, "sys");
}

// An inference submitter's folder holds results/ and measurements/: its scenario folders are
// looked for in results/ only (the submission checker reads the other folders as what they
// are), and each one found at results/<system>/<model>/<scenario> carries what the walk
// listed of the submitter's tree, sizes included, by path below the submitter's folder: its
// results/ tree and, listed only to be kept, its other folders (no directory found there, no
// error said, no symbolic link followed). A training submitter (no measurements/), or a
// folder outside an inference division, is walked whole.
TEST(Discovery, AnInferenceSubmitterIsSearchedInResultsOnlyAndItsListingsKept) {
  TempDir tmp;
  const fs::path org = tmp.path() / "closed/Org";
  const fs::path scenario = org / "results/sys/llama2-70b-99/Offline";
  write_file(scenario / "performance/run_1/mlperf_log_detail.txt", "");
  write_file(scenario / "accuracy/accuracy.txt", "");
  write_file(scenario / "user.conf", "12345");
  write_file(org / "results/sys/.hidden", "x");
  write_file(org / "measurements/sys/llama2-70b-99/Offline/performance/run_1/mlperf_log_detail.txt", "");
  write_file(org / "code/harness/result_0.txt", "");
  write_file(org / "code/harness/deep/er/still/notes.md", "1234567");
  fs::create_directory_symlink("../harness", org / "code/harness/deep/loop");
  write_file(tmp.path() / "closed/Trainer/results/sys/bert/result_0.txt", "");
  write_file(tmp.path() / "closed/Trainer/benchmarks/bert/result_0.txt", "");
  // The same folders outside an inference division (closed, open, network): walked whole.
  write_file(tmp.path() / "lab/Org/results/sys/bert/result_0.txt", "");
  write_file(tmp.path() / "lab/Org/measurements/sys/bert/result_0.txt", "");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  EXPECT_TRUE(errors.empty());
  std::vector<fs::path> paths;
  for (const auto& d : dirs) paths.push_back(d.path);
  EXPECT_EQ(paths, (std::vector<fs::path>{scenario, tmp.path() / "closed/Trainer/benchmarks/bert",
                                          tmp.path() / "closed/Trainer/results/sys/bert",
                                          tmp.path() / "lab/Org/measurements/sys/bert",
                                          tmp.path() / "lab/Org/results/sys/bert"}));
  ASSERT_TRUE(dirs[0].loadgen.has_value());
  ASSERT_NE(dirs[0].submitter_listings, nullptr);
  EXPECT_EQ(dirs[1].submitter_listings, nullptr);
  EXPECT_EQ(dirs[2].submitter_listings, nullptr);
  const FolderListings& kept = *dirs[0].submitter_listings;
  // results/ and every folder below it, the scenario folder's own included (7); measurements/
  // and every folder below it (6); code/ and its folders (5: not the link, nor below it); not
  // the submitter's own folder (a submitter is known only once listed).
  EXPECT_EQ(kept.size(), 18u);
  ASSERT_NE(kept.find("/results/sys/llama2-70b-99/Offline/performance/run_1"), nullptr);
  EXPECT_EQ(kept.find("/results/sys/llama2-70b-99/Offline/accuracy")->at(0).name, "accuracy.txt");
  EXPECT_EQ(kept.find(""), nullptr);
  ASSERT_NE(kept.find("/measurements"), nullptr);
  ASSERT_NE(kept.find("/measurements/sys/llama2-70b-99/Offline/performance/run_1"), nullptr);
  EXPECT_EQ(kept.find("/measurements/sys/llama2-70b-99/Offline/performance/run_1")->at(0).name, "mlperf_log_detail.txt");
  const std::vector<FolderEntry>* deep = kept.find("/code/harness/deep");
  ASSERT_NE(deep, nullptr);
  ASSERT_EQ(deep->size(), 2u);  // er/ and the link, which is not walked
  EXPECT_EQ(kept.find("/code/harness/deep/loop"), nullptr);
  const std::vector<FolderEntry>* still = kept.find("/code/harness/deep/er/still");
  ASSERT_NE(still, nullptr);
  ASSERT_EQ(still->size(), 1u);
  EXPECT_EQ(still->at(0).size, 7);
  ASSERT_NE(kept.find("/results"), nullptr);
  ASSERT_NE(kept.find("/results/sys/llama2-70b-99"), nullptr);
  const std::vector<FolderEntry>* system = kept.find("/results/sys");
  ASSERT_NE(system, nullptr);
  ASSERT_EQ(system->size(), 2u);  // hidden entries too, as list_folder_with_sizes lists them
  const std::vector<FolderEntry>* listed = kept.find("/results/sys/llama2-70b-99/Offline");
  ASSERT_NE(listed, nullptr);
  std::vector<FolderEntry> fresh;
  std::error_code ec;
  ASSERT_TRUE(list_folder_with_sizes(scenario, fresh, ec));
  ASSERT_EQ(listed->size(), fresh.size());
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    EXPECT_EQ((*listed)[i].name, fresh[i].name);
    EXPECT_EQ((*listed)[i].type, fresh[i].type);
    EXPECT_EQ((*listed)[i].size, fresh[i].size);
  }
  auto conf = std::find_if(listed->begin(), listed->end(), [](const FolderEntry& e) { return e.name == "user.conf"; });
  ASSERT_NE(conf, listed->end());
  EXPECT_EQ(conf->size, 5);
}

// The submitter's folders listed for the tree walk are opened from their parent's descriptor,
// which takes a folder whose whole path the kernel refuses (PATH_MAX, ENAMETOOLONG). Such a
// folder is not listed: the tree walk meets that error there, as the checker's os.walk does.
// Everything above it is listed.
TEST(Discovery, AFolderWhosePathIsTooLongIsLeftToTheTreeWalk) {
  TempDir tmp;
  const fs::path org = tmp.path() / "closed/Org";
  write_file(org / "results/sys/llama2-70b-99/Offline/performance/run_1/mlperf_log_detail.txt", "");
  write_file(org / "measurements/sys/llama2-70b-99/Offline/notes.md", "");
  const fs::path top = org / "code/harness";
  fs::create_directories(top);
  // code/harness/xxx.../xxx.../..., made from descriptors, past PATH_MAX.
  const std::string name(200, 'x');
  std::vector<int> folders{::open(top.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  ASSERT_GE(folders.back(), 0);
  std::string path = top.string();
  while (path.size() < PATH_MAX + 2 * name.size()) {
    ASSERT_EQ(::mkdirat(folders.back(), name.c_str(), 0755), 0);
    folders.push_back(::openat(folders.back(), name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_GE(folders.back(), 0);
    path += "/" + name;
  }
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(dirs.size(), 1u);
  ASSERT_NE(dirs[0].submitter_listings, nullptr);
  const FolderListings& kept = *dirs[0].submitter_listings;
  std::string below = "/code/harness";
  std::size_t listed = 0, left = 0;
  for (std::size_t level = 0; level < folders.size(); ++level) {
    const bool fits = top.string().size() + below.size() - std::string("/code/harness").size() < PATH_MAX;
    if (fits) {
      EXPECT_NE(kept.find(below), nullptr) << level;
      ++listed;
    } else {
      EXPECT_EQ(kept.find(below), nullptr) << level;
      ++left;
    }
    below += "/" + name;
  }
  EXPECT_GT(listed, 10u);
  EXPECT_GE(left, 2u);
  // Removed from the deepest up, from descriptors (a path would be too long).
  for (std::size_t level = folders.size() - 1; level > 0; --level) {
    ::close(folders[level]);
    EXPECT_EQ(::unlinkat(folders[level - 1], name.c_str(), AT_REMOVEDIR), 0);
  }
  ::close(folders[0]);
}

TEST(Discovery, AFolderWithoutResultFilesIsNoBenchmarkDir) {
  TempDir tmp;
  write_file(tmp.path() / "logs/notes.txt", "");
  std::vector<DiscoveryError> errors;
  EXPECT_TRUE(find_benchmark_dirs(tmp.path(), errors).empty());
  EXPECT_TRUE(errors.empty());
}

TEST(Discovery, MissingPathAndFileAreErrors) {
  TempDir tmp;
  std::vector<DiscoveryError> errors;
  EXPECT_TRUE(find_benchmark_dirs(tmp.path() / "nope", errors).empty());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "no such file or directory");
  write_file(tmp.path() / "file.txt", "x");
  errors.clear();
  EXPECT_TRUE(find_benchmark_dirs(tmp.path() / "file.txt", errors).empty());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("not a directory"), std::string::npos);
}

TEST(Discovery, RulesetFromTheRoundFolderName) {
  TempDir tmp;
  write_file(tmp.path() / "training_v4.1/Org/results/sys/bert/result_0.txt", "");
  write_file(tmp.path() / "training_results_v5.0/Org/results/sys/bert/result_0.txt", "");
  write_file(tmp.path() / "training_v5.1x/Org/results/sys/bert/result_0.txt", "");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  ASSERT_EQ(dirs.size(), 3u);
  ASSERT_TRUE(dirs[0].path_ruleset.has_value());
  EXPECT_EQ(dirs[0].path_ruleset->str(), "5.0.0");  // training_results_v5.0 sorts first
  ASSERT_TRUE(dirs[1].path_ruleset.has_value());
  EXPECT_EQ(dirs[1].path_ruleset->str(), "4.1.0");
  EXPECT_FALSE(dirs[2].path_ruleset.has_value());  // not a round folder name
}

TEST(Discovery, SymlinkLoopIsNotFollowed) {
  TempDir tmp;
  write_file(tmp.path() / "a/bench/result_0.txt", "");
  std::filesystem::create_directory_symlink(tmp.path(), tmp.path() / "a/loop");
  std::vector<DiscoveryError> errors;
  auto dirs = find_benchmark_dirs(tmp.path(), errors);
  EXPECT_EQ(dirs.size(), 1u);
  // The warning names the link by one path: a folder given with a trailing '/' (or "/")
  // is joined to the link's name with no second one.
  errors.clear();
  dirs = find_benchmark_dirs(tmp.path() / "a/", errors);
  EXPECT_EQ(dirs.size(), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, (tmp.path() / "a/loop").string());
  EXPECT_TRUE(errors[0].warning);
}

// The walk a few directories at a time (issue #25): a tree wider than the folders listed at
// once (256) and deeper than one level comes out in sorted depth-first order, every
// directory once, each call handing out at least one, with the warning about a link in its
// place; what the walk gives equals a plain sorted recursive walk.
TEST(BenchmarkDirWalk, HandsOutTheTreeInSortedDepthFirstOrderAFewAtATime) {
  TempDir tmp;
  std::vector<std::string> expected;
  for (int org = 0; org < 3; ++org) {
    for (int sys = 0; sys < 300; ++sys) {
      std::string dir = "org" + std::to_string(org) + "/s" + std::to_string(1000 + sys) + "/bench";
      if (sys % 7 == 3) dir += "/deeper/still";
      write_file(tmp.path() / dir / "result_0.txt", "");
      expected.push_back((tmp.path() / dir).string());
    }
  }
  std::sort(expected.begin(), expected.end());  // no name is a prefix of a sibling's: string order is path order
  std::filesystem::create_directory_symlink(tmp.path() / "org1", tmp.path() / "org1-link");

  BenchmarkDirWalk walk(tmp.path());
  std::vector<BenchmarkDir> out;
  std::vector<DiscoveryError> errors;
  std::size_t calls = 0;
  for (std::size_t before = 0; walk.next(out, errors); before = out.size()) {
    ++calls;
    EXPECT_GT(out.size(), before);
  }
  EXPECT_GT(calls, 1u);  // not all at once
  ASSERT_EQ(out.size(), expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].path.string(), expected[i]) << i;
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].warning);
  EXPECT_EQ(errors[0].path, (tmp.path() / "org1-link").string());
  EXPECT_FALSE(walk.next(out, errors));  // over stays over

  std::vector<DiscoveryError> whole_errors;
  std::vector<BenchmarkDir> whole = find_benchmark_dirs(tmp.path(), whole_errors);
  ASSERT_EQ(whole.size(), out.size());
  for (std::size_t i = 0; i < whole.size(); ++i) EXPECT_EQ(whole[i].path, out[i].path);
}

}  // namespace
}  // namespace mlperf
