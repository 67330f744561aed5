// C++ CSV output next to a compute kernel: namespace lattice holds free
// functions; relax_spins() runs Metropolis sweeps of a 2-D Ising lattice
// (the kernel), magnetization() reduces it, and write_csv() writes the
// lattice as CSV through a std::ofstream, one line per row, every
// DUMP_EVERY sweeps, plus one line per sweep to a trace file
// (append_trace); write_params() writes the run parameters once.
// Usage: csv_kernel DIR
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace lattice {

const int L = 256;
const int SWEEPS = 60;
const int DUMP_EVERY = 5;

// relax_spins does two Metropolis sweeps with its own linear congruential
// generator, whose state it carries in seed.
void relax_spins(std::vector<int> &spin, std::uint64_t &seed, double beta)
{
	double w4 = 1, w8 = 1;
	for (int k = 0; k < 24; k++) {
		w4 *= 1 - 4 * beta / 24;
		w8 *= 1 - 8 * beta / 24;
	}
	std::uint64_t s = seed;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < L; i++)
			for (int j = 0; j < L; j++) {
				int v = spin[i * L + j];
				int nb = spin[((i + 1) % L) * L + j] + spin[((i + L - 1) % L) * L + j] +
					 spin[i * L + (j + 1) % L] + spin[i * L + (j + L - 1) % L];
				int de = 2 * v * nb;
				s = s * 6364136223846793005ULL + 1442695040888963407ULL;
				double r = (double)(s >> 11) / 9007199254740992.0;
				if (de <= 0 || (de == 4 && r < w4) || (de == 8 && r < w8))
					spin[i * L + j] = -v;
			}
	seed = s;
}

double magnetization(const std::vector<int> &spin)
{
	long m = 0;
	for (int v : spin)
		m += v;
	return (double)m / ((double)L * L);
}

void write_csv(const std::string &path, const std::vector<int> &spin)
{
	std::ofstream out(path);
	for (int i = 0; i < L; i++) {
		for (int j = 0; j < L; j++) {
			out << spin[i * L + j];
			out << (j + 1 < L ? ',' : '\n');
		}
	}
}

void append_trace(std::ofstream &trace, int sweep, double m)
{
	trace << sweep << ',' << m << '\n';
}

void write_params(const std::string &path, double beta)
{
	std::ofstream out(path);
	out << "L=" << L << "\nsweeps=" << SWEEPS << "\nbeta=" << beta << "\ndump_every=" << DUMP_EVERY << '\n';
}

} // namespace lattice

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	std::string dir = argv[1];
	std::vector<int> spin(lattice::L * lattice::L, 1);
	std::uint64_t seed = 42;
	lattice::write_params(dir + "/params.txt", 0.42);
	std::ofstream trace(dir + "/trace.csv");
	trace << "sweep,m\n";
	for (int s = 1; s <= lattice::SWEEPS; s++) {
		lattice::relax_spins(spin, seed, 0.42);
		lattice::append_trace(trace, s, lattice::magnetization(spin));
		if (s % lattice::DUMP_EVERY == 0)
			lattice::write_csv(dir + "/lattice_" + std::to_string(s) + ".csv", spin);
	}
	std::printf("%.6f\n", lattice::magnetization(spin));
	return 0;
}
