/*
 * main.c: call kernels compiled ahead of time for OpenCL.
 *
 * kernels.o and kernels.h come from "ein compile kernels.ein --target
 * opencl" (the rule is in Makefile.am); the program needs nothing of ein
 * at run time but libein_rt and libOpenCL.  matmul and softmax run
 * through their host functions (host arrays, the default device) at two
 * sizes each, then matmul through matmul_cl on a queue and cl_mem
 * buffers of this program's own; every result is checked against a
 * plain C loop, and sizes that are not valid must be refused.  Exits 1
 * on any mismatch, 77 (skipped) when there is no OpenCL device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"

/* Deterministic values in [-1, 1). */
static void fill(float *p, long n, unsigned seed)
{
	long i;

	for (i = 0; i < n; ++i) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (float) ((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

static int close_to(float got, double want)
{
	return fabs(got - want) <= 1e-4 * (1 + fabs(want));
}

/* The number of elements of c (M x N) that differ from A B. */
static long matmul_errors(const float *a, const float *b, const float *c,
	long m, long k, long n)
{
	long i, j, l, wrong = 0;

	for (i = 0; i < m; ++i)
		for (j = 0; j < n; ++j) {
			double t = 0;

			for (l = 0; l < k; ++l)
				t += (double) a[i * k + l] * b[l * n + j];
			wrong += !close_to(c[i * n + j], t);
		}
	return wrong;
}

/* matmul (host arrays) at M, K, N; 0 if right. */
static int check_matmul(long m, long k, long n)
{
	float *a = malloc(m * k * sizeof(float));
	float *b = malloc(k * n * sizeof(float));
	float *c = malloc(m * n * sizeof(float));
	long wrong;
	int st;

	fill(a, m * k, 1);
	fill(b, k * n, 2);
	st = matmul(a, b, c, m, k, n);
	if (st != EIN_AOT_OK)
		fprintf(stderr, "matmul: status %d: %s\n", st,
			ein_rt_cl_last_error());
	wrong = st == EIN_AOT_OK ? matmul_errors(a, b, c, m, k, n) : 1;
	printf("matmul %ldx%ldx%ld: %s\n", m, k, n, wrong ? "WRONG" : "ok");
	free(a);
	free(b);
	free(c);
	return wrong != 0;
}

/* softmax (host arrays) at M, N; 0 if right. */
static int check_softmax(long m, long n)
{
	float *x = malloc(m * n * sizeof(float));
	float *y = malloc(m * n * sizeof(float));
	long i, j, wrong = 0;
	int st;

	fill(x, m * n, 3);
	st = softmax(x, y, m, n);
	if (st != EIN_AOT_OK)
		fprintf(stderr, "softmax: status %d: %s\n", st,
			ein_rt_cl_last_error());
	for (i = 0; st == EIN_AOT_OK && i < m; ++i) {
		double mx = x[i * n], s = 0;

		for (j = 1; j < n; ++j)
			mx = x[i * n + j] > mx ? x[i * n + j] : mx;
		for (j = 0; j < n; ++j)
			s += exp(x[i * n + j] - mx);
		for (j = 0; j < n; ++j)
			wrong += !close_to(y[i * n + j],
				exp(x[i * n + j] - mx) / s);
	}
	wrong += st != EIN_AOT_OK;
	printf("softmax %ldx%ld: %s\n", m, n, wrong ? "WRONG" : "ok");
	free(x);
	free(y);
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

/* matmul_cl on buffers and a queue of this program's own; 0 if right. */
static int check_matmul_cl(cl_device_id dev, long m, long k, long n)
{
	float *a = malloc(m * k * sizeof(float));
	float *b = malloc(k * n * sizeof(float));
	float *c = malloc(m * n * sizeof(float));
	cl_context context = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
	cl_command_queue q = clCreateCommandQueue(context, dev, 0, NULL);
	cl_mem ma = clCreateBuffer(context, CL_MEM_READ_WRITE,
		m * k * sizeof(float), NULL, NULL);
	cl_mem mb = clCreateBuffer(context, CL_MEM_READ_WRITE,
		k * n * sizeof(float), NULL, NULL);
	cl_mem mc = clCreateBuffer(context, CL_MEM_READ_WRITE,
		m * n * sizeof(float), NULL, NULL);
	long wrong = 1;
	int st;

	fill(a, m * k, 4);
	fill(b, k * n, 5);
	clEnqueueWriteBuffer(q, ma, CL_TRUE, 0, m * k * sizeof(float), a, 0,
		NULL, NULL);
	clEnqueueWriteBuffer(q, mb, CL_TRUE, 0, k * n * sizeof(float), b, 0,
		NULL, NULL);
	st = matmul_cl(q, ma, mb, mc, m, k, n);
	if (st != EIN_AOT_OK)
		fprintf(stderr, "matmul_cl: status %d: %s\n", st,
			ein_rt_cl_last_error());
	else if (clEnqueueReadBuffer(q, mc, CL_TRUE, 0, m * n * sizeof(float),
			c, 0, NULL, NULL) == CL_SUCCESS)
		wrong = matmul_errors(a, b, c, m, k, n);
	printf("matmul_cl %ldx%ldx%ld: %s\n", m, k, n, wrong ? "WRONG" : "ok");
	clReleaseMemObject(ma);
	clReleaseMemObject(mb);
	clReleaseMemObject(mc);
	clReleaseCommandQueue(q);
	clReleaseContext(context);
	free(a);
	free(b);
	free(c);
	return wrong != 0;
}

int main(void)
{
	cl_device_id dev;
	float x[4] = { 0 };
	int bad = 0;

	if (first_device(&dev) < 0) {
		printf("SKIP: no OpenCL device\n");
		return 77;
	}
	bad |= check_matmul(37, 13, 29);
	bad |= check_matmul(64, 32, 48);
	bad |= check_softmax(19, 70);
	bad |= check_softmax(1, 5);
	bad |= check_matmul_cl(dev, 37, 13, 29);
	bad |= check_matmul_cl(dev, 5, 7, 3);
	/* Sizes below 1, a NULL pointer and a NULL queue are refused
	 * before any device work. */
	if (softmax(x, x + 2, 0, 2) != EIN_AOT_ERROR_SIZE ||
	    softmax(NULL, x, 1, 2) != EIN_AOT_ERROR_NULL ||
	    softmax_cl(NULL, (cl_mem) x, (cl_mem) (x + 2), 1, 2) !=
	    EIN_AOT_ERROR_NULL) {
		printf("invalid arguments were not refused\n");
		bad = 1;
	}
	return bad ? 1 : 0;
}
