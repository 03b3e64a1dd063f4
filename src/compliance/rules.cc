// The official compliance configs: loading (libyaml, the parser PyYAML uses) and applying
// them to one log.

#include "mlperf/compliance/rules.h"
#include "mlperf/mllog/line_reader.h"

#include <new>
#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>
#include <yaml.h>

#include "mlperf/mllog/mllog.h"
#include "mlperf/mllog/thread_cache.h"

namespace mlperf::compliance {

namespace fs = std::filesystem;

void ConfigFile::build_index() {
  index_.clear();
  for (std::size_t i = 0; i < keys.size(); ++i) index_[keys[i].name] = static_cast<int>(i);  // the last wins
  in_force_.assign(keys.size(), 0);
  for (const auto& [name, i] : index_) in_force_[static_cast<std::size_t>(i)] = 1;
}

int ConfigFile::index_of(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? -1 : it->second;
}

const KeyRule* ConfigFile::find(std::string_view key) const {
  int i = index_of(key);
  return i < 0 ? nullptr : &keys[static_cast<std::size_t>(i)];
}

namespace {
// The fields of a KEY record that hold code, as bits of ConfigRun::ran, in the order
// mlp_compliance.py runs them.
enum KeyBlock : std::uint8_t { kPreBlock = 1, kCheckBlock = 2, kFirstCheckBlock = 4, kAtLeastOneBlock = 8, kPostBlock = 16 };
constexpr std::pair<KeyBlock, const char*> kKeyBlocks[] = {{kPreBlock, "PRE"},
                                                           {kCheckBlock, "CHECK"},
                                                           {kFirstCheckBlock, "FIRST_CHECK"},
                                                           {kAtLeastOneBlock, "ATLEAST_ONE_CHECK"},
                                                           {kPostBlock, "POST"}};

std::uint8_t key_blocks(const KeyRule& rule) {
  std::uint8_t b = 0;
  if (rule.pre) b |= kPreBlock;
  if (!rule.checks.empty()) b |= kCheckBlock;
  if (!rule.first_checks.empty()) b |= kFirstCheckBlock;
  if (rule.atleast_one_check) b |= kAtLeastOneBlock;
  if (rule.post) b |= kPostBlock;
  return b;
}

void append_key_blocks(std::vector<std::string>& out, const std::string& prefix, const KeyRule& rule, std::uint8_t bits) {
  for (const auto& [bit, name] : kKeyBlocks) {
    if (bits & bit) out.push_back(fmt::format("{}KEY {} {}", prefix, rule.name, name));
  }
}
}  // namespace

std::vector<std::string> ConfigFile::blocks() const {
  std::vector<std::string> out;
  if (begin || aggregates_eval_accuracy) out.push_back("BEGIN");
  for (const KeyRule& rule : keys) {
    if (find(rule.name) == &rule) append_key_blocks(out, "", rule, key_blocks(rule));
  }
  if (end_pre) out.push_back("END PRE");
  if (!end_checks.empty()) out.push_back("END CHECK");
  return out;
}

namespace {

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

Requirement parse_requirement(const std::string& text, const std::string& where) {
  Requirement r;
  if (text == "EXACTLY_ONE") r.kind = Requirement::kExactlyOne;
  else if (text == "AT_LEAST_ONE") r.kind = Requirement::kAtLeastOne;
  else if (text == "OPTIONAL") r.kind = Requirement::kOptional;
  else if (text.starts_with("AT_LEAST_ONE_OR(") && text.ends_with(")")) {
    r.kind = Requirement::kAtLeastOneOr;
    // The parts between commas, as getline splits them (no part after a last comma). Not
    // through a std::stringstream: getline takes a std::bad_alloc for the stream's end.
    std::string_view inside = std::string_view(text).substr(16, text.size() - 17);
    while (!inside.empty()) {
      const std::size_t comma = inside.find(',');
      r.alternatives.push_back(trim(inside.substr(0, comma)));
      inside.remove_prefix(comma == std::string_view::npos ? inside.size() : comma + 1);
    }
  } else if (text.starts_with("AT_LEAST(") && text.ends_with(")")) {
    r.kind = Requirement::kAtLeast;
    try {
      r.at_least = std::stoi(text.substr(9, text.size() - 10));
    } catch (const std::bad_alloc&) {
      throw;  // out of memory is never a finding: main.cc says so, exit 2
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("{}: bad REQ {}", where, text));
    }
  } else {
    throw std::runtime_error(fmt::format("{}: unknown REQ {}", where, text));
  }
  return r;
}

// A config file's YAML as libyaml loads it (yaml_parser_load, one document): nodes read in
// place. yaml-cpp took 24 M instructions to load a ruleset's 19 files, more than scoring a
// directory of logs; libyaml, the parser PyYAML (the official checker) uses, takes a tenth.
class YamlDocument {
 public:
  // Throws std::runtime_error naming `name` and the line where the text is not YAML.
  YamlDocument(std::string_view text, const std::string& name) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    const bool loaded = yaml_parser_load(&parser, &doc_) != 0;
    std::string problem;
    if (!loaded) {
      // libyaml says YAML_MEMORY_ERROR where its stacks cannot grow, and nothing at all
      // (YAML_NO_ERROR) where a tag's yaml_strdup fails: both are out of memory.
      if (parser.error == YAML_MEMORY_ERROR || parser.error == YAML_NO_ERROR) {
        yaml_parser_delete(&parser);
        throw std::bad_alloc();
      }
      problem = fmt::format("{}: not YAML: {}{} (line {}, column {})", name, parser.problem ? parser.problem : "error",
                            parser.context ? fmt::format(" {}", parser.context) : std::string(),
                            parser.problem_mark.line + 1, parser.problem_mark.column + 1);
    }
    yaml_parser_delete(&parser);
    if (!loaded) throw std::runtime_error(problem);
  }
  ~YamlDocument() { yaml_document_delete(&doc_); }
  YamlDocument(const YamlDocument&) = delete;
  YamlDocument& operator=(const YamlDocument&) = delete;

  // The root node, or nullptr for an empty document.
  const yaml_node_t* root() { return yaml_document_get_root_node(&doc_); }
  const yaml_node_t* node(int id) { return yaml_document_get_node(&doc_, id); }

