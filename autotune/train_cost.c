/*
 * train_cost.c: train the cost model (src/sched/cost.h) on tuning logs.
 *
 *   autotune/train_cost [-T TARGET] [-o DIR] [-c INC] [-t TSV] LOG...
 *
 * One model per target (TARGET: x86_64-avx512, the default, or
 * x86_64-avx2): the logs measured on another target are left out, so
 * that one machine's times never blur another's (trained together, the
 * AVX2 logs of 2026-12-04 made the AVX-512 runs' held-out top-1 regret
 * 1.7x -> 4.5x; docs/tuning.md).  Each log (ein tune --log;
 * autotune/corpus/) names the definition's file, the sizes and the
 * target in its start record, and holds every
 * measured trial with its schedule.  Each trial that ran becomes a row:
 * the features of its schedule (sched/features.h), computed afresh from
 * the definition, and the label log2(seconds per flop).  The logs are
 * split by run, every fourth (in the order given) held out; XGBoost
 * (libxgboost's C API, one thread, exact splits: deterministic) fits
 * regression trees on the others.  Then it writes
 *
 *   DIR/cost_model.json   the trees, readable (default autotune/model;
 *                         cost_model.x86_64-avx2.json for AVX2);
 *   INC                   the same numbers as C tables for libein
 *                         (default src/sched/cost_model.inc, for AVX2
 *                         src/sched/cost_model_avx2.inc);
 *   TSV                   held-out rows: features and XGBoost's
 *                         prediction, which tests/unit/check_cost
 *                         compares with ein's evaluator (default
 *                         tests/unit/cost_heldout.tsv, for AVX2
 *                         tests/unit/cost_heldout_avx2.tsv);
 *
 * and prints the ranking quality on the held-out runs: Kendall's tau
 * between predicted and measured times within each run, and the top-1
 * regret (the measured time of the trial the model ranks first over the
 * run's best).  docs/tuning.md "The cost model" says how to rerun it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <xgboost/c_api.h>
#include "ein.h"
#include "diag.h"
#include "driver/pipeline.h"
#include "sched/file.h"
#include "sched/features.h"
#include "autotune/measure.h"
#include "autotune/tunelog.h"

#define MODEL_VERSION 2
#define N_ROUND 100
#define MAX_DEPTH "5"
#define ETA "0.15"
#define MAX_HELDOUT_ROWS 200

/* A row: the features, the label, the measured time, its run. */
struct row {
	double f[EIN_FEATURES_N];
	double label;
	double seconds;
	int run;
};

/* All rows; n_run runs, run i held out when held[i]. */
struct data {
	int n, cap;
	struct row *row;
	int n_run;
	int *held;
	char **names;
	int n_feature;
};

/* A target's model: the target (-T), its C name in the tables (cost.c
 * picks the model by the target's vector registers), the features it
 * learns from (the first n_feature; the others are held at 0, so no tree
 * splits on them), and where its files go by default.  AVX-512's stops
 * before acc_registers: with it, the same AVX-512 logs give trees that
 * change the automatic schedule's AVX-512 GEMM slices (12 x 32, slice
 * 256 -> 128 at 512^3 to 2048^3), which no AVX-512 machine has measured
 * yet; without it, they are the trees of model version 1, byte for byte
 * (2026-12-04, docs/tuning.md).  The first is the default. */
struct target_model {
	const char *target;
	const char *name;
	int n_feature;
	const char *json, *inc, *tsv;
};

static const struct target_model models[] = {
	{ "x86_64-avx512", "model_avx512", EIN_FEATURE_ACC_REGISTERS,
	  "cost_model.json", "src/sched/cost_model.inc",
	  "tests/unit/cost_heldout.tsv" },
	{ "x86_64-avx2", "model_avx2", EIN_FEATURES_N,
	  "cost_model.x86_64-avx2.json", "src/sched/cost_model_avx2.inc",
	  "tests/unit/cost_heldout_avx2.tsv" },
};

