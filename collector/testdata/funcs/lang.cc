// C++ stream operations in function profiles (funcs_lang_test.go), built
// with -finstrument-functions:
//   langxx DIR N
// cxx_write writes N lines ("i x y\n", the numbers with 17 digits) to an
// ofstream, cxx_read reads them back with >>, cxx_getline with std::getline,
// cxx_throw reads them with exceptions enabled until the end of the file
// throws, cxx_cout writes the N lines to std::cout (stdio underneath), and
// cxx_string formats them into an ostringstream, which is not file I/O.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

extern "C" void cxx_write(const char *path, int n)
{
	std::ofstream f(path);
	f.precision(17);
	for (int i = 1; i <= n; i++)
		f << i << ' ' << i / 7.0 << ' ' << i / 3.0 << '\n';
}

extern "C" double cxx_read(const char *path, int n)
{
	std::ifstream f(path);
	double s = 0, x, y;
	int i;
	for (int k = 0; k < n && f >> i >> x >> y; k++)
		s += x + y;
	return s;
}

extern "C" long cxx_getline(const char *path)
{
	std::ifstream f(path);
	std::string line;
	long chars = 0;
	while (std::getline(f, line))
		chars += (long)line.size();
	return chars;
}

extern "C" int cxx_throw(const char *path)
{
	std::ifstream f(path);
	f.exceptions(std::ios::failbit | std::ios::badbit);
	int lines = 0;
	try {
		int i;
		double x, y;
		for (;;) {
			f >> i >> x >> y;
			lines++;
		}
	} catch (const std::ios::failure &) {
	}
	return lines;
}

extern "C" void cxx_cout(int n)
{
	std::cout.precision(17);
	for (int i = 1; i <= n; i++)
		std::cout << i << ' ' << i / 7.0 << ' ' << i / 3.0 << '\n';
	std::cout.flush();
}

extern "C" size_t cxx_string(int n)
{
	std::ostringstream o;
	o.precision(17);
	for (int i = 1; i <= n; i++)
		o << i << ' ' << i / 7.0 << ' ' << i / 3.0 << '\n';
	return o.str().size();
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: langxx DIR N\n");
		return 2;
	}
	std::string path = std::string(argv[1]) + "/cxx.txt";
	int n = std::atoi(argv[2]);
	cxx_write(path.c_str(), n);
	int lines = cxx_throw(path.c_str());
	double s = cxx_read(path.c_str(), n);
	long chars = cxx_getline(path.c_str());
	cxx_cout(n);
	size_t size = cxx_string(n);
	if (lines != n || s <= 0 || chars <= 0 || size != (size_t)(chars + n)) {
		std::fprintf(stderr, "langxx: bad results %d %g %ld %zu\n", lines, s, chars, size);
		return 1;
	}
	return 0;
}
