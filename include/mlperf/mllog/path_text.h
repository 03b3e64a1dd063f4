#pragma once
// Absolute, normal paths handled as text ("/a/b/c"), where building std::filesystem::path
// objects (a heap list of components each) would cost more than the work on a hot path.

#include <filesystem>
#include <string>
#include <string_view>

namespace mlperf {

/// The text after the last '/' of `path`, all of it when it has none: the last component of a
/// normal path ("" for "/"), as std::filesystem::path::filename() gives it. A view into `path`.
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

/// `folder`/`name` as std::filesystem::path's operator/ joins a folder and one plain name
/// (no separator added after a trailing one, none before a name in "").
inline std::string path_join(std::string_view folder, std::string_view name) {
  std::string out;
  out.reserve(folder.size() + 1 + name.size());
  out.append(folder);
  if (!folder.empty() && folder.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

/// `path` with parent_path() applied `levels` times. Where the text has no "//" and no
/// trailing separator (other than the root "/" itself), cut as text, one path made for the
/// result: each parent_path() of a long path splits and allocates all its components.
/// Otherwise by parent_path() itself.
inline std::filesystem::path path_ancestor(const std::filesystem::path& path, unsigned levels) {
  const std::string& text = path.native();
  const bool plain = text.find("//") == std::string::npos && (text.size() <= 1 || text.back() != '/');
  if (!plain) {
    std::filesystem::path p = path;
    for (unsigned i = 0; i < levels; ++i) p = p.parent_path();
    return p;
  }
  std::string_view p = text;
  for (unsigned i = 0; i < levels; ++i) p = path_parent(p);
  return std::filesystem::path(std::string(p));
}

/// The name of the folder holding `path` once lexically normal ("closed" for closed/AMD and
/// closed/AMD/; "" when nothing named is above, as for "x" and "/x"): what
/// path.lexically_normal(), less a trailing separator, gives for parent_path().filename().
/// A path without "." or ".." components or repeated separators is normal already and is cut
/// as text; others are normalized first (which builds the path again, component by component).
inline std::string folder_name_above(const std::filesystem::path& path) {
  const std::string& text = path.native();
  const bool normal = !text.empty() && text.find("//") == std::string::npos &&
                      text.find("/./") == std::string::npos && text.find("/../") == std::string::npos &&
                      !text.starts_with("./") && !text.starts_with("../") && !text.ends_with("/.") &&
                      !text.ends_with("/..") && text != "." && text != "..";
  if (!normal) {
    std::filesystem::path p = path.lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    return p.parent_path().filename().string();
  }
  std::string_view p = text;
  if (p.size() > 1 && p.back() == '/') p.remove_suffix(1);  // "closed/AMD/" is closed/AMD
  const std::size_t slash = p.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return {};  // "x", "/x", "/"
  return std::string(path_name(p.substr(0, slash)));
}

}  // namespace mlperf
