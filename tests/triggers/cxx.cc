// cxx: a C++ program for the demangling of its names in stacks and
// symbols.  ns::Shape<int>::area(int) is called N times from main() by
// way of ns::run(int); prints the total; exits 0.
//
//	cxx N
#include <cstdio>
#include <cstdlib>

namespace ns {
template <typename T> struct Shape {
	T side;
	__attribute__((noipa)) T area(T k) { return side * side + k; }
};

__attribute__((noipa)) long
run(int n)
{
	Shape<int> s = { 3 };
	long t = 0;

	for (int i = 0; i < n; i++)
		t += s.area(i);
	return t;
}
}

int
main(int argc, char **argv)
{
	printf("%ld\n", ns::run(argc > 1 ? atoi(argv[1]) : 10));
	return 0;
}
