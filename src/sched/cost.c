/*
 * cost.c: the compiled-in tree ensemble (cost.h).
 */
#include "sched/cost.h"

/* A node of a tree.
 * feature: the feature compared (unused in a leaf);
 * left, right: the children's positions in the tree, -1 in a leaf;
 * default_left: where a missing value goes (never, features are dense,
 *	kept to mirror XGBoost's trees);
 * value: the threshold, or in a leaf its value. */
struct node {
	int feature;
	int left, right;
	int default_left;
	float value;
};

/* A trained ensemble: its version, base score, nodes, each tree's first
 * node in "node", and the number of trees. */
struct model {
	int version;
	float base_score;
	const struct node *node;
	const int *tree;
	int n_tree;
};

/* model_avx512, trained on AVX-512 logs; model_avx2, on AVX2 logs. */
#include "sched/cost_model.inc"
#include "sched/cost_model_avx2.inc"

/* The model for a schedule with features "f": AVX2's for 32-byte vector
 * registers, AVX-512's for the rest (SSE and OpenCL as before there were
 * two: no logs of theirs were measured). */
static const struct model *model_for(const double *f)
{
	return f[EIN_FEATURE_VECTOR_BYTES] == 32 ? &model_avx2 : &model_avx512;
}

int ein_cost_model_version(void)
{
	return model_avx512.version;
}

int ein_cost_model_n_tree(void)
{
	return model_avx512.n_tree < model_avx2.n_tree ? model_avx512.n_tree :
		model_avx2.n_tree;
}

/* The leaf value of the tree whose root is node[0] for features "x". */
static float tree_value(const struct node *node, const float *x)
{
	int k = 0;

	while (node[k].left >= 0)
		k = x[node[k].feature] < node[k].value ? node[k].left :
			node[k].right;
	return node[k].value;
}

double ein_cost_predict(const double *f)
{
	const struct model *m = model_for(f);
	float x[EIN_FEATURES_N], sum = m->base_score;
	int i;

	for (i = 0; i < EIN_FEATURES_N; ++i)
		x[i] = (float) f[i];
	for (i = 0; i < m->n_tree; ++i)
		sum += tree_value(&m->node[m->tree[i]], x);
	return sum;
}
