#pragma once
// Absolute, normal paths handled as text ("/a/b/c"), where building std::filesystem::path
// objects (a heap list of components each) would cost more than the work on a hot path.

#include <string_view>

namespace mlperf {

/// The last component of a normal absolute path ("" for "/"), as
/// std::filesystem::path::filename() gives it.
inline std::string_view path_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// The path above a normal absolute path ("/" above "/x" and above "/"), as
/// std::filesystem::path::parent_path() gives it.
inline std::string_view path_parent(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

}  // namespace mlperf
