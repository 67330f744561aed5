// A grid that dumps itself with std::ofstream.
#include <fstream>
#include <vector>

namespace sim {

constexpr int kRanks = 4;

class Grid {
public:
	explicit Grid(int n) : data_(n) {}
	void fill(double v) {
		for (auto &x : data_)
			x = v;
	}
	void dump(const std::string &path) const;

private:
	std::vector<double> data_;
};

void Grid::dump(const std::string &path) const
{
	std::ofstream ofs(path, std::ios::binary);
	ofs << "size " << data_.size() << "\n";
	ofs.write(reinterpret_cast<const char *>(data_.data()), data_.size() * sizeof(double));
	auto scale = [&](double s) { return s * 2; };
	double *tmp = new double[data_.size()];
	for (std::size_t i = 0; i < data_.size(); ++i)
		tmp[i] = scale(data_[i]);
	delete[] tmp;
}

} // namespace sim

int main()
{
	sim::Grid g(16);
	g.fill(1.0);
	g.dump("grid.bin");
	std::fwrite("x", 1, 1, stdout);
	return 0;
}
