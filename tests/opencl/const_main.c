/*
 * const_main.c: a matmul compiled ahead of time for OpenCL with its B
 * embedded as constant data (tests/opencl.test: "ein compile
 * --target opencl --sizes K=300,N=29 --const B=FILE"), so that the host
 * functions are matmul(A, C, M) and matmul_cl(queue, A, C, M).
 *
 * Built with -DGEN_WEIGHTS (no object needed), "const_main FILE" writes
 * B (K x N floats, raw, the machine's order); else "const_main" runs
 * matmul twice at two M (the second call finds
 * B on the device already) and matmul_cl on a context and queue of its
 * own (B uploaded once more, to that context), each result checked
 * against a C loop over the same B in double.  Exits 1 on a mismatch,
 * 77 when there is no OpenCL device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define K 300
#define N 29

/* Deterministic values in [-1, 1). */
static void fill(float *p, long n, unsigned seed)
{
	long i;

	for (i = 0; i < n; ++i) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (float) ((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

#ifdef GEN_WEIGHTS
int main(int argc, char **argv)
{
	static float b[K * N];
	FILE *f = argc == 2 ? fopen(argv[1], "wb") : NULL;

	fill(b, K * N, 3);
	if (!f || fwrite(b, sizeof(float), K * N, f) != K * N)
		return 1;
	return fclose(f) != 0;
}
#else
#include "opencl_const.h"

/* The number of elements of c (m x N) that differ from a B. */
static long errors(const float *a, const float *b, const float *c, long m)
{
	long i, j, l, wrong = 0;

	for (i = 0; i < m; ++i)
		for (j = 0; j < N; ++j) {
			double t = 0;

			for (l = 0; l < K; ++l)
				t += (double) a[i * K + l] * b[l * N + j];
			wrong += !(fabs(c[i * N + j] - t) <=
				1e-4 * (1 + fabs(t)));
		}
	return wrong;
}

/* matmul (host arrays) at m; 0 if right. */
static int check_host(const float *b, long m)
{
	float *a = malloc(m * K * sizeof(float));
	float *c = malloc(m * N * sizeof(float));
	long wrong = 1;
	int st;

	fill(a, m * K, 7 + m);
	st = matmul(a, c, m);
	if (st != EIN_AOT_OK)
		fprintf(stderr, "matmul: status %d: %s\n", st,
			ein_rt_cl_last_error());
	else
		wrong = errors(a, b, c, m);
	printf("matmul (B constant) M=%ld: %s\n", m, wrong ? "WRONG" : "ok");
	free(a);
	free(c);
	return wrong != 0;
}

/* The first device of any platform in *dev; -1 if there is none. */
static int first_device(cl_device_id *dev)
{
	cl_platform_id p[8];
	cl_uint np = 0, nd, i;

	if (clGetPlatformIDs(8, p, &np) != CL_SUCCESS)
		return -1;
	for (i = 0; i < np && i < 8; ++i)
		if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 1, dev, &nd) ==
		    CL_SUCCESS && nd > 0)
			return 0;
	return -1;
}

/* matmul_cl on a queue and buffers of this program's own; 0 if right. */
static int check_cl(cl_device_id dev, const float *b, long m)
{
	float *a = malloc(m * K * sizeof(float));
	float *c = malloc(m * N * sizeof(float));
	cl_context context = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
	cl_command_queue q = clCreateCommandQueue(context, dev, 0, NULL);
	cl_mem ma = clCreateBuffer(context, CL_MEM_READ_WRITE,
		m * K * sizeof(float), NULL, NULL);
	cl_mem mc = clCreateBuffer(context, CL_MEM_READ_WRITE,
		m * N * sizeof(float), NULL, NULL);
	long wrong = 1;
	int st;

	fill(a, m * K, 11);
	clEnqueueWriteBuffer(q, ma, CL_TRUE, 0, m * K * sizeof(float), a, 0,
		NULL, NULL);
	st = matmul_cl(q, ma, mc, m);
	if (st != EIN_AOT_OK)
		fprintf(stderr, "matmul_cl: status %d: %s\n", st,
			ein_rt_cl_last_error());
	else if (clEnqueueReadBuffer(q, mc, CL_TRUE, 0, m * N * sizeof(float),
			c, 0, NULL, NULL) == CL_SUCCESS)
		wrong = errors(a, b, c, m);
	printf("matmul_cl (B constant) M=%ld: %s\n", m,
		wrong ? "WRONG" : "ok");
	clReleaseMemObject(ma);
	clReleaseMemObject(mc);
	clReleaseCommandQueue(q);
	clReleaseContext(context);
	free(a);
	free(c);
	return wrong != 0;
}

int main(void)
{
	static float b[K * N];
	cl_device_id dev;
	int bad = 0;

	fill(b, K * N, 3);
	if (first_device(&dev) < 0) {
		printf("SKIP: no OpenCL device\n");
		return 77;
	}
	bad |= check_host(b, 67);
	bad |= check_host(b, 5);
	bad |= check_cl(dev, b, 33);
	return bad;
}
#endif
