/*
 * check_graph.c: the graph level's fusion rules and memory planner
 * (src/graph/, docs/onnx.md "The graph level"), on graphs and buffers
 * written by hand.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "graph/ein_graph.h"

/* Do the lifetimes of a and b meet? */
static int meet(const struct ein_graph_buf *a, const struct ein_graph_buf *b)
{
	return a->first <= b->last && b->first <= a->last;
}

/* Check that buffers alive together never share a byte and that every
 * offset is aligned; return the largest sum of the bytes alive during
 * one kernel (a lower bound of any arena). */
static int64_t check_plan(const struct ein_graph_buf *buf, int n,
	int64_t align, int64_t size)
{
	int64_t bound = 0;
	int i, j, k, last = 0;

	for (i = 0; i < n; ++i) {
		ck_assert_int_eq(buf[i].offset % align, 0);
		ck_assert_int_le(buf[i].offset + buf[i].bytes, size);
		if (buf[i].last > last)
			last = buf[i].last;
		for (j = 0; j < i; ++j)
			if (meet(&buf[i], &buf[j]))
				ck_assert_msg(buf[i].offset + buf[i].bytes <=
					buf[j].offset || buf[j].offset +
					buf[j].bytes <= buf[i].offset,
					"buffers %d and %d overlap", i, j);
	}
	for (k = 0; k <= last; ++k) {
		int64_t sum = 0;

		for (i = 0; i < n; ++i)
			if (buf[i].first <= k && k <= buf[i].last)
				sum += buf[i].bytes;
		if (sum > bound)
			bound = sum;
	}
	return bound;
}

/* A chain a -> b -> c -> d: each buffer lives from its kernel to the
 * next.  By hand: a (100) at 0; c (100), never alive with a, at 0 too; b
 * (50), alive with both, above them at 100; d (30), alive with c only,
 * above c at 100.  Peak 150 = a + b, the most alive at once. */
START_TEST(plan_chain_by_hand)
{
	struct ein_graph_buf buf[] = {
		{ 100, 0, 1, -1 }, { 50, 1, 2, -1 }, { 100, 2, 3, -1 },
		{ 30, 3, 4, -1 },
	};

	ck_assert_int_eq(ein_graph_plan(buf, 4, 1), 150);
	ck_assert_int_eq(buf[0].offset, 0);
	ck_assert_int_eq(buf[1].offset, 100);
	ck_assert_int_eq(buf[2].offset, 0);
	ck_assert_int_eq(buf[3].offset, 100);
	ck_assert_int_eq(check_plan(buf, 4, 1, 150), 150);
}
END_TEST

/* A hole: a (100) and c (50) die after kernel 0, b (100) lives on; d
 * (40), alive in kernel 1 only, goes into a's place below b (best fit),
 * not above.  With 64-byte alignment b starts at 128. */
START_TEST(plan_reuses_hole)
{
	struct ein_graph_buf buf[] = {
		{ 100, 0, 0, -1 }, { 100, 0, 2, -1 }, { 50, 0, 0, -1 },
		{ 40, 1, 1, -1 },
	};
	int64_t size = ein_graph_plan(buf, 4, 64);

	ck_assert_int_eq(buf[0].offset, 0);
	ck_assert_int_eq(buf[1].offset, 128);
	ck_assert_int_eq(buf[2].offset, 256);
	ck_assert_int_eq(buf[3].offset, 0);
	ck_assert_int_eq(size, 306);
	check_plan(buf, 4, 64, size);
}
END_TEST

/* Random lifetimes and sizes: no overlap of buffers alive together, and
 * the arena at least the most bytes alive at once. */
START_TEST(plan_random_no_overlap)
{
	struct ein_graph_buf buf[40];
	uint64_t seed = 12345;
	int round, i;

	for (round = 0; round < 200; ++round) {
		int n = 1 + round % 40;
		int64_t size;

		for (i = 0; i < n; ++i) {
			seed = seed * 6364136223846793005ULL + 1;
			buf[i].bytes = 1 + (seed >> 33) % 5000;
			buf[i].first = (seed >> 20) % 12;
			buf[i].last = buf[i].first + (seed >> 12) % 5;
			buf[i].offset = -1;
		}
		size = ein_graph_plan(buf, n, 64);
		ck_assert_int_ge(size, check_plan(buf, n, 64, size));
	}
	ck_assert_int_eq(ein_graph_plan(buf, 0, 64), 0);
}
END_TEST

/* A node "op" reading in[0 .. n_in-1] and writing "out". */
static void node(struct ein_graph *g, const char *name, const char *op,
	int n_in, const int *in, int out)
{
	ck_assert_int_ge(ein_graph_add_node(g, name, op, "", n_in, in, 1,
		&out), 0);
}

/* The nodes of kernel "k" as text (static buffer). */
static const char *nodes_of(struct ein_graph *g, int k)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ein_graph_print_kernel_nodes(g, k, f);
	fclose(f);
	return buf;
}

/* conv + bias + relu; a pool; a reduction after the pool (an anchor:
 * its own kernel) with the elementwise node reading it; a gemm and the
 * output's copy.  Tensors crossing kernels are parameters, the others
 * stay inside. */