/* The model of "target", NULL for a target that has none. */
static const struct target_model *target_model(const char *target)
{
	size_t i;

	for (i = 0; i < sizeof(models) / sizeof(*models); ++i)
		if (!strcmp(models[i].target, target))
			return &models[i];
	return NULL;
}

static int add_row(struct data *d, const struct row *r)
{
	if (d->n == d->cap) {
		int cap = d->cap ? 2 * d->cap : 1024;
		struct row *grown = realloc(d->row, cap * sizeof(*grown));

		if (!grown)
			return -1;
		d->row = grown;
		d->cap = cap;
	}
	d->row[d->n++] = *r;
	return 0;
}

/* "M=256,K=256,N=256" into sizes[] in func's order. */
static int parse_sizes(const struct ein_func *func, const char *text,
	int64_t *sizes)
{
	char *copy = strdup(text), *tok, *save = NULL;
	int n = 0;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int pos;

		if (!eq)
			break;
		*eq = '\0';
		pos = ein_func_find_size(func, tok);
		if (pos < 0)
			break;
		sizes[pos] = strtoll(eq + 1, NULL, 10);
		++n;
	}
	free(copy);
	return n == func->n_size ? 0 : -1;
}

/* The row of trial "t" of a run of "func", or -1 if its schedule does
 * not apply (it ran under another ein) or has no time. */
static int trial_row(ein_ctx *ctx, const struct ein_func *func,
	const struct ein_tunelog_trial *t, const int64_t *sizes,
	const char *target, struct row *r)
{
	struct ein_diag_mark mark = ein_diag_get_mark(ctx);
	struct ein_sched_file *file;
	char *text = NULL;
	int ok = -1;

	if (t->status != EIN_TRIAL_OK || !(t->seconds > 0) || !t->schedule)
		return -1;
	if (asprintf(&text, "ein-schedule 1\ndef %s\n%s", func->def->name,
			t->schedule) < 0)
		return -1;
	file = ein_sched_file_parse(ctx, ein_src_alloc("(log)", text));
	free(text);
	if (file && ein_features_compute(ctx, func, file, sizes, target, 0,
			r->f) == 0) {
		double flops = exp2(r->f[EIN_FEATURE_LOG_FLOPS]) - 1;

		r->seconds = t->seconds;
		r->label = log2(t->seconds / (flops > 0 ? flops : 1));
		ok = 0;
	}
	ein_sched_file_free(file);
	free(ein_diag_rollback(ctx, mark));
	return ok;
}

/* The definition "name" of checked file "cf", NULL if none. */
static const struct ein_func *find_func(struct ein_checked_file *cf,
	const char *name)
{
	int i;

	for (i = 0; i < cf->n_func; ++i)
		if (!strcmp(cf->func[i]->def->name, name))
			return cf->func[i];
	return NULL;
}

/* Add the rows of the log at "path" as run d->n_run, if it was measured
 * on "target" (a model learns one target's times; a log of another is
 * left out, with a note). */
static int load_run(ein_ctx *ctx, const char *path, const char *target,
	struct data *d)
{
	struct ein_tunelog log;
	struct ein_checked_file *cf = NULL;
	const struct ein_func *func = NULL;
	int64_t sizes[64];
	char err[512];
	int i, n = 0;

