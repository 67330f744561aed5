/*
 * A program without MPI that loads its MPI part at run time, like a Python
 * extension: dlopen(LIB, RTLD_LOCAL), then calls run(DIR) of
 * dlopen_lib.c (collector/mpiio_test.go). Usage: dlopen LIB DIR.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dlopen LIB DIR\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*run)(const char *) = (int (*)(const char *))dlsym(h, "run");
	if (!run) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	return run(argv[2]);
}