START_TEST(fusion_rules)
{
	struct ein_graph *g = ein_graph_alloc("net");
	enum { X, W, B, C, CB, R, P, M, D, W2, G, Y, N };
	static const char *id[] = { "x", "w", "b", "c", "cb", "r", "p", "m",
		"d", "w2", "g", "y" };
	static const enum ein_graph_role role[] = { EIN_GRAPH_INPUT,
		EIN_GRAPH_WEIGHT, EIN_GRAPH_WEIGHT, EIN_GRAPH_TEMP,
		EIN_GRAPH_TEMP, EIN_GRAPH_TEMP, EIN_GRAPH_TEMP, EIN_GRAPH_TEMP,
		EIN_GRAPH_TEMP, EIN_GRAPH_WEIGHT, EIN_GRAPH_TEMP,
		EIN_GRAPH_OUTPUT };
	int i;

	for (i = 0; i < N; ++i)
		ck_assert_int_eq(ein_graph_add_tensor(g, id[i], "float32", "4",
			16, role[i]), i);
	node(g, "conv", "Conv", 2, (int[]) { X, W }, C);
	node(g, "bias", "Add", 2, (int[]) { C, B }, CB);
	node(g, "relu", "Relu", 1, (int[]) { CB }, R);
	node(g, "pool", "MaxPool", 1, (int[]) { R }, P);
	node(g, "mean", "ReduceMean", 1, (int[]) { P }, M);
	node(g, "sub", "Sub", 2, (int[]) { P, M }, D);
	node(g, "fc", "Gemm", 2, (int[]) { D, W2 }, G);
	node(g, "y", "Output", 1, (int[]) { G }, Y);
	ck_assert_int_eq(ein_graph_partition(g), 4);
	ck_assert_str_eq(nodes_of(g, 0), "Conv conv + Add bias + Relu relu");
	ck_assert_str_eq(nodes_of(g, 1), "MaxPool pool");
	ck_assert_str_eq(nodes_of(g, 2), "ReduceMean mean + Sub sub");
	ck_assert_str_eq(nodes_of(g, 3), "Gemm fc + Output y");
	ck_assert_str_eq(ein_graph_kernel_name(g, 2), "net_k2_reducemean");
	/* Kernel 0: x, w, b in; r out (c and cb stay temporaries). */
	ck_assert_int_eq(ein_graph_kernel_n_param(g, 0), 4);
	ck_assert_int_eq(ein_graph_kernel_n_input(g, 0), 3);
	ck_assert_int_eq(ein_graph_kernel_param(g, 0, 3), R);
	/* Kernel 2: p in, d out; m inside. */
	ck_assert_int_eq(ein_graph_kernel_n_param(g, 2), 2);
	ck_assert_int_eq(ein_graph_kernel_param(g, 2, 0), P);
	ck_assert_int_eq(ein_graph_kernel_param(g, 2, 1), D);
	/* r, p, d, g cross kernels: each alive in two kernels, so that
	 * two 16-byte buffers (64-byte aligned) suffice. */
	ck_assert_int_eq(ein_graph_plan_memory(g), 80);
	ck_assert_int_eq(ein_graph_tensor_offset(g, C), -1);
	ck_assert_int_eq(ein_graph_tensor_offset(g, Y), -1);
	ck_assert_int_ne(ein_graph_tensor_offset(g, R),
		ein_graph_tensor_offset(g, P));
	ck_assert_int_eq(ein_graph_tensor_offset(g, R),
		ein_graph_tensor_offset(g, D));
	ein_graph_free(g);
}
END_TEST

/* A softmax or layernorm chain after an elementwise kernel stays in it;
 * after an anchor it starts a kernel of its own. */
START_TEST(fusion_reduction_chain)
{
	struct ein_graph *g = ein_graph_alloc("t");
	int i;

	for (i = 0; i < 6; ++i)
		ein_graph_add_tensor(g, (const char *[]) { "x", "a", "s", "m",
			"n", "y" }[i], "float32", "4", 16,
			i == 0 ? EIN_GRAPH_INPUT : i == 5 ? EIN_GRAPH_OUTPUT :
			EIN_GRAPH_TEMP);
	node(g, "add", "Add", 2, (int[]) { 0, 0 }, 1);
	node(g, "sm", "Softmax", 1, (int[]) { 1 }, 2);
	node(g, "mm", "MatMul", 2, (int[]) { 2, 2 }, 3);
	node(g, "ln", "LayerNormalization", 1, (int[]) { 3 }, 4);
	node(g, "y", "Output", 1, (int[]) { 4 }, 5);
	ck_assert_int_eq(ein_graph_partition(g), 3);
	ck_assert_str_eq(nodes_of(g, 0), "Add add + Softmax sm");
	ck_assert_str_eq(nodes_of(g, 1), "MatMul mm");
	ck_assert_str_eq(nodes_of(g, 2),
		"LayerNormalization ln + Output y");
	ein_graph_free(g);
}
END_TEST

static Suite *graph_suite(void)
{
	Suite *s = suite_create("graph");
	TCase *tc = tcase_create("graph");

	tcase_add_test(tc, plan_chain_by_hand);
	tcase_add_test(tc, plan_reuses_hole);
	tcase_add_test(tc, plan_random_no_overlap);
	tcase_add_test(tc, fusion_rules);
	tcase_add_test(tc, fusion_reduction_chain);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(graph_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
