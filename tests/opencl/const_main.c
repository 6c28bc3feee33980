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
 * against a C loop over the same B in double.  Exits 0 when every
 * result is right, else 1 with the reason on stderr: a mismatch, a call's
 * error status, an OpenCL call that failed, and no OpenCL device too.
 * tests/opencl.test runs it only after "ein devices" has listed a device
 * (the test itself exits 77 otherwise, the one skip .ci/run checks for),
 * so a device this program cannot find is a failure here, never a skip:
 * printing "SKIP" would also make .ci/run take tests/opencl.log for a
 * skipped suite and hide the failure.
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

	if (!a || !c) {
		fprintf(stderr, "const_main: error: out of memory\n");
	} else {
		fill(a, m * K, 7 + m);
		st = matmul(a, c, m);
		if (st != EIN_AOT_OK)
			fprintf(stderr, "const_main: error: matmul: status %d:"
				" %s\n", st, ein_rt_cl_last_error());
		else
			wrong = errors(a, b, c, m);
	}
	printf("matmul (B constant) M=%ld: %s\n", m, wrong ? "WRONG" : "ok");
	free(a);
	free(c);
	return wrong != 0;
}

/* The first device of any platform in *dev; -1 after a message if
 * there is none. */
static int first_device(cl_device_id *dev)
{
	cl_platform_id p[8];
	cl_uint np = 0, nd, i;
	cl_int err = clGetPlatformIDs(8, p, &np);

	for (i = 0; err == CL_SUCCESS && i < np && i < 8; ++i)
		if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 1, dev, &nd) ==
		    CL_SUCCESS && nd > 0)
			return 0;
	fprintf(stderr, "const_main: error: no OpenCL device (clGetPlatformIDs:"
		" status %d, %u platform(s)), although tests/opencl.test "
		"runs this program only when 'ein devices' lists one\n",
		(int) err, (unsigned) np);
	return -1;
}

/* 0 if "err" is CL_SUCCESS, else -1 after a message naming "what". */
static int cl_ok(cl_int err, const char *what)
{
	if (err == CL_SUCCESS)
		return 0;
	fprintf(stderr, "const_main: error: %s: OpenCL error %d\n", what,
		(int) err);
	return -1;
}

/* matmul_cl on a queue and buffers of this program's own; 0 if right. */
static int check_cl(cl_device_id dev, const float *b, long m)
{
	float *a = malloc(m * K * sizeof(float));
	float *c = malloc(m * N * sizeof(float));
	cl_int e0 = CL_SUCCESS, e1 = CL_SUCCESS, e2 = CL_SUCCESS,
		e3 = CL_SUCCESS;
	cl_context context = clCreateContext(NULL, 1, &dev, NULL, NULL, &e0);
	cl_command_queue q = context ?
		clCreateCommandQueue(context, dev, 0, &e1) : NULL;
	cl_mem ma = context ? clCreateBuffer(context, CL_MEM_READ_WRITE,
		m * K * sizeof(float), NULL, &e2) : NULL;
	cl_mem mc = context ? clCreateBuffer(context, CL_MEM_READ_WRITE,
		m * N * sizeof(float), NULL, &e3) : NULL;
	long wrong = 1;
	int st;

	if (!a || !c) {
		fprintf(stderr, "const_main: error: out of memory\n");
	} else if (!cl_ok(e0, "clCreateContext") &&
	    !cl_ok(e1, "clCreateCommandQueue") &&
	    !cl_ok(e2 != CL_SUCCESS ? e2 : e3, "clCreateBuffer")) {
		fill(a, m * K, 11);
		if (!cl_ok(clEnqueueWriteBuffer(q, ma, CL_TRUE, 0,
		    m * K * sizeof(float), a, 0, NULL, NULL),
		    "clEnqueueWriteBuffer")) {
			st = matmul_cl(q, ma, mc, m);
			if (st != EIN_AOT_OK)
				fprintf(stderr, "const_main: error: matmul_cl:"
					" status %d: %s\n", st,
					ein_rt_cl_last_error());
			else if (!cl_ok(clEnqueueReadBuffer(q, mc, CL_TRUE, 0,
			    m * N * sizeof(float), c, 0, NULL, NULL),
			    "clEnqueueReadBuffer"))
				wrong = errors(a, b, c, m);
		}
	}
	printf("matmul_cl (B constant) M=%ld: %s\n", m,
		wrong ? "WRONG" : "ok");
	if (ma)
		clReleaseMemObject(ma);
	if (mc)
		clReleaseMemObject(mc);
	if (q)
		clReleaseCommandQueue(q);
	if (context)
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
	if (first_device(&dev) < 0)
		return 1;
	bad |= check_host(b, 67);
	bad |= check_host(b, 5);
	bad |= check_cl(dev, b, 33);
	return bad ? 1 : 0;
}
#endif
