// The only C++ in mtrial: thin wrappers over libtorch that catch every
// exception and turn it into an error message (see abi.h).
#include "abi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <sstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/scope.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/operator.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <fstream>
#include <iterator>
#include <torch/version.h>

namespace {

void set_err(char *err, size_t errsize, const char *what)
{
	if (err && errsize > 0)
		std::snprintf(err, errsize, "%s", what);
}

// Runs fn; a thrown exception becomes -1 and its text in err.
template <typename F> int guarded(char *err, size_t errsize, F fn)
{
	try {
		fn();
		return 0;
	} catch (const c10::Error &e) {
		set_err(err, errsize, e.what_without_backtrace());
	} catch (const std::exception &e) {
		set_err(err, errsize, e.what());
	} catch (...) {
		set_err(err, errsize, "unknown C++ exception");
	}
	return -1;
}

// A JSON string literal (RFC 8259): quotes, backslashes and control
// characters escaped; other bytes as they are.
void json_str(std::string &out, const std::string &s)
{
	out += '"';
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += static_cast<char>(c);
		} else if (c < 0x20) {
			char esc[8];
			std::snprintf(esc, sizeof(esc), "\\u%04x", c);
			out += esc;
		} else {
			out += static_cast<char>(c);
		}
	}
	out += '"';
}

