// Checks the libstdc++ layout the collector's cxx.c relies on to find the
// buffer of a stream from C (funcs_lang_test.go):
//   cxxabi DIR
// For each kind of stream, seen as its std::ostream or std::istream
// subobject: the vtable's entry -3 is the offset of the virtual base
// std::basic_ios<char>, whose _M_streambuf is at byte IOS_STREAMBUF. Exits
// with 1 and says what differs if the recipe does not find rdbuf().
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#define IOS_STREAMBUF 232 // as in cxx.c

static int failures;

static const void *recipe(const void *s)
{
	const char *p = static_cast<const char *>(s);
	const std::ptrdiff_t *vptr = *reinterpret_cast<const std::ptrdiff_t *const *>(p);
	const char *ios = p + vptr[-3];
	return *reinterpret_cast<const void *const *>(ios + IOS_STREAMBUF);
}

static void check(const char *what, const void *sub, const std::ios &ios)
{
	std::ptrdiff_t vbase = (*static_cast<const std::ptrdiff_t *const *>(sub))[-3];
	std::ptrdiff_t real = reinterpret_cast<const char *>(&ios) - static_cast<const char *>(sub);
	bool ok = vbase == real && recipe(sub) == ios.rdbuf();
	std::printf("%-22s basic_ios at +%td (vtable says %td), buffer %s\n", what, real, vbase,
		    ok ? "found" : "NOT FOUND");
	if (!ok)
		failures++;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: cxxabi DIR\n");
		return 2;
	}
	std::string path = std::string(argv[1]) + "/abi.txt";
	std::ofstream of(path);
	std::ifstream in(path);
	std::fstream io(path);
	std::ostringstream os;
	std::istringstream is("1");
	std::stringstream ss;
	check("ofstream", static_cast<std::ostream *>(&of), of);
	check("ifstream", static_cast<std::istream *>(&in), in);
	check("fstream as ostream", static_cast<std::ostream *>(&io), io);
	check("fstream as istream", static_cast<std::istream *>(&io), io);
	check("ostringstream", static_cast<std::ostream *>(&os), os);
	check("istringstream", static_cast<std::istream *>(&is), is);
	check("stringstream as istream", static_cast<std::istream *>(&ss), ss);
	check("cout", static_cast<std::ostream *>(&std::cout), std::cout);
	check("cin", static_cast<std::istream *>(&std::cin), std::cin);
	check("cerr", static_cast<std::ostream *>(&std::cerr), std::cerr);
	if (sizeof(std::ios_base) + 16 != IOS_STREAMBUF) {
		std::printf("sizeof(std::ios_base) = %zu, want %d\n", sizeof(std::ios_base), IOS_STREAMBUF - 16);
		failures++;
	}
	return failures ? 1 : 0;
}
