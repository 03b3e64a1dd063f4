// SubmissionChecks: the submission checks of a scenario folder, whose leading parts (the
// submitter's tree, the system description) are shared with the other folders they cover.

#include "mlperf/inference/result.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace mlperf::inference {
namespace {

ValidityCheck named(const std::string& name, bool passed = true) {
  ValidityCheck c;
  c.name = name;
  c.passed = passed;
  return c;
}

std::vector<std::string> names_by_iteration(const SubmissionChecks& list) {
  std::vector<std::string> out;
  for (const auto& c : list) out.push_back(c.name);
  return out;
}

std::vector<std::string> names_by_index(const SubmissionChecks& list) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < list.size(); ++k) out.push_back(list[k].name);
  return out;
}

TEST(SubmissionChecks, SharedPartsThenOwnChecksReadAsOneList) {
  SubmissionChecks list;
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.begin(), list.end());
  auto tree = std::make_shared<const std::vector<ValidityCheck>>(std::vector<ValidityCheck>{named("root_files"), named("pycache", false)});
  auto none = std::make_shared<const std::vector<ValidityCheck>>();
  auto system = std::make_shared<const std::vector<ValidityCheck>>(std::vector<ValidityCheck>{named("system_type")});
  list.append_shared(tree);
  list.append_shared(none);  // an empty part is no part
  list.append_shared(nullptr);
  list.append_shared(system);
  list.push_back(named("measurements"));
  list.push_back(named("required_scenarios", false));
  const std::vector<std::string> expected = {"root_files", "pycache", "system_type", "measurements", "required_scenarios"};
  EXPECT_EQ(list.size(), 5u);
  EXPECT_FALSE(list.empty());
  EXPECT_EQ(names_by_iteration(list), expected);
  EXPECT_EQ(names_by_index(list), expected);
  EXPECT_FALSE(list[1].passed);
  EXPECT_FALSE(list[4].passed);
  // The shared checks are the parts themselves, not copies.
  EXPECT_EQ(&list[0], &(*tree)[0]);
  EXPECT_EQ(&list[2], &(*system)[0]);
  EXPECT_THROW(list[5], std::out_of_range);
  // Shared parts come first.
  EXPECT_THROW(list.append_shared(system), std::logic_error);
}

TEST(SubmissionChecks, OnlySharedOrOnlyOwnOrAssigned) {
  SubmissionChecks shared_only;
  shared_only.append_shared(
      std::make_shared<const std::vector<ValidityCheck>>(std::vector<ValidityCheck>{named("a"), named("b")}));
  EXPECT_EQ(names_by_iteration(shared_only), (std::vector<std::string>{"a", "b"}));
  SubmissionChecks own_only;
  own_only.push_back(named("c"));
  EXPECT_EQ(names_by_iteration(own_only), (std::vector<std::string>{"c"}));
  shared_only = std::vector<ValidityCheck>{named("d")};  // the whole list, nothing shared
  EXPECT_EQ(names_by_iteration(shared_only), (std::vector<std::string>{"d"}));
  EXPECT_EQ(shared_only.size(), 1u);
}

}  // namespace
}  // namespace mlperf::inference
