// Table written with std::endl in a loop: a flush per row.
// Usage: endl_loop DIR [NROWS]
#include <cstdlib>
#include <fstream>
#include <string>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? std::atol(argv[2]) : 20000;
	std::ofstream out(std::string(argv[1]) + "/table.txt");
	for (long i = 0; i < n; i++)
		out << i << ' ' << i * i % 977 << std::endl;
	return 0;
}
