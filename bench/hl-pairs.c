/*
 * The reference for bench-compare.sh: the Hodges-Lehmann shift as the textbook forms
 * it, every pairwise difference kept and sorted (what bootgate did before its selection).
 * Reads two files of numbers; prints the shift. Not part of bootgate.
 */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	double *v = NULL, x;
	size_t alloc = 0;

	*n = 0;
	if (!f)
		return NULL;
	while (fscanf(f, "%lf", &x) == 1) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			v = realloc(v, alloc * sizeof(*v));
			if (!v)
				exit(1);
		}
		v[(*n)++] = x;
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	size_t na, nb, m;
	double *a, *b, *d;

	if (argc != 3 || !(a = load(argv[1], &na)) || !(b = load(argv[2], &nb)))
		return 2;
	m = na * nb;
	if (!(d = malloc(m * sizeof(*d)))) {
		fprintf(stderr, "hl-pairs: cannot allocate %zu pairs\n", m);
		return 1;
	}
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, m, sizeof(*d), cmp);
	printf("%.1f\n", m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]));
	free(d);
	free(a);
	free(b);
	return 0;
}