	if (ein_tunelog_load(path, &log, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (strcmp(log.start.target, target)) {
		fprintf(stderr, "%s: measured on %s, not %s: left out\n",
			path, log.start.target, target);
		ein_tunelog_clear(&log);
		return 0;
	}
	cf = ein_frontend(ctx, ein_src_read(ctx, log.start.file));
	func = cf ? find_func(cf, log.start.def) : NULL;
	if (!func || func->n_size > 64 ||
	    parse_sizes(func, log.start.sizes, sizes) < 0) {
		fprintf(stderr, "%s: error: definition '%s' of %s at %s: %s\n",
			path, log.start.def, log.start.file, log.start.sizes,
			ein_ctx_last_error(ctx));
		ein_checked_file_free(cf);
		ein_tunelog_clear(&log);
		return -1;
	}
	for (i = 0; i < log.n_trial; ++i) {
		struct row r;

		if (trial_row(ctx, func, &log.trial[i], sizes,
				log.start.target, &r) < 0)
			continue;
		r.run = d->n_run;
		if (add_row(d, &r) < 0)
			break;
		++n;
	}
	fprintf(stderr, "%s: %d rows\n", path, n);
	d->n_run++;
	ein_checked_file_free(cf);
	ein_tunelog_clear(&log);
	return 0;
}

/* A DMatrix of the rows of "d" that are (held = 1) or are not (0) held
 * out; their positions into idx[], their number into *n. */
static DMatrixHandle matrix(const struct data *d, int held, int *idx, int *n)
{
	float *x = malloc((size_t) (d->n + 1) * EIN_FEATURES_N * sizeof(*x));
	float *y = malloc((size_t) (d->n + 1) * sizeof(*y));
	DMatrixHandle m = NULL;
	int i, j;

	*n = 0;
	for (i = 0; x && y && i < d->n; ++i) {
		if (d->held[d->row[i].run] != held)
			continue;
		for (j = 0; j < EIN_FEATURES_N; ++j)
			x[*n * EIN_FEATURES_N + j] = j < d->n_feature ?
				d->row[i].f[j] : 0;
		y[*n] = d->row[i].label;
		idx[(*n)++] = i;
	}
	if (x && y && XGDMatrixCreateFromMat(x, *n, EIN_FEATURES_N, NAN,
			&m) == 0 &&
	    XGDMatrixSetFloatInfo(m, "label", y, *n) != 0) {
		XGDMatrixFree(m);
		m = NULL;
	}
	free(x);
	free(y);
	return m;
}

/* Train on "train" from base score "base" (the labels' mean). */
static BoosterHandle train(DMatrixHandle train, float base)
{
	BoosterHandle b;
	char base_text[32];
	int i, ok;

	snprintf(base_text, sizeof(base_text), "%.9g", base);
	if (XGBoosterCreate(&train, 1, &b) != 0)
		return NULL;
	ok = XGBoosterSetParam(b, "objective", "reg:squarederror") == 0 &&
		XGBoosterSetParam(b, "tree_method", "exact") == 0 &&
		XGBoosterSetParam(b, "max_depth", MAX_DEPTH) == 0 &&
		XGBoosterSetParam(b, "eta", ETA) == 0 &&
		XGBoosterSetParam(b, "nthread", "1") == 0 &&
		XGBoosterSetParam(b, "seed", "0") == 0 &&
		XGBoosterSetParam(b, "base_score", base_text) == 0;
	for (i = 0; ok && i < N_ROUND; ++i)
		ok = XGBoosterUpdateOneIter(b, i, train) == 0;
	if (!ok) {
		fprintf(stderr, "xgboost: %s\n", XGBGetLastError());
		XGBoosterFree(b);
		return NULL;
	}
	return b;
}

/* The trees of XGBoost's own JSON model, and its base score. */
static struct json_object *model_trees(struct json_object *root,
	float *base)
{
	struct json_object *learner, *param, *bs, *gb, *model, *trees;

	if (!json_object_object_get_ex(root, "learner", &learner) ||
	    !json_object_object_get_ex(learner, "learner_model_param",
			&param) ||
	    !json_object_object_get_ex(param, "base_score", &bs) ||
	    !json_object_object_get_ex(learner, "gradient_booster", &gb) ||
	    !json_object_object_get_ex(gb, "model", &model) ||
	    !json_object_object_get_ex(model, "trees", &trees))
		return NULL;
	*base = strtof(json_object_get_string(bs), NULL);
	return trees;
}

/* Member "key" of tree "t", an array. */
static struct json_object *tree_array(struct json_object *t, const char *key)
{
	struct json_object *a;

	if (!json_object_object_get_ex(t, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	return a;
}

static int at_int(struct json_object *a, int i)
{
	return json_object_get_int(json_object_array_get_idx(a, i));
}

static float at_float(struct json_object *a, int i)
{
	return (float) json_object_get_double(json_object_array_get_idx(a, i));
}

/* Write tree "t" (XGBoost's form) as a line of the readable file and as
 * C initialisers; *first: the position of its first node in the tables. */
static int write_tree(struct json_object *t, FILE *json, FILE *inc,
	int *first, int last)
{
	struct json_object *l = tree_array(t, "left_children");
	struct json_object *r = tree_array(t, "right_children");
	struct json_object *f = tree_array(t, "split_indices");
	struct json_object *v = tree_array(t, "split_conditions");
	struct json_object *dl = tree_array(t, "default_left");
	int n, i;

	if (!l || !r || !f || !v || !dl)
		return -1;
	n = json_object_array_length(l);
	fprintf(json, "    {\"left\": [");
	for (i = 0; i < n; ++i)
		fprintf(json, "%s%d", i ? ", " : "", at_int(l, i));
	fprintf(json, "], \"right\": [");
	for (i = 0; i < n; ++i)
		fprintf(json, "%s%d", i ? ", " : "", at_int(r, i));
	fprintf(json, "], \"feature\": [");
	for (i = 0; i < n; ++i)
		fprintf(json, "%s%d", i ? ", " : "", at_int(f, i));
	fprintf(json, "], \"default_left\": [");
	for (i = 0; i < n; ++i)
		fprintf(json, "%s%d", i ? ", " : "", at_int(dl, i) != 0);
	fprintf(json, "], \"value\": [");
	for (i = 0; i < n; ++i)
		fprintf(json, "%s%.9g", i ? ", " : "", at_float(v, i));
	fprintf(json, "]}%s\n", last ? "" : ",");
	for (i = 0; i < n; ++i)
		fprintf(inc, "\t{ %d, %d, %d, %d, %.9ef },\n", at_int(f, i),
			at_int(l, i), at_int(r, i), at_int(dl, i) != 0,
			at_float(v, i));
	*first += n;
	return n;
}

/* Write the readable model "tm" to "json" and the C tables to "inc". */
static int write_model(BoosterHandle b, FILE *json, FILE *inc,
	const struct target_model *tm, const char *metrics)
{
	const char *target = tm->target, *name = tm->name;
	int n_feature = tm->n_feature;
	bst_ulong len;
	const char *buf;
	struct json_object *root, *trees;
	float base;
	int i, n_tree, first = 0, *start, r = 0;

	if (XGBoosterSaveModelToBuffer(b, "{\"format\": \"json\"}", &len,
			&buf) != 0)
		return -1;
	root = json_tokener_parse(buf);
	trees = root ? model_trees(root, &base) : NULL;
	if (!trees)
		return json_object_put(root), -1;
	n_tree = json_object_array_length(trees);
	start = calloc(n_tree + 1, sizeof(*start));
	fprintf(json, "{\n  \"format\": \"ein cost model\",\n  \"version\": "
		"%d,\n  \"target\": \"%s\",\n  \"trainer\": "
		"\"autotune/train_cost.c (XGBoost %s, reg:squarederror, "
		"max_depth %s, eta %s, %d rounds)\",\n"
		"  \"label\": \"log2(seconds per flop)\",\n  \"features\": [",
		MODEL_VERSION, target, "1.7", MAX_DEPTH, ETA, N_ROUND);
	for (i = 0; i < EIN_FEATURES_N; ++i)
		fprintf(json, "%s\"%s\"", i ? ", " : "", ein_features_name(i));
	fprintf(json, "],\n  \"features_used\": %d,\n  \"heldout\": %s,\n"
		"  \"base_score\": %.9g,\n  \"trees\": [\n", n_feature, metrics,
		base);
	fprintf(inc, "/* Generated by autotune/train_cost -T %s (the numbers "
		"of\n * autotune/model/%s); do not edit: retrain "
		"(docs/tuning.md). */\n"
		"static const struct node %s_node[] = {\n", target, tm->json,
		name);
	for (i = 0; r >= 0 && i < n_tree; ++i) {
		start[i] = first;
		r = write_tree(json_object_array_get_idx(trees, i), json, inc,
			&first, i == n_tree - 1);
	}
	fprintf(json, "  ]\n}\n");
	fprintf(inc, "};\nstatic const int %s_tree[] = {", name);
	for (i = 0; i < n_tree; ++i)
		fprintf(inc, "%s%s%d", i ? "," : "", i % 12 ? " " : "\n\t",
			start[i]);
	fprintf(inc, "\n};\nstatic const struct model %s = {\n\t%d, "
		"%.9ef, %s_node, %s_tree, %d\n};\n", name, MODEL_VERSION, base,
		name, name, n_tree);
	free(start);
	json_object_put(root);
	return r < 0 ? -1 : 0;
}

/* Kendall's tau of the predictions "p" against the times of the rows
 * idx[0 .. n-1] of run "run" (pairs with equal times left out), and the
 * top-1 regret in *regret.  Returns -2 when the run has no pair. */
static double run_quality(const struct data *d, const int *idx,
	const float *p, int n, int run, double *regret)
{
	double agree = 0, pairs = 0, best = INFINITY, pick = 0;
	float pick_p = INFINITY;
	int a, b;

	for (a = 0; a < n; ++a) {
		const struct row *ra = &d->row[idx[a]];

		if (ra->run != run)
			continue;
		if (ra->seconds < best)
			best = ra->seconds;
		if (p[a] < pick_p)
			pick_p = p[a], pick = ra->seconds;
		for (b = a + 1; b < n; ++b) {
			const struct row *rb = &d->row[idx[b]];
			double dt = ra->seconds - rb->seconds;
			double dp = (double) p[a] - p[b];

			if (rb->run != run || dt == 0)
				continue;
			pairs += 1;
			agree += dp == 0 ? 0 : (dt > 0) == (dp > 0) ? 1 : -1;
		}
	}
	*regret = best < INFINITY ? pick / best : 1;
	return pairs > 0 ? agree / pairs : -2;
}

/* The held-out ranking quality as a JSON object (to free), each run's
 * on stderr. */
static char *quality(const struct data *d, char **names, const int *idx,
	const float *p, int n)
{
	double tau_sum = 0, log_regret = 0, worst = 1;
	int run, n_run = 0, n_rows = 0;
	char *text = NULL;

	for (run = 0; run < d->n_run; ++run) {
		double regret, tau;

		if (!d->held[run])
			continue;
		tau = run_quality(d, idx, p, n, run, &regret);
		if (tau < -1)
			continue;
		fprintf(stderr, "held out: %s: tau %.3f, top-1 %.3fx the best\n",
			names[run], tau, regret);
		tau_sum += tau;
		log_regret += log(regret);
		if (regret > worst)
			worst = regret;
		++n_run;
	}
	n_rows = n;
	if (asprintf(&text, "{\"runs\": %d, \"rows\": %d, \"kendall_tau\": "
			"%.3f, \"top1_over_best_geomean\": %.3f, "
			"\"top1_over_best_worst\": %.3f}", n_run, n_rows,
			n_run ? tau_sum / n_run : 0,
			n_run ? exp(log_regret / n_run) : 1, worst) < 0)
		return NULL;
	return text;
}

/* The first held-out rows with XGBoost's predictions, for check_cost. */
static int write_heldout(const char *path, const struct data *d,
	const int *idx, const float *p, int n)
{
	FILE *f = fopen(path, "w");
	int i, j;

	if (!f)
		return -1;
	fprintf(f, "# autotune/train_cost: held-out rows, %d features, then "
		"XGBoost's prediction\n", EIN_FEATURES_N);
	for (i = 0; i < n && i < MAX_HELDOUT_ROWS; ++i) {
		for (j = 0; j < EIN_FEATURES_N; ++j)
			fprintf(f, "%.17g\t", d->row[idx[i]].f[j]);
		fprintf(f, "%.9g\n", p[i]);
	}
	return fclose(f);
}

/* Open "path" for writing, or say why not. */
static FILE *create(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		perror(path);
	return f;
}

int main(int argc, char **argv)
{
	const char *dir = "autotune/model", *inc_path = NULL, *tsv = NULL;
	const char *target = models[0].target;
	const struct target_model *tm;
	struct data d = { 0 };
	ein_ctx *ctx = ein_ctx_alloc();
	DMatrixHandle tr = NULL, te = NULL;
	BoosterHandle b = NULL;
	int *itr, *ite, ntr = 0, nte = 0, i, opt, r = 1;
	const float *p = NULL;
	bst_ulong np;
	double mean = 0;
	char *metrics = NULL, json_path[4096];
	FILE *json = NULL, *inc = NULL;

	while ((opt = getopt(argc, argv, "T:o:c:t:")) != -1) {
		if (opt == 'T')
			target = optarg;
		else if (opt == 'o')
			dir = optarg;
		else if (opt == 'c')
			inc_path = optarg;
		else if (opt == 't')
			tsv = optarg;
		else
			return 2;
	}
	tm = target_model(target);
	if (optind >= argc || !ctx || !tm) {
		fprintf(stderr, "usage: train_cost [-T TARGET] [-o DIR] [-c INC] "
			"[-t TSV] LOG...\n(TARGET: x86_64-avx512 or "
			"x86_64-avx2)\n");
		return 2;
	}
	d.n_feature = tm->n_feature;
	inc_path = inc_path ? inc_path : tm->inc;
	tsv = tsv ? tsv : tm->tsv;
	d.held = calloc(argc, sizeof(*d.held));
	d.names = calloc(argc, sizeof(*d.names));
	for (i = optind; d.held && d.names && i < argc; ++i) {
		d.held[d.n_run] = d.n_run % 4 == 3;
		d.names[d.n_run] = argv[i];
		if (load_run(ctx, argv[i], target, &d) < 0)
			goto out;
	}
	itr = calloc(d.n + 1, sizeof(*itr));
	ite = calloc(d.n + 1, sizeof(*ite));
	tr = itr && ite ? matrix(&d, 0, itr, &ntr) : NULL;
	te = tr ? matrix(&d, 1, ite, &nte) : NULL;
	for (i = 0; i < ntr; ++i)
		mean += d.row[itr[i]].label / ntr;
	b = te && ntr > 0 ? train(tr, (float) mean) : NULL;
	if (b && XGBoosterPredict(b, te, 0, 0, 0, &np, &p) == 0 &&
	    (int) np == nte)
		metrics = quality(&d, d.names, ite, p, nte);
	snprintf(json_path, sizeof(json_path), "%s/%s", dir, tm->json);
	if (metrics && (json = create(json_path)) && (inc = create(inc_path)) &&
	    write_model(b, json, inc, tm, metrics) == 0 &&
	    write_heldout(tsv, &d, ite, p, nte) == 0) {
		printf("%d training rows, %d held-out rows; held out: %s\n",
			ntr, nte, metrics);
		r = 0;
	}
	if (json)
		fclose(json);
	if (inc)
		fclose(inc);
	free(metrics);
	XGBoosterFree(b);
	XGDMatrixFree(tr);
	XGDMatrixFree(te);
	free(itr);
	free(ite);
out:
	free(d.row);
	free(d.held);
	free(d.names);
	ein_ctx_free(ctx);
	return r;
}
