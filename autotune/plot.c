/*
 * plot.c: "ein tune --plot LOG -o FILE.svg": the best verified GFLOP/s
 * so far against the elapsed time of a tuning log, as a step line in an
 * SVG with axes, ticks and a title.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autotune/measure.h"
#include "autotune/tunelog.h"
#include "autotune/tune.h"

#define W 720
#define H 420
#define LEFT 70
#define RIGHT 20
#define TOP 40
#define BOTTOM 50

/* A "nice" tick step (1, 2 or 5 times a power of ten) for "range". */
static double tick_step(double range)
{
	double p = pow(10, floor(log10(range / 5))), f = range / 5 / p;

	return p * (f < 1.5 ? 1 : f < 3.5 ? 2 : 5);
}

static double px(double t, double tmax)
{
	return LEFT + t / tmax * (W - LEFT - RIGHT);
}

static double py(double g, double gmax)
{
	return H - BOTTOM - g / gmax * (H - TOP - BOTTOM);
}

static void axes(FILE *f, const struct ein_tunelog *log, double tmax,
	double gmax)
{
	double step, v;

	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"16\">ein tune: %s "
		"%s on %s</text>\n", LEFT, log->start.def, log->start.sizes,
		log->start.target);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"black\"/>\n", LEFT, H - BOTTOM, W - RIGHT,
		H - BOTTOM);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"black\"/>\n", LEFT, TOP, LEFT, H - BOTTOM);
	step = tick_step(tmax);
	for (v = 0; v <= tmax + 1e-9; v += step)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
			"text-anchor=\"middle\">%g</text>\n", px(v, tmax),
			H - BOTTOM + 16, v);
	step = tick_step(gmax);
	for (v = 0; v <= gmax + 1e-9; v += step)
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
			"text-anchor=\"end\">%g</text>\n", LEFT - 6,
			py(v, gmax) + 4, v);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" "
		"text-anchor=\"middle\">elapsed (s)</text>\n",
		(W + LEFT) / 2, H - 12);
	fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"12\" "
		"transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
		"best GFLOP/s</text>\n", H / 2, H / 2);
}

/* The step line of the best verified result so far, a dot per trial. */
static void curve(FILE *f, const struct ein_tunelog *log, double tmax,
	double gmax)
{
	double best = 0;
	int i;

	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" "
		"stroke-width=\"2\" points=\"");
	for (i = 0; i < log->n_trial; ++i) {
		const struct ein_tunelog_trial *t = &log->trial[i];

		if (t->status != EIN_TRIAL_OK || !t->checked ||
		    t->gflops <= best)
			continue;
		if (best > 0)
			fprintf(f, "%.1f,%.1f ", px(t->elapsed, tmax),
				py(best, gmax));
		best = t->gflops;
		fprintf(f, "%.1f,%.1f ", px(t->elapsed, tmax), py(best, gmax));
	}
	fprintf(f, "%.1f,%.1f\"/>\n", px(tmax, tmax), py(best, gmax));
	for (i = 0; i < log->n_trial; ++i)
		if (log->trial[i].status == EIN_TRIAL_OK)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" "
				"fill=\"#999\"/>\n",
				px(log->trial[i].elapsed, tmax),
				py(log->trial[i].gflops, gmax));
}

int ein_tune_plot(const char *log_path, const char *svg_path)
{
	struct ein_tunelog log;
	char err[1024];
	double tmax = 1, gmax = 1;
	FILE *f;
	int i;

	if (ein_tunelog_load(log_path, &log, err, sizeof(err)) < 0) {
		fprintf(stderr, "ein tune: %s\n", err);
		return 1;
	}
	for (i = 0; i < log.n_trial; ++i) {
		if (log.trial[i].elapsed > tmax)
			tmax = log.trial[i].elapsed;
		if (log.trial[i].gflops > gmax)
			gmax = log.trial[i].gflops;
	}
	gmax *= 1.1;
	f = fopen(svg_path, "w");
	if (!f) {
		fprintf(stderr, "ein tune: error: cannot write %s\n", svg_path);
		ein_tunelog_clear(&log);
		return 1;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" font-family=\"sans-serif\">\n", W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	axes(f, &log, tmax, gmax);
	curve(f, &log, tmax, gmax);
	fprintf(f, "</svg>\n");
	ein_tunelog_clear(&log);
	return fclose(f) == 0 ? 0 : 1;
}