// A heap copy the C side frees with free().
char *detach(const std::string &s)
{
	char *p = static_cast<char *>(std::malloc(s.size() + 1));
	if (p)
		std::memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

// --- TorchScript ---------------------------------------------------------

struct Site {
	std::string file;
	size_t line, col;
	std::string module; // the submodule instance path, "" for the root
	bool operator<(const Site &o) const
	{
		return std::tie(file, line, col, module) < std::tie(o.file, o.line, o.col, o.module);
	}
};

struct OpUse {
	size_t count = 0;
	size_t conditional = 0; // nodes inside an if-branch or a loop body
	std::set<std::string> dtypes;     // of tensor inputs, where the graph knows
	std::set<std::string> dtype_args; // constant `dtype` arguments (x.to(torch.float64))
	std::map<Site, size_t> sites; // nodes per site; file "" when unknown
};

struct Walk {
	std::map<std::pair<std::string, std::string>, OpUse> ops; // (name, overload)
	std::map<std::string, size_t> other; // prim:: and other non-aten kinds
	std::map<std::string, size_t> scalar; // aten ops on Python scalars (aten::add.int)
	std::map<std::string, size_t> metadata; // tensor metadata reads (aten::size, aten::dim)
	size_t nodes = 0, control_flow = 0;
	size_t depth = 0; // prim::If / prim::Loop blocks the walk is inside
};

// A range's file, line and 1-based column, the user's source when the
// archive kept its debug information (the serialized code maps back to it).
bool range_site(const torch::jit::SourceRange &range, Site &site)
{
	auto orig = range.findSourceRangeThatGenerated();
	auto flc = (orig ? *orig : range).file_line_col();
	if (!flc)
		return false;
	site.file = std::get<0>(*flc);
	site.line = std::get<1>(*flc);
	site.col = std::get<2>(*flc) + 1;
	return true;
}

// PyTorch's own Python files (nn.Linear's forward calling F.linear...).
bool in_torch(const std::string &file)
{
	return file.find("-packages/torch/") != std::string::npos ||
	       file.find("/lib/python3/dist-packages/torch/") != std::string::npos;
}

// Where a node came from: its own source line, or, when that is inside
// PyTorch (an inlined nn.Module), the innermost call site in the model's
// own code. `module` is the submodule instance path it was inlined from.
bool node_site(torch::jit::Node *n, Site &site)
{
	bool found = range_site(n->sourceRange(), site);
	if (auto cs = n->callstack()) {
		auto frames = (*cs)->vec(); // outermost first
		for (auto &entry : frames) {
			auto &info = std::get<2>(entry);
			// a call of one of the module's own methods (self._forward_impl)
			// is framed as instance "SELF": no submodule
			if (info && !info->instance_name().empty() && info->instance_name() != "SELF")
				site.module += (site.module.empty() ? "" : ".") + info->instance_name();
		}
		for (auto it = frames.rbegin(); found && in_torch(site.file) && it != frames.rend();
		     ++it) {
			Site caller;
			if (range_site(std::get<1>(*it), caller) && !in_torch(caller.file)) {
				site.file = caller.file;
				site.line = caller.line;
				site.col = caller.col;
			}
		}
	}
	return found;
}

// The name Python gives a dtype (torch.float64), not c10's ("Double").
std::string dtype_name(c10::ScalarType t)
{
	switch (t) {
	case c10::ScalarType::Double: return "float64";
	case c10::ScalarType::Float: return "float32";
	case c10::ScalarType::Half: return "float16";
	case c10::ScalarType::BFloat16: return "bfloat16";
	case c10::ScalarType::Long: return "int64";
	case c10::ScalarType::Int: return "int32";
	case c10::ScalarType::Short: return "int16";
	case c10::ScalarType::Char: return "int8";
	case c10::ScalarType::Byte: return "uint8";
	case c10::ScalarType::Bool: return "bool";
	case c10::ScalarType::ComplexFloat: return "complex64";
	case c10::ScalarType::ComplexDouble: return "complex128";
	default: return c10::toString(t);
	}
}

bool returns_tensor(const c10::FunctionSchema &s)
{
	for (const auto &r : s.returns())
		if (r.type()->annotation_str().find("Tensor") != std::string::npos)
			return true;
	return false;
}

// An overload that takes and returns no tensor (aten::add.int) is
// interpreter arithmetic on Python scalars, not a device op.
bool scalar_only(const c10::FunctionSchema &s)
{
	for (const auto &a : s.arguments())
		if (a.type()->annotation_str().find("Tensor") != std::string::npos)
			return false;
	return !returns_tensor(s);
}

// An op that takes a tensor and returns none reads its metadata on the host
// (aten::size, aten::dim, aten::is_floating_point), except the ops that read
// a tensor's values, which compute on the device and wait for it.
bool metadata_only(const c10::FunctionSchema &s)
{
	static const std::set<std::string> value_reads = {
		"aten::Int",	      "aten::Float",	      "aten::Bool",	 "aten::item",
		"aten::ScalarImplicit", "aten::IntImplicit", "aten::FloatImplicit",
		"aten::is_nonzero",   "aten::equal",	      "aten::allclose", "aten::tolist"};
	return !returns_tensor(s) && !value_reads.count(s.name());
}

void record_aten(torch::jit::Node *n, const c10::FunctionSchema *schema, Walk &w)
{
	std::string overload = schema ? schema->overload_name() : "";
	OpUse &use = w.ops[{n->kind().toQualString(), overload}];
	Site site;
	use.count++;
	use.conditional += w.depth > 0;
	for (size_t i = 0; i < n->inputs().size(); i++) {
		torch::jit::Value *v = n->inputs()[i];
		auto tt = v->type()->cast<c10::TensorType>();
		if (tt && tt->scalarType())
			use.dtypes.insert(dtype_name(*tt->scalarType()));
		if (schema && i < schema->arguments().size() &&
		    schema->arguments()[i].name() == "dtype" &&
		    v->node()->kind() == c10::prim::Constant && v->type()->kind() == c10::TypeKind::IntType) {
			auto k = torch::jit::toIValue(v);
			if (k && k->isInt())
				use.dtype_args.insert(
					dtype_name(static_cast<c10::ScalarType>(k->toInt())));
		}
	}
	if (!node_site(n, site) || site.file.empty())
		site = Site{"", 0, 0, site.module};
	use.sites[site]++;
}

void walk_block(torch::jit::Block *b, Walk &w)
{
	for (torch::jit::Node *n : b->nodes()) {
		auto kind = n->kind();
		w.nodes++;
		if (kind == c10::prim::If || kind == c10::prim::Loop)
			w.control_flow++;
		const c10::FunctionSchema *schema = kind.is_aten() ? n->maybeSchema() : nullptr;
		if (schema && scalar_only(*schema))
			w.scalar[std::string(kind.toQualString()) + "." + schema->overload_name()]++;
		else if (schema && metadata_only(*schema))
			w.metadata[kind.toQualString()]++;
		else if (kind.is_aten())
			record_aten(n, schema, w);
		else if (kind != c10::prim::Constant) {
			w.other[kind.toQualString()]++;
		}
		// a branch's ops may never run and a loop's may run many times: the
		// graph holds each once, so they are counted apart as conditional
		bool conditional = kind == c10::prim::If || kind == c10::prim::Loop;
		w.depth += conditional;
		for (torch::jit::Block *sub : n->blocks())
			walk_block(sub, w);
		w.depth -= conditional;
	}
}

// The names of the root's methods that another of its methods calls
// (forward calling self._forward_impl): they run through their caller.
void called_methods(torch::jit::Block *b, const c10::TypePtr &self, std::set<std::string> &out)
{
	for (torch::jit::Node *n : b->nodes()) {
		if (n->kind() == c10::prim::CallMethod && n->inputs().size() > 0 &&
		    n->inputs()[0]->type() == self)
			out.insert(n->s(c10::attr::name));
		for (torch::jit::Block *sub : n->blocks())
			called_methods(sub, self, out);
	}
}

void counts_json(std::string &out, const std::map<std::string, size_t> &counts)
{
	bool first = true;
	out += "{";
	for (const auto &kv : counts) {
		out += first ? "" : ",";
		first = false;
		json_str(out, kv.first);
		out += ":" + std::to_string(kv.second);
	}
	out += "}";
}

void strings_json(std::string &out, const std::vector<std::string> &v)
{
	out += "[";
	for (size_t i = 0; i < v.size(); i++) {
		out += i ? "," : "";
		json_str(out, v[i]);
	}
	out += "]";
}

std::string walk_json(const Walk &w, const std::vector<std::string> &methods,
		      const std::vector<std::string> &entries, size_t submodules)
{
	std::string out = "{\"methods\":";
	strings_json(out, methods);
	out += ",\"entry_points\":";
	strings_json(out, entries);
	out += ",\"submodules\":" + std::to_string(submodules);
	out += ",\"nodes\":" + std::to_string(w.nodes);
	out += ",\"control_flow\":" + std::to_string(w.control_flow) + ",\"ops\":[";
	bool first = true;
	for (const auto &kv : w.ops) {
		out += first ? "{" : ",{";
		first = false;
		out += "\"op\":";
		json_str(out, kv.first.first);
		out += ",\"overload\":";
		json_str(out, kv.first.second);
		out += ",\"count\":" + std::to_string(kv.second.count);
		out += ",\"conditional\":" + std::to_string(kv.second.conditional) + ",\"dtypes\":[";
		bool f2 = true;
		for (const auto &d : kv.second.dtypes) {
			out += f2 ? "" : ",";
			f2 = false;
			json_str(out, d);
		}
		out += "],\"dtype_args\":[";
		f2 = true;
		for (const auto &d : kv.second.dtype_args) {
			out += f2 ? "" : ",";
			f2 = false;
			json_str(out, d);
		}
		out += "],\"sites\":[";
		f2 = true;
		for (const auto &kv2 : kv.second.sites) {
			const Site &s = kv2.first;
			out += f2 ? "{\"file\":" : ",{\"file\":";
			f2 = false;
			json_str(out, s.file);
			out += ",\"line\":" + std::to_string(s.line) + ",\"col\":" + std::to_string(s.col);
			out += ",\"module\":";
			json_str(out, s.module);
			out += ",\"count\":" + std::to_string(kv2.second) + "}";
		}
		out += "]}";
	}
	out += "],\"other\":";
	counts_json(out, w.other);
	out += ",\"scalar\":";
	counts_json(out, w.scalar);
	out += ",\"metadata\":";
	counts_json(out, w.metadata);
	out += "}";
	return out;
}

} // namespace

