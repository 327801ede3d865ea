// A program that links libtorch and does nothing: what every mtrial command
// would pay at start-up if mtrial linked libtorch instead of dlopen'ing it.
#include <torch/csrc/jit/runtime/operator.h>

int main(int argc, char **argv)
{
	(void)argv;
	// Never true in the benchmark; keeps the link from being dropped.
	if (argc > 100)
		return (int)torch::jit::getAllOperators().size();
	return 0;
}
