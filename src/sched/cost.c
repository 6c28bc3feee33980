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

/* model_version, model_base_score, model_node[], model_tree[] (each
 * tree's first node in model_node), MODEL_N_TREE. */
#include "sched/cost_model.inc"

int ein_cost_model_version(void)
{
	return model_version;
}

int ein_cost_model_n_tree(void)
{
	return MODEL_N_TREE;
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
	float x[EIN_FEATURES_N], sum = model_base_score;
	int i;

	for (i = 0; i < EIN_FEATURES_N; ++i)
		x[i] = (float) f[i];
	for (i = 0; i < MODEL_N_TREE; ++i)
		sum += tree_value(&model_node[model_tree[i]], x);
	return sum;
}
