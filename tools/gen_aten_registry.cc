// Build tool: writes a C source file holding every operator schema that
// libtorch registers (torch::jit::getAllOperators()), so that `mtrial scan`
// can tell whether "aten::gelu" exists without loading libtorch.
//
// Usage: gen_aten_registry OUT.c [TensorBody.h]
//
// The output is one array of mt_aten_rec (see python/opmap_int.h) sorted by
// (name, overload) with duplicates dropped, over one array of strings, so it is the same bytes for the
// same libtorch whatever order the operators were registered in. It is
// written through OUT.tmp and rename(2) so that a failed run leaves no half
// file for make to trust.
//
// Which ops are also torch.Tensor methods: the registry does not say (a
// schema has no `variants:`), and "first argument is `Tensor self`" claims
// 336 names that torch.Tensor lacks (gelu, mse_loss, pad, max_pool2d...),
// exactly the names that modules use for their attributes (`self.gelu(x)`).
// libtorch's own generated header ATen/core/TensorBody.h declares one
// at::Tensor member per method variant, so when its path is given, an aten op
// is a method when that header defines `Tensor::NAME(`. Without it, the
// weaker rule applies: `Tensor self` first and no leading underscore.
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/jit/runtime/operator.h>
#include <torch/version.h>

namespace {

struct Entry {
	std::string name;
	std::string overload;
	std::string schema;
	bool self_tensor;
	bool method;

	bool operator<(const Entry &o) const
	{
		return std::tie(name, overload, schema) < std::tie(o.name, o.overload, o.schema);
	}
};

// A C string literal: printable ASCII as is, everything else in octal, so the
// file compiles under -Wall -Wextra -Werror whatever a schema holds.
std::string c_literal(const std::string &s)
{
	std::string out = "\"";
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += static_cast<char>(c);
		} else if (c == '?' && !out.empty() && out.back() == '?') {
			out += "\\?"; // "??" would start a trigraph
		} else if (c >= 0x20 && c < 0x7f) {
			out += static_cast<char>(c);
		} else {
			char oct[8];
			std::snprintf(oct, sizeof(oct), "\\%03o", c);
			out += oct;
		}
	}
	return out + "\"";
}

// The first argument is `Tensor self` (not Tensor? nor Tensor[]): the op is
// very likely also a torch.Tensor method.
bool first_arg_is_self_tensor(const c10::FunctionSchema &s)
{
	const auto &args = s.arguments();
	if (args.empty() || args[0].name() != "self")
		return false;
	return args[0].type()->kind() == c10::TypeKind::TensorType;
}

// The at::Tensor member functions that TensorBody.h defines out of the class
// body, one line each: `inline at::Tensor & Tensor::add_(...)`. Hand-written
// Python-visible ones go through `__dispatch_NAME`; `NAME_symint` variants
// are C++ spellings of NAME.
bool read_tensor_methods(const char *path, std::set<std::string> &out)
{
	std::ifstream in(path);
	std::string line;
	const std::string dispatch = "__dispatch_", symint = "_symint";

	if (!in)
		return false;
	while (std::getline(in, line)) {
		size_t at = line.find(" Tensor::");
		if (line.rfind("inline ", 0) != 0 || at == std::string::npos)
			continue;
		at += std::strlen(" Tensor::");
		size_t end = line.find('(', at);
		if (end == std::string::npos)
			continue;
		std::string name = line.substr(at, end - at);
		if (name.rfind(dispatch, 0) == 0)
			name.erase(0, dispatch.size());
		if (name.size() > symint.size() &&
		    name.compare(name.size() - symint.size(), symint.size(), symint) == 0)
			continue;
		out.insert(name);
	}
	return !in.bad();
}

// Without TensorBody.h: a name is a method when any of its overloads takes
// `Tensor self` first, and it has no leading underscore.
void guess_tensor_methods(std::set<std::string> &out)
{
	const std::string aten = "aten::";

	for (const auto &op : torch::jit::getAllOperators()) {
		const c10::FunctionSchema &s = op->schema();
		if (s.name().rfind(aten, 0) == 0 && s.name()[aten.size()] != '_' &&
		    first_arg_is_self_tensor(s))
			out.insert(s.name().substr(aten.size()));
	}
}

bool is_method(const std::string &name, const std::set<std::string> &methods)
{
	const std::string aten = "aten::";

	return name.rfind(aten, 0) == 0 && methods.count(name.substr(aten.size())) > 0;
}