extern "C" int mtt_abi(void)
{
	return MTT_ABI;
}

extern "C" int mtt_version(char *buf, size_t size, char *err, size_t errsize)
{
	if (!buf || size == 0) {
		set_err(err, errsize, "no buffer");
		return -1;
	}
	std::snprintf(buf, size, "%s", TORCH_VERSION);
	return 0;
}

extern "C" int mtt_operator_count(size_t *out, char *err, size_t errsize)
{
	return guarded(err, errsize, [&] { *out = torch::jit::getAllOperators().size(); });
}

extern "C" int mtt_torchscript_ops(const char *path, char **json, char *err, size_t errsize)
{
	*json = nullptr;
	return guarded(err, errsize, [&] {
		torch::jit::Module m = torch::jit::load(path, c10::Device(c10::kCPU));
		std::vector<std::string> methods, entries;
		std::set<std::string> called;
		size_t submodules = 0;
		Walk w;

		for (const auto &sub : m.named_modules()) {
			(void)sub;
			submodules++;
		}
		for (const torch::jit::Method &method : m.get_methods()) {
			methods.push_back(method.name());
			called_methods(method.graph()->block(), m.type(), called);
		}
		// Every entry point of the root (a method no other method of it
		// calls), with every call into its own methods, its submodules and
		// TorchScript functions inlined: what running it dispatches, each
		// op once, never again through a callee walked on its own.
		for (const torch::jit::Method &method : m.get_methods()) {
			if (called.count(method.name()))
				continue;
			auto graph = method.graph()->copy();
			torch::jit::Inline(*graph);
			entries.push_back(method.name());
			walk_block(graph->block(), w);
		}
		std::string text = walk_json(w, methods, entries, submodules ? submodules - 1 : 0);
		if (!(*json = detach(text)))
			throw std::bad_alloc();
	});
}

