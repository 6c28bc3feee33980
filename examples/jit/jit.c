/*
 * jit.c: compile a kernel at run time with libein and call it with DLPack
 * tensors.
 *
 * The kernel is a matrix product with a bias and relu, parsed from a
 * string (ein_program_read_file would read a .ein file instead), compiled
 * for this CPU and called on row-major float arrays described by DLPack
 * tensors.  The result is checked against a plain C loop: the program
 * exits with status 1 on a mismatch, and prints the library's message on
 * any error.
 *
 * Build it against an installed libein:
 *     cc jit.c $(pkg-config --cflags --libs ein) -o jit
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ein.h>

static const char source[] =
	"def dense_relu(float32(M, K) X, float32(K, N) W, float32(N) b)"
	" -> (Y) {\n"
	"    T(i, j) +=! X(i, k) * W(k, j)\n"
	"    Y(i, j) = max(T(i, j) + b(j), 0)\n"
	"}\n";

enum { M = 37, K = 64, N = 29 };

/* A row-major float32 CPU tensor over "data" of shape "shape". */
static DLTensor tensor(float *data, int ndim, int64_t *shape)
{
	DLTensor t = { 0 };

	t.data = data;
	t.device.device_type = kDLCPU;
	t.ndim = ndim;
	t.dtype.code = kDLFloat;
	t.dtype.bits = 32;
	t.dtype.lanes = 1;
	t.shape = shape;
	return t;
}

/* Deterministic values in [-1, 1). */
static void fill(float *p, int n, unsigned seed)
{
	int i;

	for (i = 0; i < n; ++i) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (float) ((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

/* The number of elements of y that differ from relu(x w + b). */
static int count_wrong(const float *x, const float *w, const float *b,
	const float *y)
{
	int i, j, k, wrong = 0;

	for (i = 0; i < M; ++i)
		for (j = 0; j < N; ++j) {
			double t = b[j];

			for (k = 0; k < K; ++k)
				t += (double) x[i * K + k] * w[k * N + j];
			t = t > 0 ? t : 0;
			if (fabs(y[i * N + j] - t) > 1e-4 * (1 + fabs(t)))
				wrong++;
		}
	return wrong;
}

/* Compile dense_relu and call it once; 0 on success. */
static int run(ein_ctx *ctx, ein_kernel *k)
{
	static float x[M * K], w[K * N], b[N], y[M * N];
	int64_t xs[] = { M, K }, ws[] = { K, N }, bs[] = { N }, ys[] = { M, N };
	DLTensor X = tensor(x, 2, xs), W = tensor(w, 2, ws);
	DLTensor B = tensor(b, 1, bs), Y = tensor(y, 2, ys);
	DLTensor *args[] = { &X, &W, &B, &Y };
	int64_t sizes[] = { M, K, N };	/* ein_kernel_get_size_name order */
	int wrong;

	fill(x, M * K, 1);
	fill(w, K * N, 2);
	fill(b, N, 3);
	if (ein_kernel_call(k, args, 4, sizes, 3) != EIN_OK) {
		fprintf(stderr, "%s", ein_ctx_last_error(ctx));
		return 1;
	}
	wrong = count_wrong(x, w, b, y);
	printf("dense_relu %dx%d . %dx%d: %d of %d elements wrong\n",
		M, K, K, N, wrong, M * N);
	return wrong != 0;
}

int main(void)
{
	ein_ctx *ctx = ein_ctx_alloc();
	ein_program *prog = ctx ? ein_program_parse(ctx, source,
		"dense_relu.ein") : NULL;
	ein_kernel *k = prog ? ein_kernel_compile(prog, "dense_relu") : NULL;
	int status = 1;

	if (!k)
		fprintf(stderr, "%s", ctx ? ein_ctx_last_error(ctx) :
			"out of memory\n");
	else
		status = run(ctx, k);
	ein_kernel_free(k);
	ein_program_free(prog);
	ein_ctx_free(ctx);
	return status;
}
