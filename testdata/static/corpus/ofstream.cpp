// C++ std::ofstream writer: Table::fill computes NROWS x NCOLS values,
// Table::save writes them as text through std::ofstream, one row per line,
// and Table::save_binary writes them as raw bytes.
// Usage: ofstream DIR [NROWS]
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

static const int NROWS = 60000;
static const int NCOLS = 10;

class Table {
public:
	explicit Table(int rows) : rows_(rows), v_(static_cast<size_t>(rows) * NCOLS) {}
	void fill();
	void save(const std::string &path) const;
	void save_binary(const std::string &path) const;

private:
	int rows_;
	std::vector<double> v_;
};

void Table::fill()
{
	for (int r = 0; r < rows_; r++)
		for (int c = 0; c < NCOLS; c++)
			v_[static_cast<size_t>(r) * NCOLS + c] = std::sin(r * 0.001 + c);
}

void Table::save(const std::string &path) const
{
	std::ofstream out(path);
	for (int r = 0; r < rows_; r++) {
		for (int c = 0; c < NCOLS; c++)
			out << v_[static_cast<size_t>(r) * NCOLS + c] << (c + 1 < NCOLS ? ' ' : '\n');
	}
}

void Table::save_binary(const std::string &path) const
{
	std::ofstream out(path, std::ios::binary);
	out.write(reinterpret_cast<const char *>(v_.data()), static_cast<std::streamsize>(v_.size() * sizeof(double)));
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int rows = argc > 2 ? std::atoi(argv[2]) : NROWS;
	std::string dir = argv[1];
	Table t(rows);
	t.fill();
	t.save(dir + "/table.txt");
	t.save_binary(dir + "/table.bin");
	return 0;
}
