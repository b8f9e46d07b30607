// SPDX-License-Identifier: MIT
/*
 * symtest's C++ call paths: a class template's member, a function
 * template inlined into a member function, and a lambda, so the
 * symbolizer must demangle scopes, template arguments and parameters and
 * name inlined template instances.  @name comments mark expected lines.
 */
extern "C" void probe_here(const char *label);
extern "C" volatile int sink;

namespace ingero_test {

template <typename T, int N> struct Accum {
	T total{};
	__attribute__((noinline)) T add(T v)
	{
		total += v * N;
		probe_here("cpp_template"); // @cpp_add_call
		return total;
	}
};

template <typename T> static inline __attribute__((always_inline)) T twice(T v)
{
	probe_here("cpp_inline"); // @cpp_twice_call
	return v + v;
}

class Model {
public:
	__attribute__((noinline)) int forward(int x);
	int bias = 1;
};

int Model::forward(int x)
{
	return twice(x) + bias; // @cpp_forward_call
}

} // namespace ingero_test

extern "C" __attribute__((noinline)) void cpp_paths(void)
{
	ingero_test::Accum<long, 3> acc;
	sink += (int)acc.add(2); // @cpp_paths_add
	ingero_test::Model m;
	sink += m.forward(5); // @cpp_paths_forward
	auto lam = [](int k) __attribute__((noinline)) {
		probe_here("cpp_lambda"); // @cpp_lambda_call
		return k + sink;
	};
	sink += lam(1); // @cpp_paths_lambda
}