extern "C" int mtt_registry(char **json, char *err, size_t errsize)
{
	*json = nullptr;
	return guarded(err, errsize, [&] {
		std::string out = "[";
		bool first = true;
		for (const auto &op : torch::jit::getAllOperators()) {
			const c10::FunctionSchema &s = op->schema();
			out += first ? "{\"name\":" : ",{\"name\":";
			first = false;
			json_str(out, s.name());
			out += ",\"overload\":";
			json_str(out, s.overload_name());
			out += ",\"arguments\":[";
			for (size_t i = 0; i < s.arguments().size(); i++) {
				const c10::Argument &a = s.arguments()[i];
				out += i ? ",{\"name\":" : "{\"name\":";
				json_str(out, a.name());
				out += ",\"type\":";
				json_str(out, a.type()->annotation_str());
				out += ",\"kwarg_only\":";
				out += a.kwarg_only() ? "true" : "false";
				if (a.default_value()) {
					std::ostringstream v;
					v << *a.default_value();
					out += ",\"default\":";
					json_str(out, v.str());
				}
				out += "}";
			}
			out += "],\"returns\":[";
			for (size_t i = 0; i < s.returns().size(); i++) {
				out += i ? "," : "";
				json_str(out, s.returns()[i].type()->annotation_str());
			}
			out += "],\"schema\":";
			std::ostringstream full;
			full << s;
			json_str(out, full.str());
			out += "}";
		}
		out += "]";
		if (!(*json = detach(out)))
			throw std::bad_alloc();
	});
}

// --- tensors across the ABI ----------------------------------------------------

