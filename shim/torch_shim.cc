// The only C++ in mtrial: thin wrappers over libtorch that catch every
// exception and turn it into an error message (see abi.h).
#include "abi.h"

#include <cstdio>
#include <cstring>
#include <exception>

#include <torch/csrc/jit/runtime/operator.h>
#include <torch/version.h>

namespace {

void set_err(char *err, size_t errsize, const char *what)
{
	if (err && errsize > 0)
		std::snprintf(err, errsize, "%s", what);
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
	try {
		*out = torch::jit::getAllOperators().size();
		return 0;
	} catch (const std::exception &e) {
		set_err(err, errsize, e.what());
	} catch (...) {
		set_err(err, errsize, "unknown C++ exception");
	}
	return -1;
}
