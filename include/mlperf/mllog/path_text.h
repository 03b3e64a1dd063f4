#pragma once
// Absolute, normal paths handled as text ("/a/b/c"), where building std::filesystem::path
// objects (a heap list of components each) would cost more than the work on a hot path.

#include <filesystem>
#include <string>
#include <string_view>

namespace mlperf {

/// A path as the look-ups of folder_listing.h take it: a std::filesystem::path or the
/// std::string of its native text, read as that text. Lets a hot caller join paths as text
/// (path_join) and build no std::filesystem::path (a heap list of components) for them. Holds
/// a reference: pass it on within the call only.
class PathRef {
 public:
  PathRef(const std::filesystem::path& path) : text_(path.native()) {}  // NOLINT: implicit by design
  PathRef(const std::string& text) : text_(text) {}                    // NOLINT: implicit by design
  /// The path's native text.
  const std::string& text() const { return text_; }
  /// The path as std::filesystem::path, for a query that needs one (a new object).
  std::filesystem::path path() const { return std::filesystem::path(text_); }

 private:
  const std::string& text_;
};

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

/// Whether `path` is `folder` or lies below it, compared as text ("a/b" and "a/b/c" are,
/// "a/bc" is not).
inline bool path_at_or_below(std::string_view path, std::string_view folder) {
  return path == folder || (path.size() > folder.size() && path.starts_with(folder) && path[folder.size()] == '/');
}

/// Whether std::filesystem::path's parent_path() and filename() of `text` are what cutting it
/// at its last '/' gives: no "//" and no trailing separator (other than the root "/" itself).
inline bool cut_as_text(const std::string& text) {
  return text.find("//") == std::string::npos && (text.size() <= 1 || text.back() != '/');
}

/// The text of `path` with parent_path() applied `levels` times: cut as text where
/// cut_as_text allows, else by parent_path() itself (each parent_path() of a long path splits
/// and allocates all its components).
inline std::string path_ancestor_text(const std::string& text, unsigned levels) {
  if (!cut_as_text(text)) {
    std::filesystem::path p = text;
    for (unsigned i = 0; i < levels; ++i) p = p.parent_path();
    return p.native();
  }
  std::string_view p = text;
  for (unsigned i = 0; i < levels; ++i) p = path_parent(p);
  return std::string(p);
}

/// path_ancestor_text as a std::filesystem::path.
inline std::filesystem::path path_ancestor(const std::filesystem::path& path, unsigned levels) {
  return std::filesystem::path(path_ancestor_text(path.native(), levels));
}

/// What std::filesystem::path(text).filename() gives, as text: cut after the last '/' where
/// cut_as_text allows, else by filename() itself.
inline std::string path_filename(const std::string& text) {
  if (cut_as_text(text)) return std::string(path_name(text));
  return std::filesystem::path(text).filename().native();
}

/// The name of the folder holding `path` once lexically normal ("closed" for closed/AMD and
/// closed/AMD/; "" when nothing named is above, as for "x" and "/x"): what
/// path.lexically_normal(), less a trailing separator, gives for parent_path().filename().
/// A path without "." or ".." components or repeated separators is normal already and is cut
/// as text; others are normalized first (which builds the path again, component by component).
inline std::string folder_name_above(PathRef path) {
  const std::string& text = path.text();
  const bool normal = !text.empty() && text.find("//") == std::string::npos &&
                      text.find("/./") == std::string::npos && text.find("/../") == std::string::npos &&
                      !text.starts_with("./") && !text.starts_with("../") && !text.ends_with("/.") &&
                      !text.ends_with("/..") && text != "." && text != "..";
  if (!normal) {
    std::filesystem::path p = path.path().lexically_normal();
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