  static bool is_scalar(const yaml_node_t* n) { return n && n->type == YAML_SCALAR_NODE; }
  static bool is_sequence(const yaml_node_t* n) { return n && n->type == YAML_SEQUENCE_NODE; }
  static bool is_mapping(const yaml_node_t* n) { return n && n->type == YAML_MAPPING_NODE; }
  static std::size_t line(const yaml_node_t* n) { return n ? n->start_mark.line + 1 : 0; }
  // A plain null (~, null, Null, NULL or nothing), as PyYAML resolves it.
  static bool is_null(const yaml_node_t* n) {
    if (!n) return true;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
    const std::string_view v = text_of(n);
    return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
  }
  static std::string_view text_of(const yaml_node_t* n) {
    return {reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length};
  }
  // A scalar's text. Throws std::runtime_error at `where` for anything else.
  static std::string text(const yaml_node_t* n, const std::string& where) {
    if (!is_scalar(n)) throw std::runtime_error(fmt::format("{} (line {}): not text", where, line(n)));
    return std::string(text_of(n));
  }
  // The items of a sequence, the key/value pairs of a mapping, in file order.
  std::vector<const yaml_node_t*> items(const yaml_node_t* n) {
    std::vector<const yaml_node_t*> out;
    for (const yaml_node_item_t* i = n->data.sequence.items.start; i < n->data.sequence.items.top; ++i) out.push_back(node(*i));
    return out;
  }
  std::vector<std::pair<const yaml_node_t*, const yaml_node_t*>> pairs(const yaml_node_t* n) {
    std::vector<std::pair<const yaml_node_t*, const yaml_node_t*>> out;
    if (!is_mapping(n)) return out;
    for (const yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
      out.emplace_back(node(p->key), node(p->value));
    }
    return out;
  }
  // The value of the member whose key is the text `key` (the first such), or nullptr.
  const yaml_node_t* member(const yaml_node_t* n, std::string_view key) {
    for (const auto& [k, v] : pairs(n)) {
      if (is_scalar(k) && text_of(k) == key) return v;
    }
    return nullptr;
  }

 private:
  yaml_document_t doc_{};
};

// CHECK-like fields hold one expression or a list of them.
std::vector<Expr> expressions(YamlDocument& doc, const yaml_node_t* node, const std::string& where) {
  std::vector<Expr> out;
  auto add = [&](const yaml_node_t* n) {
    try {
      out.push_back(Expr::parse(YamlDocument::text(n, where)));
    } catch (const PySyntaxError& e) {
      throw std::runtime_error(fmt::format("{} (line {}): {}", where, YamlDocument::line(n), e.what()));
    }
  };
  if (YamlDocument::is_sequence(node)) {
    for (const yaml_node_t* n : doc.items(node)) add(n);
  } else {
    add(node);
  }
  return out;
}

Code code(const yaml_node_t* node, const std::string& where) {
  try {
    return Code::parse(YamlDocument::text(node, where));
  } catch (const PySyntaxError& e) {
    throw std::runtime_error(fmt::format("{} (line {}): {}", where, YamlDocument::line(node), e.what()));
  }
}

}  // namespace

namespace {

bool mentions_enqueue(const std::string& text) { return text.find("enqueue_config") != std::string::npos; }

// ConfigFile::enqueue_rules and enqueue_at_end, from the code's text.
void find_enqueue_rules(ConfigFile& config) {
  config.enqueue_rules.clear();
  for (std::size_t i = 0; i < config.keys.size(); ++i) {
    const KeyRule& rule = config.keys[i];
    bool code = (rule.pre && mentions_enqueue(rule.pre->text())) || (rule.post && mentions_enqueue(rule.post->text()));
    for (const Expr& e : rule.checks) code |= mentions_enqueue(e.text());
    for (const Expr& e : rule.first_checks) code |= mentions_enqueue(e.text());
    if (rule.atleast_one_check) code |= mentions_enqueue(rule.atleast_one_check->text());
    if (code) config.enqueue_rules.push_back(i);
  }
  config.enqueue_at_end = config.end_pre && mentions_enqueue(config.end_pre->text());
  for (const Expr& e : config.end_checks) config.enqueue_at_end |= mentions_enqueue(e.text());
}

}  // namespace

ConfigFile parse_config(std::string_view yaml_text, const std::string& name) {
  ConfigFile config;
  config.name = name;
  std::string base = fs::path(name).filename().string();
  config.division = base.starts_with("closed_") ? "closed" : base.starts_with("open_") ? "open" : "";
  YamlDocument doc(yaml_text, name);
  const yaml_node_t* root = doc.root();
  if (YamlDocument::is_null(root)) return config;
  if (!YamlDocument::is_sequence(root)) throw std::runtime_error(fmt::format("{}: not a list of records", name));
  for (const yaml_node_t* record : doc.items(root)) {
    const auto members = doc.pairs(record);
    if (!YamlDocument::is_mapping(record) || members.size() != 1) {
      throw std::runtime_error(
          fmt::format("{} (line {}): a record must be one of KEY, BEGIN, END", name, YamlDocument::line(record)));
    }
    std::string kind = YamlDocument::text(members.front().first, name);
    const yaml_node_t* body = members.front().second;
    std::string where = fmt::format("{} {}", name, kind);
    if (kind == "BEGIN") {
      const yaml_node_t* code_node = doc.member(body, "CODE");
      std::string text = code_node ? YamlDocument::text(code_node, where) : "";
      if (text.find("loglines") != std::string::npos) {
        if (text.find("aggregated_eval_accuracy") == std::string::npos) {
          throw std::runtime_error(fmt::format("{}: BEGIN code that rewrites loglines is not supported", name));
        }
        config.aggregates_eval_accuracy = true;
        static const std::regex field(R"(line\.value\['metadata'\]\['(\w+)'\])");
        for (std::sregex_iterator it(text.begin(), text.end(), field), end; it != end; ++it) {
          if ((*it)[1] != "metric") {
            config.aggregation_field = (*it)[1];
            break;
          }
        }
      } else {
        if (!code_node) throw std::runtime_error(fmt::format("{} (line {}): BEGIN without CODE", name, YamlDocument::line(body)));
        config.begin = code(code_node, where);
      }
    } else if (kind == "KEY") {
      KeyRule rule;
      const yaml_node_t* name_node = doc.member(body, "NAME");
      if (!name_node) throw std::runtime_error(fmt::format("{} (line {}): KEY without NAME", name, YamlDocument::line(body)));
      rule.name = trim(YamlDocument::text(name_node, where));
      rule.first_line_only = rule.name.find("submission_") != std::string::npos;
      where = fmt::format("{} KEY {}", name, rule.name);
      for (const auto& [field_key, value] : doc.pairs(body)) {
        std::string f = YamlDocument::text(field_key, where);
        if (f == "NAME") continue;
        if (f == "REQ") rule.req = parse_requirement(trim(YamlDocument::text(value, where)), where);
        else if (f == "CHECK") rule.checks = expressions(doc, value, where + " CHECK");
        else if (f == "FIRST_CHECK") rule.first_checks = expressions(doc, value, where + " FIRST_CHECK");
        else if (f == "ATLEAST_ONE_CHECK") {
          auto e = expressions(doc, value, where + " ATLEAST_ONE_CHECK");
          if (e.size() != 1) throw std::runtime_error(where + ": ATLEAST_ONE_CHECK must be one expression");
          rule.atleast_one_check = e[0];
        } else if (f == "PRE") rule.pre = code(value, where + " PRE");
        else if (f == "POST") rule.post = code(value, where + " POST");
        else throw std::runtime_error(fmt::format("{}: unknown field {}", where, f));
      }
      config.keys.push_back(std::move(rule));
      config.build_index();
    } else if (kind == "END") {
      for (const auto& [field_key, value] : doc.pairs(body)) {
        std::string f = YamlDocument::text(field_key, where);
        if (f == "PRE") config.end_pre = code(value, where + " PRE");
        else if (f == "CHECK") config.end_checks = expressions(doc, value, where + " CHECK");
        else throw std::runtime_error(fmt::format("{}: unknown field {}", where, f));
      }
    } else {
      throw std::runtime_error(
          fmt::format("{} (line {}): unsupported record {}", name, YamlDocument::line(record), kind));
    }
  }
  find_enqueue_rules(config);
  if (config.begin) {
    // BEGIN runs before any line, on a new `s`: the same for every log, unless it raises or
    // touches what a log has (enqueue_config, v).
    Env env;
    env.s = make_dict();
    bool enqueued = false;
    env.enqueue_config = [&](const std::string&) { enqueued = true; };
    try {
      config.begin->exec(env);
      if (!enqueued && env.v.is_none() && !env.pending) config.begin_state = std::move(env.s);
    } catch (const PyError&) {
    }
  }
  return config;
}

