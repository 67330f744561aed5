int before(int a)
{
	return a + 1;
}

int broken(int a)
{
	x = = 3;
	for (i = 0; i < ; i++) {
		write(1, "x", 1);
	}
	return a
}

int middle(void) { return 2; }

struct s { int a; } @@@ ;

int after(int fd)
{
	for (int k = 0; k < 8; k++)
		fsync(fd);
	return 0;
}