namespace {

const char *py_dtype(c10::ScalarType t)
{
	static thread_local std::string name;
	name = dtype_name(t);
	return name.c_str();
}

c10::ScalarType scalar_type(const std::string &name)
{
	static const std::map<std::string, c10::ScalarType> types = {
		{"float64", c10::kDouble}, {"float32", c10::kFloat},   {"float16", c10::kHalf},
		{"bfloat16", c10::kBFloat16}, {"int64", c10::kLong},   {"int32", c10::kInt},
		{"int16", c10::kShort},    {"int8", c10::kChar},       {"uint8", c10::kByte},
		{"bool", c10::kBool}};
	auto it = types.find(name);
	if (it == types.end())
		throw std::runtime_error("dtype " + name + " is not supported here");
	return it->second;
}

void flatten(const c10::IValue &v, const std::string &name,
	     std::vector<std::pair<std::string, at::Tensor>> &out)
{
	auto join = [&](const std::string &k) { return name.empty() ? k : name + "." + k; };
	if (v.isTensor()) {
		out.emplace_back(name.empty() ? "tensor" : name, v.toTensor());
	} else if (v.isGenericDict()) {
		for (const auto &kv : v.toGenericDict()) {
			const c10::IValue &k = kv.key();
			flatten(kv.value(), join(k.isString() ? k.toStringRef()
							      : k.isInt() ? std::to_string(k.toInt())
									  : "?"),
				out);
		}
	} else if (v.isList() || v.isTuple() || v.isTensorList()) {
		std::vector<c10::IValue> items;
		if (v.isTuple())
			items = v.toTupleRef().elements().vec();
		else
			for (const auto &e : v.toListRef())
				items.push_back(e);
		for (size_t i = 0; i < items.size(); i++)
			flatten(items[i], join(std::to_string(i)), out);
	}
	// other values (ints, strings, None) carry no tensor: left out
}

int export_tensors(const std::vector<std::pair<std::string, at::Tensor>> &ts, mtt_tensor **out,
		   size_t *n)
{
	mtt_tensor *arr = static_cast<mtt_tensor *>(std::calloc(ts.size() ? ts.size() : 1, sizeof(*arr)));
	if (!arr)
		throw std::bad_alloc();
	*out = arr;
	*n = 0;
	for (const auto &nt : ts) {
		at::Tensor t = nt.second.detach().to(c10::kCPU).contiguous();
		mtt_tensor &m = arr[(*n)++];
		if (t.dim() > 16)
			throw std::runtime_error(nt.first + ": more than 16 dimensions");
		m.name = detach(nt.first);
		std::snprintf(m.dtype, sizeof(m.dtype), "%s", py_dtype(t.scalar_type()));
		m.ndim = static_cast<int>(t.dim());
		for (int d = 0; d < m.ndim; d++)
			m.shape[d] = t.size(d);
		m.nbytes = t.numel() * t.element_size();
		m.data = std::malloc(m.nbytes ? m.nbytes : 1);
		if (!m.name || !m.data)
			throw std::bad_alloc();
		if (m.nbytes)
			std::memcpy(m.data, t.data_ptr(), m.nbytes);
	}
	return 0;
}

// A line of the schema check's message that only repeats data: the
// printed value of the argument ("Value: tensor([[...]])" and its
// continuation lines) and pybind's cast details, which name no argument.
bool noise_line(const std::string &l, bool &in_value)
{
	if (l.rfind("Value:", 0) == 0)
		return in_value = true;
	if (l.rfind("Declaration:", 0) == 0 || l.rfind("Position:", 0) == 0)
		in_value = false;
	return in_value || l.find("Python error details:") != std::string::npos ||
	       l.find("Cast error details:") != std::string::npos;
}

// A forward's failure as one line that fits `size` bytes: an interpreter
// traceback ("Traceback of TorchScript...") gives its last line, which says
// what failed; a schema mismatch (wrong argument count or type) keeps every
// line but the argument's printed value. What does not fit is cut at a
// sentence's end, and the cut said.
std::string run_error(const std::string &what, size_t size)
{
	std::istringstream in(what);
	std::string line, out;
	std::vector<std::string> lines;
	bool in_value = false;

	while (std::getline(in, line)) {
		size_t b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
		if (b != std::string::npos)
			lines.push_back(line.substr(b, e - b + 1));
	}
	if (what.find("Traceback of TorchScript") != std::string::npos && !lines.empty())
		lines = {lines.back()};
	for (const auto &l : lines)
		if (!noise_line(l, in_value))
			out += (out.empty() ? "" : " ") + l;
	const std::string cut = " (the rest of libtorch's message is cut)";
	if (size > cut.size() + 1 && out.size() >= size) {
		size_t end = out.rfind(". ", size - cut.size() - 2);
		out = out.substr(0, end == std::string::npos ? size - cut.size() - 1 : end + 1) + cut;
	}
	return out;
}

void free_tensors(mtt_tensor *arr, size_t n)
{
	for (size_t i = 0; arr && i < n; i++) {
		std::free(arr[i].name);
		std::free(arr[i].data);
	}
	std::free(arr);
}

} // namespace

extern "C" int mtt_run_model(const char *path, const mtt_tensor *inputs, size_t nin,
			     const char *dtype, mtt_tensor **out, size_t *n, char *err, size_t errsize)
{
	*out = nullptr;
	*n = 0;
	int rc = guarded(err, errsize, [&] {
		c10::ScalarType type = scalar_type(dtype);
		// One intra-op thread: reductions then add up in one order, so both
		// runs, and any two machines, differ only by the recipe.
		at::set_num_threads(1);
		torch::jit::Module m = torch::jit::load(path, c10::Device(c10::kCPU));
		std::vector<c10::IValue> args;
		m.eval();
		m.to(type);
		for (size_t i = 0; i < nin; i++) {
			std::vector<int64_t> shape(inputs[i].shape, inputs[i].shape + inputs[i].ndim);
			c10::ScalarType in_type = scalar_type(inputs[i].dtype);
			at::Tensor t = at::from_blob(inputs[i].data, shape, c10::TensorOptions().dtype(in_type))
					       .clone();
			args.emplace_back(at::isFloatingType(in_type) ? t.to(type) : t);
		}
		c10::AutoGradMode no_grad(false);
		c10::IValue result;
		// the caller puts the model's path and the dtype in front of err
		size_t room = errsize > 1024 ? errsize - 512 : errsize;
		try {
			result = m.forward(args);
		} catch (const c10::Error &e) {
			throw std::runtime_error(run_error(e.what_without_backtrace(), room));
		} catch (const std::exception &e) {
			throw std::runtime_error(run_error(e.what(), room));
		}
		std::vector<std::pair<std::string, at::Tensor>> ts;
		flatten(result, "", ts);
		if (ts.empty())
			throw std::runtime_error("forward returned no tensor");
		export_tensors(ts, out, n);
	});
	if (rc != 0) {
		free_tensors(*out, *n);
		*out = nullptr;
		*n = 0;
	}
	return rc;
}