namespace {

// True for the folder names of the official rulesets: training_X.Y.Z and hpc_X.Y.Z.
bool is_ruleset_folder(std::string_view name) { return name.starts_with("training_") || name.starts_with("hpc_"); }

// The .yaml files of the training_* and hpc_* folders below `root` (all when `wanted` is
// null), sorted.
std::vector<fs::path> config_files(const fs::path& root, const std::set<std::string>* wanted) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw std::runtime_error(fmt::format("{}: no compliance rules folder", root.string()));
  std::vector<fs::path> files;
  try {
    for (const auto& folder : fs::directory_iterator(root)) {
      std::string name = folder.path().filename().string();
      if (!folder.is_directory() || !is_ruleset_folder(name)) continue;
      if (wanted && !wanted->count(name)) continue;
      for (const auto& f : fs::directory_iterator(folder.path())) {
        if (f.path().extension() == ".yaml") files.push_back(f.path());
      }
    }
  } catch (const fs::filesystem_error& e) {
    throw_if_out_of_memory(e.code().value());  // opendir's malloc: not a broken rules folder
    throw;
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

RuleLibrary RuleLibrary::load(const fs::path& root) { return load_files(config_files(root, nullptr)); }

RuleLibrary RuleLibrary::load(const fs::path& root, const std::set<Ruleset>& rulesets) {
  std::set<std::string> wanted;
  for (const auto& r : rulesets) wanted.insert(r.folder());
  // Folders named in the wanted folders' files (4.0.0 closed_resnet enqueues training_3.1.0/…).
  std::set<std::string> named;
  for (const auto& path : config_files(root, &wanted)) {
    const std::string body = read_whole_file(path).value_or(std::string());
    for (std::string_view prefix : {"training_", "hpc_"}) {
      for (auto at = body.find(prefix); at != std::string::npos; at = body.find(prefix, at + 1)) {
        auto end = body.find('/', at);
        if (end != std::string::npos && end - at < 24) named.insert(body.substr(at, end - at));
      }
    }
  }
  wanted.insert(named.begin(), named.end());
  return load_files(config_files(root, &wanted));
}

RuleLibrary RuleLibrary::load_files(const std::vector<fs::path>& files) {
  RuleLibrary lib;
  for (const auto& path : files) {
    // read_whole_file, not `<< rdbuf()`: a stream would swallow a std::bad_alloc and give the
    // file's first part as all of it.
    bool read_failed = false;
    const std::optional<std::string> text = read_whole_file(path, &read_failed);
    if (!text || read_failed) throw std::runtime_error(fmt::format("{}: cannot read", path.string()));
    std::string folder = path.parent_path().filename().string();
    std::string name = folder + "/" + path.filename().string();
    ConfigFile config = parse_config(*text, name);
    auto& keys = lib.keys_by_folder_[folder];
    auto id_of = [&](const std::string& key) {
      return lib.key_ids_.try_emplace(key, static_cast<int>(lib.key_ids_.size())).first->second;
    };
    for (const auto& k : config.keys) keys.insert(k.name, id_of(k.name));
    if (config.aggregates_eval_accuracy) keys.insert("eval_accuracy", id_of("eval_accuracy"));
    lib.configs_.emplace(name, std::move(config));
  }
  // Each config's rules by key id: a line's key is looked up once, not once per config.
  for (auto& [name, config] : lib.configs_) {
    config.index_by_id_.assign(lib.key_ids_.size(), -1);
    for (const auto& [key, id] : lib.key_ids_) config.index_by_id_[static_cast<std::size_t>(id)] = config.index_of(key);
  }
  // A folder's configs may enqueue another folder's (4.0.0 closed_resnet → 3.1.0): its keys count too.
  for (auto& [folder, keys] : lib.keys_by_folder_) {
    for (const auto& [name, config] : lib.configs_) {
      if (!name.starts_with(folder + "/")) continue;
      for (const auto& k : config.keys) {
        if (!k.post) continue;
        for (const auto& [other, other_keys] : lib.keys_by_folder_) {
          if (other != folder && k.post->text().find(other + "/") != std::string::npos) {
            keys.insert(other_keys);
          }
        }
      }
    }
  }
  return lib;
}

const ConfigFile* RuleLibrary::config(std::string_view name) const {
  auto it = configs_.find(name);
  return it == configs_.end() ? nullptr : &it->second;
}

bool RuleLibrary::has_ruleset(const Ruleset& ruleset) const {
  return config(ruleset.folder() + "/common.yaml") != nullptr;
}

void RuleKeys::insert(const std::string& key, int id) {
  if (key.empty()) return;
  keys_.emplace(key, id);
  maybe_[slot(key)] = true;
  static std::atomic<std::uint64_t> generations{0};
  generation_ = generations.fetch_add(1, std::memory_order_relaxed) + 1;
}

void RuleKeys::insert(const RuleKeys& other) {
  for (const auto& [key, id] : other.keys_) insert(key, id);
}

const RuleKeys& RuleLibrary::keys_with_rules(const Ruleset& ruleset) const {
  auto it = keys_by_folder_.find(ruleset.folder());
  return it == keys_by_folder_.end() ? no_keys_ : it->second;
}

std::vector<std::string> RuleLibrary::folders() const {
  std::vector<std::string> out;
  for (const auto& [folder, keys] : keys_by_folder_) out.push_back(folder);
  return out;
}

// ---------------------------------------------------------------------------------------
// Applying the configs

namespace {

// Back to source form, for messages (operands as written, not evaluated).
std::string node_text(const Node& n) {
  switch (n.kind) {
    case Node::kConst: return repr(n.constant);
    case Node::kName: return n.name;
    case Node::kList: {
      std::string out = "[";
      for (std::size_t i = 0; i < n.kids.size(); ++i) out += (i ? ", " : "") + node_text(*n.kids[i]);
      return out + "]";
    }
    case Node::kDict: {
      std::string out = "{";
      for (std::size_t i = 0; i + 1 < n.kids.size(); i += 2) {
        out += (i ? ", " : "") + node_text(*n.kids[i]) + ": " + node_text(*n.kids[i + 1]);
      }
      return out + "}";
    }
    case Node::kSubscript: return node_text(*n.kids[0]) + "[" + node_text(*n.kids[1]) + "]";
    case Node::kAttribute: return node_text(*n.kids[0]) + "." + n.name;
    case Node::kCall: {
      std::string out = node_text(*n.kids[0]) + "(";
      for (std::size_t i = 1; i < n.kids.size(); ++i) out += (i > 1 ? ", " : "") + node_text(*n.kids[i]);
      return out + ")";
    }
    case Node::kUnary: return n.name == "not" ? "not " + node_text(*n.kids[0]) : n.name + node_text(*n.kids[0]);
    case Node::kBinary: return node_text(*n.kids[0]) + " " + n.name + " " + node_text(*n.kids[1]);
    case Node::kCompare: {
      std::string out = node_text(*n.kids[0]);
      for (std::size_t i = 0; i < n.ops.size(); ++i) out += " " + n.ops[i] + " " + node_text(*n.kids[i + 1]);
      return out;
    }
    case Node::kAnd:
    case Node::kOr: {
      std::string out;
      for (std::size_t i = 0; i < n.kids.size(); ++i) {
        out += (i ? (n.kind == Node::kAnd ? " and " : " or ") : "") + std::string("(") + node_text(*n.kids[i]) + ")";
      }
      return out;
    }
    case Node::kIfElse:
      return node_text(*n.kids[1]) + " if " + node_text(*n.kids[0]) + " else " + node_text(*n.kids[2]);
  }
  return {};
}

bool is_value_of_line(const Node& n) {
  return n.kind == Node::kSubscript && n.kids[0]->kind == Node::kName && n.kids[0]->name == "v" &&
         n.kids[1]->kind == Node::kConst && n.kids[1]->constant.str() && *n.kids[1]->constant.str() == "value";
}

std::string shorten(std::string text) {
  if (text.size() > 300) text = text.substr(0, 297) + "...";
  return text;
}

std::string division_words(const ConfigFile& config) {
  return config.division.empty() ? "" : fmt::format(" in the {} division", config.division);
}

// "opt_name must be 'adamw' in the closed division (training_5.1.0/closed_llama31_8b.yaml);
// found 'sgd'" for the common shapes; "KEY must satisfy `expr`…" for the others.
std::string describe_failed_check(const std::string& key, const Expr& check, Env& env, const ConfigFile& config) {
  const Node& root = check.root();
  std::string where = fmt::format("{} ({})", division_words(config), config.name);
  env.line_v();  // the message shows what the line holds: convert it
  PyValue value;
  bool has_value = false;
  if (const PyDict* d = env.v.dict()) {
    auto it = d->find("value");
    if (it != d->end()) value = it->second, has_value = true;
  }
  if (root.kind == Node::kCompare && root.ops.size() == 1 && is_value_of_line(*root.kids[0]) && has_value) {
    const Node& rhs = *root.kids[1];
    std::string expected = node_text(rhs);
    if (rhs.kind != Node::kConst && rhs.kind != Node::kList) {
      try {
        expected += " = " + repr(eval_node(rhs, env));
      } catch (const PyError&) {
      }
    }
    const std::string& op = root.ops[0];
    std::string phrase = op == "==" ? "be " + expected
                         : op == "!=" ? "not be " + expected
                         : op == "in" ? "be one of " + expected
                         : op == "not in" ? "not be one of " + expected
                                          : "be " + op + " " + expected;
    return fmt::format("{} must {}{}; found {}", key, phrase, where, shorten(repr(value)));
  }
  // Otherwise: the values of what the expression reads (s[...], ll.*, v[...]), as Python has them.
  std::vector<std::string> seen;
  std::vector<std::string> parts;
  std::function<void(const Node&)> collect = [&](const Node& n) {
    bool reads_state = (n.kind == Node::kSubscript || n.kind == Node::kAttribute);
    const Node* base = &n;
    while (base->kind == Node::kSubscript || base->kind == Node::kAttribute) base = base->kids[0].get();
    if (reads_state && base->kind == Node::kName && (base->name == "s" || base->name == "v" || base->name == "ll")) {
      std::string text = node_text(n);
      if (std::find(seen.begin(), seen.end(), text) != seen.end()) return;
      seen.push_back(text);
      try {
        parts.push_back(text + " = " + shorten(repr(eval_node(n, env))));
      } catch (const PyError& e) {
        parts.push_back(text + " raises " + e.type);
      }
      return;
    }
    for (const auto& k : n.kids) collect(*k);
  };
  collect(root);
  return fmt::format("{} must satisfy `{}`{}; found {}", key, check.text(), where,
                     parts.empty() ? std::string("the check false") : fmt::format("{}", fmt::join(parts, ", ")));
}

// The configs applied to one log as it streams (mlp_compliance.py configured_checks).
//
// The official checker applies its queue of configs one after the other, each over every
// line. Here every config that has been enqueued reads each line as it arrives ("runs" in
// lockstep), so no line needs to be kept: a config's verdict depends only on its own state
// `s` and the lines, in order. What the official order decides is restored at the end:
// - a config enqueued at line k first reads lines 1..k again from a replay buffer, kept only
//   while some running config can still enqueue another (its enqueue_config code sits in a
//   rule of a submission_* key not yet seen, or of any other key, or in its END record);
// - the configs are merged in the official queue order (breadth first from common.yaml),
//   each withdrawing the findings of earlier ones about keys it rules on, and a config that
//   stops the checker ends the merge there;
// - the aggregated_eval_accuracy lines of a 3.1–5.0 stable_diffusion config are built
//   while the lines stream and read by it and every later config at the end of the log.
// Memory: per run its state and per-key counts (the first value of EXACTLY_ONE keys and
// the distinct values a message can show), never the lines.

struct Message {
  RuleFinding finding;
  std::string key;  // withdrawn by a later config with a rule for this key; "" never
};

// The aggregated_eval_accuracy lines of the 3.1–5.0 stable_diffusion BEGIN code (see
// ConfigFile::aggregates_eval_accuracy), built line by line: one per value of `field`
// (ConfigFile::aggregation_field), in order of first appearance, stamped with the latest
// timestamp of its eval_accuracy lines. The first problem the official code raises on is
// kept in `error`.
struct EvalAggregator {
  std::string field = "samples_count";
  std::vector<LogLine> added;
  std::optional<PyError> error;

  void add(const LogLine& l) {
    if (error || l.key != "eval_accuracy") return;
    try {
      const PyValue& line_v = l.value_dict();
      const PyDict& v = *line_v.dict();
      const PyValue& metadata = v.at("metadata");
      static const Expr has_metric = Expr::parse("'metric' in v['metadata']");
      Env env;
      env.v = line_v;
      if (!truthy(has_metric.eval(env))) return;
      if (!metadata.dict()) throw PyError("TypeError", "metadata is not a dict");
      auto sc = metadata.dict()->find(field);
      if (sc == metadata.dict()->end()) throw PyError("KeyError", "'" + field + "'");
      const PyValue& step = sc->second;
      if (step.list() || step.dict()) throw PyError("TypeError", "unhashable " + field);
      LogLine* group = nullptr;
      for (auto& a : added) {
        if (py_equal(a.v.dict()->at("value").dict()->at(field), step)) group = &a;
      }
      if (!group) {
        LogLine agg;
        agg.line = l.line;
        agg.timestamp = l.timestamp;
        agg.key = "aggregated_eval_accuracy";
        PyValue value = make_dict();
        (*value.dict())[field] = step;
        agg.v = make_dict();
        (*agg.v.dict())["value"] = value;
        (*agg.v.dict())["metadata"] = make_dict();
        added.push_back(std::move(agg));
        group = &added.back();
      }
      group->timestamp = std::max(l.timestamp, group->timestamp);
      const PyValue& metric = metadata.dict()->at("metric");
      if (metric.list() || metric.dict()) throw PyError("TypeError", "unhashable metric");
      (*group->v.dict()->at("value").dict())[metric.str() ? *metric.str() : repr(metric)] = v.at("value");
    } catch (const PyError& e) {
      error = e;
    }
  }
};

std::string rule_name(const ConfigFile& config, const std::string& key) { return config.name + ": " + key; }


// What one config has seen of one key.
struct Seen {
  std::size_t count = 0;
  std::uint64_t second_line = 0;  // line of the second occurrence (EXACTLY_ONE messages)
  std::uint64_t last_line = 0;
  bool executed = false;          // submission_*: PRE/CHECK/POST ran once
  bool first_checked = false;
  std::size_t atleast_passed = 0;
  // EXACTLY_ONE keys: the first value, whether all were equal, and the distinct reprs a
  // message shows (collected until their joined text passes what shorten() keeps). A first
  // value read from the line's text is kept as that text and converted only if a second
  // line comes (most keys are logged once).
  std::optional<PyValue> first_value;
  std::string first_text;
  bool first_is_text = false;
  bool all_same = true;
  std::vector<std::string> distinct;
  std::size_t distinct_chars = 0;
  // Scanner shapes (EventView::shape) on which every shape-determined CHECK held.
  // Kept in place (a key's lines come in one or two shapes; a log has thousands of Seen).
  static constexpr std::size_t kShapesHeld = 8;
  std::array<std::uint64_t, kShapesHeld> shapes_held{};
  std::uint8_t shapes_held_count = 0;
  bool held(std::uint64_t shape) const {
    return std::find(shapes_held.begin(), shapes_held.begin() + shapes_held_count, shape) !=
           shapes_held.begin() + shapes_held_count;
  }
};

// Adds repr(value) to the distinct values an EXACTLY_ONE message shows, while they fit.
void note_distinct(Seen& st, const PyValue& value) {
  if (st.distinct_chars > 300) return;
  std::string r = repr(value);
  if (std::find(st.distinct.begin(), st.distinct.end(), r) == st.distinct.end()) {
    st.distinct_chars += r.size() + 2;
    st.distinct.push_back(std::move(r));
  }
}

// One config applied to the log (an entry of the official queue).
struct ConfigRun {
  std::string name;
  const ConfigFile* config = nullptr;  // nullptr: the config does not exist
  Env env;
  std::vector<Seen> seen;  // by rule position
  std::vector<Message> messages;
  std::vector<std::size_t> children;  // runs it enqueued, in order
  bool stopped = false;               // the official checker stops in this config
  // Which blocks were evaluated (LogVerdict::blocks_run): KeyBlock bits by rule position.
  std::vector<std::uint8_t> ran;
  bool begin_ran = false, end_pre_ran = false, end_check_ran = false;
  std::string last_key;  // ll.key of the last line read, for the END record (Env::key views it)

  // "<config>: <block>" for every block evaluated, as ConfigFile::blocks() names them.
  void append_blocks_run(std::vector<std::string>& out) const {
    if (!config) return;
    const std::string prefix = config->name + ": ";
    if (begin_ran) out.push_back(prefix + "BEGIN");
    for (std::size_t i = 0; i < config->keys.size(); ++i) append_key_blocks(out, prefix, config->keys[i], ran[i]);
    if (end_pre_ran) out.push_back(prefix + "END PRE");
    if (end_check_ran) out.push_back(prefix + "END CHECK");
  }

  void put(bool error, std::uint64_t line, const std::string& rule, std::string message, std::string key) {
    messages.push_back({{error, line, rule, std::move(message)}, std::move(key)});
  }
  void stop(std::uint64_t line, const std::string& rule, const std::string& message) {
    put(true, line, rule, message + "; the official checker stops here and rejects the log", "");
    stopped = true;
  }

  // Each check on the line; a failure is a finding. With `seen`, the shape-determined checks
  // (Expr::shape_determined) are evaluated once per scanner shape: they give the same on
  // every line of a shape whose v is still its text (no code can have changed it), so once
  // they all held on one they are skipped on the others.
  void run_checks(const KeyRule& rule, const std::vector<Expr>& checks, const LogLine& line, Seen* seen = nullptr) {
    auto unchanged = [&] { return line.pending && line.pending->v.is_none(); };
    const bool memo = seen && line.shape != 0 && unchanged();
    const bool known = memo && seen->held(line.shape);
    bool all_held = true;
    for (const Expr& check : checks) {
      if (known && check.shape_determined() && unchanged()) continue;
      bool held = false;
      try {
        held = truthy(check.eval(env));
        if (!held) {
          put(true, line.line, rule_name(*config, rule.name), describe_failed_check(rule.name, check, env, *config),
              rule.name);
        }
      } catch (const PyError& e) {
        put(true, line.line, rule_name(*config, rule.name),
            fmt::format("{}: the check `{}` cannot be evaluated ({}){} ({})", rule.name, check.text(), e.what(),
                        division_words(*config), config->name),
            rule.name);
      }
      if (!held && check.shape_determined()) all_held = false;
    }
    if (memo && !known && all_held && unchanged() && seen->shapes_held_count < Seen::kShapesHeld) {
      seen->shapes_held[seen->shapes_held_count++] = line.shape;
    }
  }

  void run_code(const Code& code, const char* what, const KeyRule& rule, const LogLine& line) {
    try {
      code.exec(env);
    } catch (const PyError& e) {
      put(true, line.line, rule_name(*config, rule.name),
          fmt::format("{}: the {} code `{}` fails ({}) ({})", rule.name, what, shorten(code.text()), e.what(),
                      config->name),
          rule.name);
    }
  }

  // True while this run can still enqueue a config from a line: a rule with enqueue code
  // for a key other than submission_* (run on every line), or for a submission_* key whose
  // first line has not come yet.
  bool may_enqueue() const {
    if (!config || stopped) return false;
    for (std::size_t i : config->enqueue_rules) {
      if (!config->keys[i].first_line_only || !seen[i].executed) return true;
    }
    return false;
  }

  void read(const LogLine& line) {
    if (!config || stopped) return;
    int at = line.key_id >= 0 ? config->index_of(line.key_id) : config->index_of(line.key);
    if (at < 0) return;
    const KeyRule* rule = &config->keys[static_cast<std::size_t>(at)];
    Seen& st = seen[static_cast<std::size_t>(at)];
    ++st.count;
    if (st.count == 2) st.second_line = line.line;
    st.last_line = line.line;
    if (rule->req.kind == Requirement::kExactlyOne) {
      // The value alone (v stays unconverted when nothing else needs it).
      const bool text_only = line.pending && line.pending->v.is_none();
      if (st.count == 1 && text_only) {
        st.first_text.assign(line.pending->value);
        st.first_is_text = true;
      } else {
        if (st.first_is_text) {  // the second line: the first one's value now
          st.first_is_text = false;
          st.first_value = from_json_text(st.first_text);
          note_distinct(st, *st.first_value);
        }
        PyValue value_slot;
        if (text_only) value_slot = from_json_text(line.pending->value);
        const PyValue& value = text_only ? value_slot : line.value_dict().dict()->at("value");
        if (!st.first_value) {
          st.first_value = value;
        } else if (st.all_same && !py_equal(value, *st.first_value)) {
          st.all_same = false;
        }
        note_distinct(st, value);
      }
    }
    // v and ll.key while this line is read: its texts (v until an expression needs it
    // converted). After the line only the END record reads them (the last line's), so only a
    // config with one keeps v converted and its own copy of the key.
    struct LineScope {
      Env& env;
      std::string& last_key;
      bool keep;
      ~LineScope() {
        if (keep) {
          env.line_v();
          last_key.assign(env.key);
          env.key = last_key;
        } else {
          env.key = {};
        }
        env.pending = nullptr;
      }
    } scope{env, last_key, config->end_pre.has_value() || !config->end_checks.empty()};
    if (line.pending) {
      env.pending = line.pending;
    } else {
      env.v = line.v;
      env.pending = nullptr;
    }
    env.timestamp = line.timestamp;
    env.key = line.key;
    env.lineno = static_cast<std::int64_t>(line.line);
    std::uint8_t now = kAtLeastOneBlock;
    if (!st.executed) now |= kPreBlock | kCheckBlock | kPostBlock;
    if (!st.first_checked) now |= kFirstCheckBlock;
    ran[static_cast<std::size_t>(at)] |= static_cast<std::uint8_t>(key_blocks(*rule) & now);
    if (!st.executed) {
      if (rule->pre) run_code(*rule->pre, "PRE", *rule, line);
      run_checks(*rule, rule->checks, line, &st);
      if (rule->post) run_code(*rule->post, "POST", *rule, line);
    }
    if (!rule->first_checks.empty() && !st.first_checked) {
      st.first_checked = true;
      run_checks(*rule, rule->first_checks, line);
    }
    if (rule->atleast_one_check) {
      try {
        if (truthy(rule->atleast_one_check->eval(env))) ++st.atleast_passed;
      } catch (const PyError& e) {
        stop(line.line, rule_name(*config, rule->name),
             fmt::format("{}: the check `{}` cannot be evaluated ({}) ({})", rule->name,
                         rule->atleast_one_check->text(), e.what(), config->name));
        return;
      }
    }
    if (rule->first_line_only) st.executed = true;
  }

  // The occurrence requirements and the END record, after the last line.
  void finish() {
    if (!config || stopped) return;
    const ConfigFile& cfg = *config;
    for (std::size_t i = 0; i < cfg.keys.size(); ++i) {
      const KeyRule& rule = cfg.keys[i];
      if (!cfg.in_force(i) || !rule.atleast_one_check) continue;
      const Seen& st = seen[i];
      if (st.count > 0 && st.atleast_passed == 0) {
        put(true, st.last_line, rule_name(cfg, rule.name),
            fmt::format("some {} must satisfy `{}`{} ({}); none of the {} did", rule.name, rule.atleast_one_check->text(),
                        division_words(cfg), cfg.name, st.count),
            "");
      }
    }
    auto count_of = [&](std::string_view key) -> std::size_t {
      int i = cfg.index_of(key);
      return i < 0 ? 0 : seen[static_cast<std::size_t>(i)].count;
    };
    std::vector<std::vector<std::string_view>> alternatives;  // the groups judged so far
    for (std::size_t i = 0; i < cfg.keys.size(); ++i) {
      const KeyRule& rule = cfg.keys[i];
      if (!cfg.in_force(i)) continue;  // replaced by a later record
      const Seen& st = seen[i];
      std::size_t count = st.count;
      if ((count == 1 && rule.req.kind == Requirement::kExactlyOne) || rule.req.kind == Requirement::kNone || rule.req.kind == Requirement::kOptional ||
          (count > 0 && (rule.req.kind == Requirement::kAtLeastOne || rule.req.kind == Requirement::kAtLeastOneOr))) {
        continue;  // nothing to say (the words below are made only for a finding)
      }
      // The words of a finding, made where one is put (a group of alternatives met by
      // another key puts none).
      const auto where = [&] { return fmt::format("{} ({})", division_words(cfg), cfg.name); };
      const auto rname = [&] { return rule_name(cfg, rule.name); };
      switch (rule.req.kind) {
        case Requirement::kExactlyOne: {
          if (count == 1) break;
          if (count == 0) {
            put(true, 0, rname(), fmt::format("{} must be logged exactly once{}; found none", rule.name, where()), rule.name);
            break;
          }
          if (st.all_same) {
            put(false, st.second_line, rname(),
                fmt::format("{} must be logged exactly once{}; found {} times with the same value {} (a warning)",
                            rule.name, where(), count, shorten(repr(*st.first_value))),
                "");
          } else {
            put(true, st.second_line, rname(),
                fmt::format("{} must be logged exactly once{}; found {} times with different values: {}", rule.name,
                            where(), count, shorten(fmt::format("{}", fmt::join(st.distinct, ", ")))),
                rule.name);
          }
          break;
        }
        case Requirement::kAtLeastOne:
          if (count == 0) {
            put(true, 0, rname(), fmt::format("{} must be logged at least once{}; found none", rule.name, where()), rule.name);
          }
          break;
        case Requirement::kAtLeast:
          if (static_cast<int>(count) < rule.req.at_least) {
            put(true, 0, rname(),
                fmt::format("{} must be logged at least {} times{}; found {}", rule.name, rule.req.at_least, where(), count),
                rule.name);
          }
          break;
        case Requirement::kAtLeastOneOr: {
          std::vector<std::string_view> alts{rule.name};
          for (const auto& a : rule.req.alternatives) {
            if (std::find(alts.begin(), alts.end(), a) == alts.end()) alts.push_back(a);
          }
          std::sort(alts.begin(), alts.end());
          if (std::find(alternatives.begin(), alternatives.end(), alts) != alternatives.end()) break;
          alternatives.push_back(alts);
          // An alternative without a rule of its own in this config is never counted (the
          // official reported_values holds only keys with rules): count_of gives 0 then.
          bool any = std::any_of(alts.begin(), alts.end(), [&](std::string_view k) { return count_of(k) > 0; });
          if (!any) {
            put(true, 0, rname(),
                fmt::format("{} must be logged at least once{}; found none", fmt::format("{}", fmt::join(alts, " or ")),
                            where()),
                "");
          }
          break;
        }
        case Requirement::kNone:
        case Requirement::kOptional:
          break;
      }
    }
    // The END record, on the state the lines left (no line is current: v is the last line's).
    end_pre_ran = cfg.end_pre.has_value();
    if (cfg.end_pre) {
      try {
        cfg.end_pre->exec(env);
      } catch (const PyError& e) {
        stop(0, cfg.name + ": END", fmt::format("the END code fails ({}) ({})", e.what(), cfg.name));
        return;
      }
    }
    end_check_ran = !cfg.end_checks.empty();
    for (const Expr& check : cfg.end_checks) {
      bool ok = false;
      std::string why;
      try {
        ok = truthy(check.eval(env));
      } catch (const PyError& e) {
        why = fmt::format(" (it cannot be evaluated: {})", e.what());
      }
      if (!ok) {
        put(true, 0, cfg.name + ": END",
            fmt::format("at the end of the log `{}` must hold ({}); it does not{}", shorten(check.text()), cfg.name, why),
            "");
      }
    }
  }
};

}  // namespace

// Every config of the official queue reading one log's lines as they arrive (see above).
class StreamJudge {
 public:
  StreamJudge(const RuleLibrary& library, const Ruleset& ruleset, bool record_blocks)
      : library_(library), record_blocks_(record_blocks) {
    // Logs keep their first few dozen ruled lines (up to the submission_* lines that enqueue
    // the division's and benchmark's configs): room for them at once, not a vector of
    // strings and values moved at every doubling.
    buffer_.reserve(kKeptLinesAtFirst);
    start(ruleset.folder() + "/common.yaml", std::nullopt);
    settle();
  }

  // One line, read by every run so far; `line.pending` (when set) lives until this returns.
  void feed(LogLine& line) {
    for (std::size_t i = 0; i < runs_.size(); ++i) runs_[i]->read(line);
    for (auto& [field, aggregator] : aggregators_) aggregator.add(line);
    if (buffering_) keep(line);
    settle();
  }

  LogVerdict finish(bool parse_errors, bool no_events);

 private:
  // Starts a run of `name` (a new entry of the queue), enqueued by `parent`.
  void start(const std::string& name, std::optional<std::size_t> parent) {
    const std::size_t index = runs_.size();
    auto run = std::make_unique<ConfigRun>();
    run->name = name;
    run->config = library_.config(name);
    if (parent) runs_[*parent]->children.push_back(index);
    runs_.push_back(std::move(run));
    ConfigRun& r = *runs_.back();
    if (!r.config) return;
    r.seen.resize(r.config->keys.size());
    r.ran.resize(r.config->keys.size());
    r.env.s = make_dict();
    r.env.enqueue_config = [this, index](const std::string& child) { pending_.push_back({child, index}); };
    // An aggregating config starts while the lines so far are kept (a config is only
    // enqueued while buffering): its aggregator reads them first, then each line as it comes.
    if (r.config->aggregates_eval_accuracy && !aggregators_.count(r.config->aggregation_field)) {
      EvalAggregator& aggregator = aggregators_[r.config->aggregation_field];
      aggregator.field = r.config->aggregation_field;
      for (KeptLine& k : buffer_) replay(k, [&](const LogLine& l) { aggregator.add(l); });
    }
    if (r.config->begin_state) {
      r.begin_ran = true;
      r.env.s = deep_copy(*r.config->begin_state);
    } else if (r.config->begin) {
      r.begin_ran = true;
      try {
        r.config->begin->exec(r.env);
      } catch (const PyError& e) {
        r.stop(0, name + ": BEGIN", fmt::format("the BEGIN code fails ({}) ({})", e.what(), name));
        return;
      }
    }
    // It reads the lines so far (the log from its start, as the official queue has it).
    for (KeptLine& k : buffer_) replay(k, [&](const LogLine& l) { r.read(l); });
  }

  // Starts what was enqueued, then drops the replay buffer once no run can enqueue again.
  void settle() {
    while (!pending_.empty()) {
      auto [name, parent] = pending_.front();
      pending_.pop_front();
      start(name, parent);
    }
    if (!buffering_) return;
    bool may = false;
    for (const auto& r : runs_) may |= r->may_enqueue() || (r->config && r->config->enqueue_at_end);
    if (!may) {
      buffering_ = false;
      std::vector<KeptLine>().swap(buffer_);
      std::string().swap(texts_);
    }
  }

  // A line kept for configs enqueued later: its texts are copied into texts_ (`line.v`
  // stays None), or v when it was converted (one of the configs needed it). Kept lines and
  // their texts sit in two growing arrays, not one allocation or two per line.
  struct KeptLine {
    LogLine line;  // pending is nullptr
    std::size_t texts_at = 0, value_size = 0, metadata_size = 0;
    bool has_texts = false;
  };

  void keep(const LogLine& line) {
    KeptLine& k = buffer_.emplace_back();
    k.line = line;
    k.line.pending = nullptr;
    if (line.pending && line.pending->v.is_none()) {
      k.texts_at = texts_.size();
      k.value_size = line.pending->value.size();
      k.metadata_size = line.pending->metadata.size();
      k.has_texts = true;
      texts_.append(line.pending->value).append(line.pending->metadata);
    } else {
      k.line.v = line.value_dict();
    }
  }

  // Calls read(line) with a kept line, its texts as the line's LineText while v is not
  // converted; a v converted then is kept (shared by later readers, as for a live line).
  // Nothing is kept meanwhile (readers only enqueue), so texts_ does not move.
  template <class Read>
  void replay(KeptLine& k, const Read& read) {
    if (!k.has_texts) {
      read(k.line);
      return;
    }
    const std::string_view texts = std::string_view(texts_).substr(k.texts_at, k.value_size + k.metadata_size);
    LineText text{texts.substr(0, k.value_size), texts.substr(k.value_size), {}, std::nullopt, std::nullopt};
    k.line.pending = &text;
    read(k.line);
    k.line.pending = nullptr;
    if (!text.v.is_none()) {
      k.line.v = std::move(text.v);
      k.has_texts = false;
    }
  }

  const RuleLibrary& library_;
  bool record_blocks_ = false;
  std::vector<std::unique_ptr<ConfigRun>> runs_;  // in order of start; runs_[0] is common.yaml
  std::deque<std::pair<std::string, std::size_t>> pending_;
  static constexpr std::size_t kKeptLinesAtFirst = 64;
  std::vector<KeptLine> buffer_;
  std::string texts_;  // the kept lines' texts (KeptLine::texts_at)
  bool buffering_ = true;
  std::map<std::string, EvalAggregator> aggregators_;  // by ConfigFile::aggregation_field
};

LogVerdict StreamJudge::finish(bool parse_errors, bool no_events) {
  std::vector<Message> messages;
  std::vector<std::string> applied;
  std::vector<const ConfigRun*> applied_runs;
  auto put = [&](bool error, const std::string& rule, const std::string& message) {
    messages.push_back({{error, 0, rule, message}, ""});
  };
  if (parse_errors) put(true, "mlp_parser", "some MLLOG lines do not parse; the official checker rejects such logs");
  if (no_events) put(true, "mlp_parser", "no MLLOG lines that parse (the official checker rejects the log)");

  // The official queue order: breadth first from common.yaml, each run's children in the
  // order it enqueued them. Runs are finished in that order; the aggregated lines reach the
  // aggregating config and every later one; what a run enqueues at its end joins the queue.
  std::deque<std::size_t> queue{0};
  std::vector<const EvalAggregator*> appended;  // each aggregating config's lines, appended to loglines
  while (!queue.empty()) {
    const std::size_t index = queue.front();
    queue.pop_front();
    ConfigRun& run = *runs_[index];
    if (!run.config) {
      messages.push_back({{true, 0, run.name,
                           fmt::format("the config {} does not exist; the official checker stops here and rejects the log",
                                       run.name)},
                          ""});
      break;
    }
    applied.push_back(run.name);
    applied_runs.push_back(&run);
    if (run.config->aggregates_eval_accuracy) {
      run.begin_ran = true;  // the aggregation, evaluated natively as the lines came
      const EvalAggregator& aggregator = aggregators_.at(run.config->aggregation_field);
      if (aggregator.error) {
        // The official BEGIN code raises before any line is read: nothing of this run stands.
        run.messages.clear();
        run.stop(0, run.name + ": BEGIN",
                 fmt::format("the BEGIN code fails ({}) ({})", aggregator.error->what(), run.name));
      }
      appended.push_back(&aggregator);
    }
    if (!run.stopped) {
      for (const EvalAggregator* aggregator : appended) {
        for (const LogLine& l : aggregator->added) run.read(l);
      }
      const std::size_t before = pending_.size();
      run.finish();
      // END code that enqueued: those configs read the whole log, kept for them (settle).
      std::vector<std::pair<std::string, std::size_t>> added(pending_.begin() + static_cast<std::ptrdiff_t>(before),
                                                             pending_.end());
      pending_.resize(before);
      for (const auto& [name, parent] : added) start(name, parent);
    }
    // Findings of earlier configs about keys this one rules on are withdrawn.
    std::erase_if(messages, [&](const Message& m) { return !m.key.empty() && run.config->find(m.key) != nullptr; });
    for (auto& m : run.messages) messages.push_back(std::move(m));
    if (run.stopped) break;
    for (std::size_t child : run.children) queue.push_back(child);
  }

  LogVerdict verdict;
  verdict.configs = std::move(applied);
  if (record_blocks_) {
    for (const ConfigRun* run : applied_runs) run->append_blocks_run(verdict.blocks_run);
    std::sort(verdict.blocks_run.begin(), verdict.blocks_run.end());
    verdict.blocks_run.erase(std::unique(verdict.blocks_run.begin(), verdict.blocks_run.end()), verdict.blocks_run.end());
  }
  verdict.compliant = true;
  for (auto& m : messages) {
    if (m.finding.error) verdict.compliant = false;
    verdict.findings.push_back(std::move(m.finding));
  }
  std::stable_sort(verdict.findings.begin(), verdict.findings.end(),
                   [](const RuleFinding& a, const RuleFinding& b) { return a.line < b.line; });
  return verdict;
}

LogVerdict judge_lines(const RuleLibrary& library, const Ruleset& ruleset, std::vector<LogLine> lines,
                       bool parse_errors, bool no_events, bool record_blocks) {
  StreamJudge judge(library, ruleset, record_blocks);
  for (auto& l : lines) judge.feed(l);
  return judge.finish(parse_errors, no_events);
}

LogReader::LogReader(const RuleLibrary& library, const Ruleset& ruleset, bool record_blocks)
    : library_(library),
      ruleset_(ruleset),
      keys_(&library.keys_with_rules(ruleset)),
      judge_(std::make_unique<StreamJudge>(library, ruleset, record_blocks)) {}

LogReader::~LogReader() = default;
LogReader::LogReader(LogReader&&) noexcept = default;

namespace {
constexpr std::string_view kMissingField = "MLLOG line without {}; the official parser stops here and rejects the log";
}

namespace {

// RuleKeys::id of a scanner shape's key, kept per thread from log to log under the rule
// keys' generation (shape numbers are unique in the process): a log's lines of a known shape
// skip the hash look-up, and so do the next logs' (a round's logs share their shapes).
// Direct-mapped by the shape's low bits.
struct KeyIdMemo {
  struct Slot {
    std::uint64_t shape = 0;
    std::uint64_t generation = 0;
    int id = -1;
  };
  std::array<Slot, 1024> slots{};
};

}  // namespace

int LogReader::key_id_of(const EventView& view) const {
  if (view.shape == 0) return keys_->id(view.key);
  KeyIdMemo::Slot& slot = ThreadCache<KeyIdMemo>::get().slots[view.shape & 1023];
  if (slot.shape != view.shape || slot.generation != keys_->generation()) {
    slot = {view.shape, keys_->generation(), keys_->id(view.key)};
  }
  return slot.id;
}

void LogReader::add_event(const EventView& view, std::string_view line_text, std::size_t token_at) {
  ++events_;
  if (view.value.empty() || view.metadata.empty()) {
    // value absent, or metadata absent or not an object: the full payload decides.
    add_event(view.key, view.time_ms, view.line, line_text.substr(token_at + kMllogToken.size()));
    --events_;
    return;
  }
  const int* known = key_ids_.find(view.shape);
  const int key_id = known ? *known : key_id_of(view);
  if (!known) key_ids_.keep(view.shape, key_id);
  if (key_id < 0 || stopped_) return;  // after a stop only parse errors are still reported
  // v is converted only when a config's code needs it (LineText).
  LineText& text = text_;
  text.value = view.value;
  text.metadata = view.metadata;
  text.v = PyValue();
  text.metadata_members.reset();
  text.value_scalar.reset();
  text.layout = view.layout;
  LogLine& l = line_;  // reused: its key stays while the lines' key does (ids are per key)
  l.line = view.line;
  l.timestamp = view.time_ms;
  if (l.key_id != key_id) l.key.assign(view.key);
  l.v = PyValue();
  l.pending = &text;
  l.shape = view.shape;
  l.key_id = key_id;
  judge_->feed(l);
  l.pending = nullptr;
}

void LogReader::add_event(std::string_view key, double time_ms, std::uint64_t line, std::string_view payload) {
  ++events_;
  // In the text's order, as json.loads keeps a dict's keys: a finding prints v['metadata']
  // as Python's repr does (the fast path's LineText reads the text in order too).
  nlohmann::ordered_json doc = parse_ordered_json_like_python_or_discarded(payload);
  if (doc.is_discarded() && !is_valid_utf8(payload)) {
    doc = parse_ordered_json_like_python_or_discarded(latin1_to_utf8(payload));
  }
  if (!doc.is_object()) {
    add_parse_error(line, "MLLOG payload does not parse");
    return;
  }
  if (!doc.contains("value") || !doc.contains("metadata")) {
    if (!stopped_) {
      early_.push_back({true, line, "mlp_parser",
                        fmt::format(fmt::runtime(kMissingField), doc.contains("value") ? "metadata" : "value")});
      stopped_ = true;
    }
    return;
  }
  const int key_id = keys_->id(key);
  if (key_id < 0 || stopped_) return;
  LogLine l;
  l.key_id = key_id;
  l.line = line;
  l.timestamp = time_ms;
  l.key = std::string(key);
  l.v = make_dict();
  (*l.v.dict())["value"] = from_json(doc["value"]);
  (*l.v.dict())["metadata"] = from_json(doc["metadata"]);
  judge_->feed(l);
}

void LogReader::add_parse_error(std::uint64_t line, const std::string& message) {
  early_.push_back({true, line, "mlp_parser", fmt::format("MLLOG line does not parse: {}", message)});
}

LogVerdict LogReader::finish() {
  bool parse_errors = !early_.empty();
  LogVerdict verdict;
  if (stopped_) {
    verdict.findings = std::move(early_);
    verdict.compliant = false;
    return verdict;
  }
  // The parse errors are findings of their own (early_), one per line.
  verdict = judge_->finish(false, events_ == 0);
  for (auto it = early_.rbegin(); it != early_.rend(); ++it) verdict.findings.insert(verdict.findings.begin(), *it);
  if (parse_errors) verdict.compliant = false;
  return verdict;
}

}  // namespace mlperf::compliance