std::set<Entry> collect(const std::set<std::string> &methods)
{
	std::set<Entry> out;
	for (const auto &op : torch::jit::getAllOperators()) {
		const c10::FunctionSchema &s = op->schema();
		std::ostringstream text;
		text << s;
		out.insert(Entry{s.name(), s.overload_name(), text.str(), first_arg_is_self_tensor(s),
				 is_method(s.name(), methods)});
	}
	return out;
}

// Two schemas with the same (name, overload) would make lookups ambiguous;
// keep the first in sort order and count the rest.
size_t drop_duplicates(std::set<Entry> &ops)
{
	size_t dropped = 0;
	const Entry *prev = nullptr;
	for (auto it = ops.begin(); it != ops.end();) {
		if (prev && prev->name == it->name && prev->overload == it->overload) {
			it = ops.erase(it);
			dropped++;
		} else {
			prev = &*it;
			++it;
		}
	}
	return dropped;
}

// The strings go in one array, each once (an op's name is shared by its
// overloads), and the schemas refer to them by offset: a table of pointers
// would be 11,000 relocations for the loader to apply, and 120 KB of pages
// to dirty, at the start of every command.
bool write_c(FILE *f, const std::set<Entry> &ops, bool from_header)
{
	std::map<std::string, size_t> offsets;
	std::vector<std::string> order;
	size_t size = 0;
	auto offset = [&](const std::string &s) {
		auto it = offsets.find(s);
		if (it != offsets.end())
			return it->second;
		offsets[s] = size;
		order.push_back(s);
		size += s.size() + 1;
		return size - s.size() - 1;
	};
	std::vector<std::string> rows;
	for (const Entry &e : ops) {
		size_t n = offset(e.name), o = offset(e.overload), sc = offset(e.schema);
		char row[160];
		std::snprintf(row, sizeof(row), "\t{%zu, %zu, %zu, %d, %d},\n", n, o, sc,
			      e.self_tensor ? 1 : 0, e.method ? 1 : 0);
		rows.push_back(row);
	}
	std::fprintf(f,
		     "/* Generated by tools/gen_aten_registry.cc from libtorch %s's operator\n"
		     " * registry (torch::jit::getAllOperators()). Do not edit. */\n"
		     "#include \"opmap_int.h\"\n\n"
		     "const char mt_aten_torch_version[] = \"%s\";\n"
		     "const char mt_aten_method_source[] = \"%s\";\n\n"
		     "const char mt_aten_strings[%zu] =\n",
		     TORCH_VERSION, TORCH_VERSION,
		     from_header ? "ATen/core/TensorBody.h" : "first argument Tensor self", size);
	// one literal per string: "\0" never runs into a following digit
	for (const std::string &s : order)
		std::fprintf(f, "\t%s \"\\0\"\n", c_literal(s).c_str());
	std::fprintf(f, "\t;\n\nconst mt_aten_rec mt_aten_recs[] = {\n");
	for (const std::string &r : rows)
		std::fputs(r.c_str(), f);
	std::fprintf(f, "};\n\nconst size_t mt_aten_nops = %zu;\n", ops.size());
	return std::ferror(f) == 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		std::fprintf(stderr, "usage: %s OUT.c [TensorBody.h]\n", argv[0]);
		return 2;
	}
	std::string tmp = std::string(argv[1]) + ".tmp";
	std::set<std::string> methods;
	if (argc == 3 && (!read_tensor_methods(argv[2], methods) || methods.empty())) {
		std::fprintf(stderr, "gen_aten_registry: %s: no Tensor methods read\n", argv[2]);
		return 1;
	}
	try {
		if (argc == 2)
			guess_tensor_methods(methods);
		std::set<Entry> ops = collect(methods);
		size_t dropped = drop_duplicates(ops);
		if (ops.empty()) {
			std::fprintf(stderr, "gen_aten_registry: libtorch registered no operators\n");
			return 1;
		}
		FILE *f = std::fopen(tmp.c_str(), "w");
		if (!f) {
			std::perror(tmp.c_str());
			return 1;
		}
		bool ok = write_c(f, ops, argc == 3);
		ok = (std::fclose(f) == 0) && ok;
		if (!ok || std::rename(tmp.c_str(), argv[1]) != 0) {
			std::perror(argv[1]);
			std::remove(tmp.c_str());
			return 1;
		}
		std::fprintf(stderr, "gen_aten_registry: %zu operator schemas (%zu duplicates dropped)\n",
			     ops.size(), dropped);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "gen_aten_registry: %s\n", e.what());
		std::remove(tmp.c_str());
		return 1;
	}
	return 0;
}
