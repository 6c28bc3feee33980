/*
 * ops_nn.c: the neural-network operators as ein statements: convolution
 * and pooling over N-d windows, batch normalisation (inference), Gemm and
 * MatMul, softmax and the reductions.
 *
 * A window operator reads its input at "S * i + D * r - P" along each
 * spatial dimension (stride S, dilation D, padding P before); where the
 * padding makes that position leave the input, the read is guarded
 * (`c ? x(...) : 0`), which ein compiles by index-set splitting.
 */
#include <string.h>
#include "onnx/ops.h"

/* The most spatial dimensions of a window. */
#define MAX_SPATIAL 3

/* A window over the spatial dimensions of a tensor (rank s + 2):
 * in, out: the extents before and after; k, stride, dil: the window;
 * pb, pe: the padding before and after. */
struct window {
	int s;
	int64_t in[MAX_SPATIAL], out[MAX_SPATIAL];
	int64_t k[MAX_SPATIAL], stride[MAX_SPATIAL], dil[MAX_SPATIAL];
	int64_t pb[MAX_SPATIAL], pe[MAX_SPATIAL];
};

/* Read the list attribute "name" of s values into v (default "def"). */
static int window_attr(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const char *name, int s, int64_t *v, int64_t def)
{
	int64_t tmp[2 * MAX_SPATIAL];
	int count, d;

	if (ein_onnx_attr_ints(l, n, name, tmp, &count, 2 * MAX_SPATIAL) < 0)
		return -1;
	if (count && count != s && !(count == 2 * s && !strcmp(name, "pads")))
		return ein_onnx_node_error(l, n, "attribute '%s' has %d values "
			"for %d spatial dimensions", name, count, s);
	for (d = 0; d < (count ? count : s); ++d)
		v[d] = count ? tmp[d] : def;
	if (!count && !strcmp(name, "pads"))
		for (d = 0; d < s; ++d)
			v[s + d] = def;
	return 0;
}

/* The padding auto_pad asks for along dimension d. */
static void auto_pads(struct window *w, int d, int upper)
{
	int64_t out = (w->in[d] + w->stride[d] - 1) / w->stride[d];
	int64_t total = (out - 1) * w->stride[d] + (w->k[d] - 1) * w->dil[d] +
		1 - w->in[d];

	if (total < 0)
		total = 0;
	w->pb[d] = upper ? total / 2 : total - total / 2;
	w->pe[d] = total - w->pb[d];
}

/* Fill "w" for input x (rank s + 2) and kernel extents k[0 .. s-1], from
 * the attributes strides, dilations, pads, auto_pad and ceil_mode. */
static int window_init(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, const int64_t *k, struct window *w)
{
	const char *pad = ein_onnx_node_string(n, "auto_pad", "NOTSET");
	int64_t pads[2 * MAX_SPATIAL];
	int ceil = ein_onnx_node_int(n, "ceil_mode", 0), d;

	w->s = x->rank - 2;
	if (w->s < 1 || w->s > MAX_SPATIAL)
		return ein_onnx_node_error(l, n, "input of rank %d; the importer "
			"supports 1 to %d spatial dimensions", x->rank,
			MAX_SPATIAL);
	for (d = 0; d < w->s; ++d) {
		if (x->dim[2 + d].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x,
				"a window's output extent");
		w->in[d] = x->dim[2 + d].value;
		w->k[d] = k[d];
	}
	if (window_attr(l, n, "strides", w->s, w->stride, 1) < 0 ||
	    window_attr(l, n, "dilations", w->s, w->dil, 1) < 0 ||
	    window_attr(l, n, "pads", w->s, pads, 0) < 0)
		return -1;
	for (d = 0; d < w->s; ++d) {
		int64_t span = (w->k[d] - 1) * w->dil[d] + 1, num;

		if (w->stride[d] < 1 || w->dil[d] < 1 || w->k[d] < 1)
			return ein_onnx_node_error(l, n, "kernel, strides and "
				"dilations must be positive");
		w->pb[d] = pads[d];
		w->pe[d] = pads[w->s + d];
		if (!strcmp(pad, "SAME_UPPER") || !strcmp(pad, "SAME_LOWER"))
			auto_pads(w, d, !strcmp(pad, "SAME_UPPER"));
		else if (!strcmp(pad, "VALID"))
			w->pb[d] = w->pe[d] = 0;
		else if (strcmp(pad, "NOTSET"))
			return ein_onnx_node_error(l, n, "auto_pad '%s' is not "
				"supported", pad);
		num = w->in[d] + w->pb[d] + w->pe[d] - span;
		if (num < 0 || w->pb[d] < 0 || w->pe[d] < 0)
			return ein_onnx_node_error(l, n, "the window (%lld "
				"elements with padding %lld and %lld) does not "
				"fit dimension %d of extent %lld",
				(long long) span, (long long) w->pb[d],
				(long long) w->pe[d], 2 + d,
				(long long) w->in[d]);
		w->out[d] = (ceil ? num + w->stride[d] - 1 : num) /
			w->stride[d] + 1;
		/* A last window that would start in the padding after the
		 * input is dropped (as ONNX and PyTorch do). */
		if (ceil && (w->out[d] - 1) * w->stride[d] >=
				w->in[d] + w->pb[d])
			w->out[d]--;
	}
	return 0;
}

/* The position read along spatial dimension d, into buf: "S * i + D * r
 * - P" with the output index i{2+d} and the window index r{r0 + d}. */
static void window_pos(const struct window *w, int d, int r0, char *buf,
	size_t size)
{
	char s[32] = "", k[32] = "", p[32] = "";

	if (w->stride[d] != 1)
		snprintf(s, sizeof(s), "%lld * ", (long long) w->stride[d]);
	if (w->dil[d] != 1)
		snprintf(k, sizeof(k), "%lld * ", (long long) w->dil[d]);
	if (w->pb[d])
		snprintf(p, sizeof(p), " - %lld", (long long) w->pb[d]);
	snprintf(buf, size, "%si%d + %sr%d%s", s, 2 + d, k, r0 + d, p);
}

/* Does the window leave the input along d (before, after)? */
static int window_low(const struct window *w, int d)
{
	return w->pb[d] > 0;
}

static int window_high(const struct window *w, int d)
{
	return (w->out[d] - 1) * w->stride[d] + (w->k[d] - 1) * w->dil[d] -
		w->pb[d] > w->in[d] - 1;
}

/* Print the guard "pos >= 0 && pos < IN && ..." of the dimensions where
 * the window may leave the input; return 0 if there is none. */
static int print_guard(struct ein_onnx_lower *l, const struct window *w,
	int r0)
{
	char pos[96];
	int d, any = 0;

	for (d = 0; d < w->s; ++d) {
		window_pos(w, d, r0, pos, sizeof(pos));
		if (window_low(w, d))
			fprintf(l->out, "%s%s >= 0", any++ ? " && " : "", pos);
		if (window_high(w, d))
			fprintf(l->out, "%s%s < %lld", any++ ? " && " : "",
				pos, (long long) w->in[d]);
	}
	return any;
}

/* The read of x at the window's positions, channel index "ch". */
static void print_window_read(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *x, const struct window *w, const char *ch,
	int r0)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d;

	strcpy(idx[0], "i0");
	snprintf(idx[1], sizeof(idx[1]), "%s", ch);
	for (d = 0; d < w->s; ++d)
		window_pos(w, d, r0, idx[2 + d], sizeof(idx[2 + d]));
	ein_onnx_print_access(l, x, idx);
}

/* ", rK in 0:k, ..." for the window's reduction indices from r0, and the
 * end of the line. */
static void print_window_ranges(struct ein_onnx_lower *l,
	const struct window *w, int r0)
{
	int d;

	for (d = 0; d < w->s; ++d)
		fprintf(l->out, "%sr%d in 0:%lld", d ? ", " : "", r0 + d,
			(long long) w->k[d]);
	fputc('\n', l->out);
}

/* The output shape of a window operator: N, C, then the window's. */
static void window_shape(struct ein_onnx_tensor *y,
	const struct ein_onnx_tensor *x, struct ein_onnx_dim c,
	const struct window *w)
{
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int d;

	dim[0] = x->dim[0];
	dim[1] = c;
	for (d = 0; d < w->s; ++d)
		dim[2 + d] = ein_onnx_dim_const(w->out[d]);
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
}

/* The channel read by a grouped convolution: output channel i1 of group
 * i1 / mg reads channels g * cg .. g * cg + cg - 1 of x. */
static void conv_channel(int64_t group, int64_t mg, int64_t cg, char *buf,
	size_t size)
{
	if (group == 1)
		snprintf(buf, size, "r0");
	else if (cg == 1)
		snprintf(buf, size, "i1 / %lld", (long long) mg);
	else if (mg == 1)
		snprintf(buf, size, "%lld * i1 + r0", (long long) cg);
	else
		snprintf(buf, size, "%lld * (i1 / %lld) + r0", (long long) cg,
			(long long) mg);
}

/* Check the shapes of a convolution's weights against x and group. */
static int conv_check(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, const struct ein_onnx_tensor *wt,
	const struct ein_onnx_tensor *b, int64_t group)
{
	int64_t m;

	if (ein_onnx_need_float(l, n, x) < 0 ||
	    ein_onnx_need_const_shape(l, n, wt, "a convolution") < 0)
		return -1;
	m = wt->dim[0].value;
	if (wt->rank != x->rank || group < 1 || m % group ||
	    x->dim[1].sym >= 0 ||
	    x->dim[1].value != wt->dim[1].value * group || wt->dtype != x->dtype)
		return ein_onnx_node_error(l, n, "weights '%s' do not match "
			"input '%s' with %lld groups", wt->name, x->name,
			(long long) group);
	if (b && (b->rank != 1 || !ein_onnx_dim_eq(b->dim[0], wt->dim[0]) ||
			b->dtype != x->dtype))
		return ein_onnx_node_error(l, n, "bias '%s' is not a vector of "
			"the %lld output channels", b->name, (long long) m);
	return 0;
}

/* Check a convolution's weights "wt" (and bias "b", if any) against x and
 * group, set up its window "w" from the node's attributes and the
 * weights' spatial extents, and give y its shape.  -1 after an error. */
static int conv_window(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, const struct ein_onnx_tensor *wt,
	const struct ein_onnx_tensor *b, int64_t group,
	struct ein_onnx_tensor *y, struct window *w)
{
	int64_t k[MAX_SPATIAL];
	int d;

	if (conv_check(l, n, x, wt, b, group) < 0)
		return -1;
	for (d = 0; d + 2 < wt->rank && d < MAX_SPATIAL; ++d)
		k[d] = wt->dim[2 + d].value;
	if (window_init(l, n, x, k, w) < 0)
		return -1;
	window_shape(y, x, wt->dim[0], w);
	return 0;
}

/* The read of a convolution's weights: w(i1, r0, r1, ...). */
static void print_weights(struct ein_onnx_lower *l, struct ein_onnx_tensor *wt)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d;

	strcpy(idx[0], "i1");
	for (d = 1; d < wt->rank; ++d)
		snprintf(idx[d], sizeof(idx[d]), "r%d", d - 1);
	ein_onnx_print_access(l, wt, idx);
}

/* Is "w" a window of one element at a stride, without padding (ResNet's
 * downsampling 1 x 1 convolutions)? */
static int is_strided_point(const struct window *w)
{
	int d, strided = 0;

	for (d = 0; d < w->s; ++d) {
		if (w->k[d] != 1 || w->pb[d] || w->pe[d])
			return 0;
		strided |= w->stride[d] != 1;
	}
	return strided;
}

/* Print "sub", the positions of x that a strided window of one element
 * reads, "sub(n, c, o...) = x(n, c, S o...)", and make "w" the window of
 * stride 1 over it that the convolution reads instead.  Read at its
 * stride, every row of x the convolution's tile reads is half unused and
 * read again by each block of output channels; subsampled once, the rows
 * are contiguous (ResNet-50's 256 -> 512 channels at 28 x 28, one
 * thread: 2.99 -> 2.09 ms; docs/performance.md). */
static void print_subsample(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *x, const struct ein_onnx_tensor *y,
	struct window *w, struct ein_onnx_tensor *sub, char *name, size_t size)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d;

	ein_onnx_aux_name(l, y, "sub", name, size);
	*sub = *x;
	sub->id = name;
	window_shape(sub, x, x->dim[1], w);
	ein_onnx_print_lhs(l, sub, "=");
	strcpy(idx[0], "i0");
	strcpy(idx[1], "i1");
	for (d = 0; d < w->s; ++d) {
		snprintf(idx[2 + d], sizeof(idx[2 + d]), "%lld * i%d",
			(long long) w->stride[d], 2 + d);
		w->in[d] = w->out[d];
		w->stride[d] = 1;
	}
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, sub, 0);
}

/* Conv: y(n, m, o...) = sum over c, k... of x(n, group's c, S o + D k -
 * P) w(m, c, k...), then the bias; a strided window of one element reads
 * its input subsampled first (print_subsample). */
int ein_onnx_lower_conv(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *wt = ein_onnx_in(l, n, 1, "W");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 2, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), acc, sub;
	int64_t group = ein_onnx_node_int(n, "group", 1);
	char ch[64], name[256], sub_name[256];
	struct window w;
	int guard;

	if (!x || !wt || !y || conv_window(l, n, x, wt, b, group, y, &w) < 0)
		return -1;
	if (is_strided_point(&w)) {
		print_subsample(l, x, y, &w, &sub, sub_name, sizeof(sub_name));
		x = &sub;
	}
	acc = *y;
	if (b) {
		ein_onnx_aux_name(l, y, "acc", name, sizeof(name));
		acc.id = name;
	}
	conv_channel(group, wt->dim[0].value / group, wt->dim[1].value, ch,
		sizeof(ch));
	ein_onnx_print_lhs(l, &acc, "+=!");
	guard = print_guard(l, &w, 1);
	fputs(guard ? " ? " : "", l->out);
	print_window_read(l, x, &w, ch, 1);
	fputs(" * ", l->out);
	print_weights(l, wt);
	fputs(guard ? " : 0" : "", l->out);
	ein_onnx_print_where(l, y, 1);
	fprintf(l->out, "r0 in 0:%lld, ", (long long) wt->dim[1].value);
	print_window_ranges(l, &w, 1);
	if (!b)
		return 0;
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, &acc, y->rank, y->dim);
	fputs(" + ", l->out);
	fprintf(l->out, "%s(i1)", b->id);
	b->used = 1;
	ein_onnx_print_where(l, y, 0);
	return 0;
}

int ein_onnx_print_qconv_acc(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *wt, struct ein_onnx_tensor *xq, const char *zx,
	struct ein_onnx_tensor *wq, const char *zw,
	struct ein_onnx_tensor *y, const char *acc)
{
	struct ein_onnx_tensor a;
	int64_t group = ein_onnx_node_int(n, "group", 1);
	char ch[64];
	struct window w;
	int guard;

	if (conv_window(l, n, x, wt, NULL, group, y, &w) < 0)
		return -1;
	a = *y;
	a.id = (char *) acc;
	conv_channel(group, wt->dim[0].value / group, wt->dim[1].value, ch,
		sizeof(ch));
	ein_onnx_print_lhs(l, &a, "+=!");
	guard = print_guard(l, &w, 1);
	fputs(guard ? " ? (" : "(", l->out);
	print_window_read(l, xq, &w, ch, 1);
	fprintf(l->out, " - %s) * ", zx);
	fputs(zw ? "(" : "", l->out);
	print_weights(l, wq);
	if (zw)
		fprintf(l->out, " - %s)", zw);
	fputs(guard ? " : 0" : "", l->out);
	ein_onnx_print_where(l, y, 1);
	fprintf(l->out, "r0 in 0:%lld, ", (long long) wt->dim[1].value);
	print_window_ranges(l, &w, 1);
	return 0;
}

/* The extent of the input that window "w" reads along d, counted from
 * the start of the padding: the last window's last element, plus one. */
static int64_t window_span(const struct window *w, int d)
{
	return (w->out[d] - 1) * w->stride[d] + (w->k[d] - 1) * w->dil[d] + 1;
}

/* The shape of the padded copy "p" of the uint8 input "xq" of channels c
 * under window "w": [N, c/4, span..., 4]. */
static void dot4_pad_shape(struct ein_onnx_tensor *p,
	const struct ein_onnx_tensor *xq, int64_t c, const struct window *w)
{
	int d;

	p->rank = w->s + 3;
	p->dim[0] = xq->dim[0];
	p->dim[1] = ein_onnx_dim_const((c + 3) / 4);
	for (d = 0; d < w->s; ++d)
		p->dim[2 + d] = ein_onnx_dim_const(window_span(w, d));
	p->dim[2 + w->s] = ein_onnx_dim_const(4);
}

/* Print the guard of the padded copy: the channel 4 i1 + i{s+2} below c
 * (none with c a multiple of 4, or 0) and each position inside the
 * input; 0 if there is none. */
static int print_pad_guard(struct ein_onnx_lower *l, const struct window *w,
	int64_t c)
{
	int d, any = 0;

	if (c % 4) {
		fprintf(l->out, "4 * i1 + i%d < %lld", 2 + w->s, (long long) c);
		any = 1;
	}
	for (d = 0; d < w->s; ++d) {
		if (w->pb[d])
			fprintf(l->out, "%si%d >= %lld", any++ ? " && " : "",
				2 + d, (long long) w->pb[d]);
		if (window_span(w, d) > w->in[d] + w->pb[d])
			fprintf(l->out, "%si%d < %lld", any++ ? " && " : "",
				2 + d, (long long) (w->in[d] + w->pb[d]));
	}
	return any;
}

/* "P(i0, i1, i..., iq) = guard ? XQ(i0, 4 i1 + iq, i... - pad) : uint8(ZX)":
 * the uint8 input "xq" of c channels copied to [N, c/4, span..., 4] with
 * its zero point in the padding and the channels past c; with c = 0,
 * "P(i0, i1, i...) = guard ? XQ(i0, i1, i... - pad) : uint8(ZX)", the
 * channels as they are, [N, C, span...]. */
static void print_padded_copy(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *xq, int64_t c, int zx, const struct window *w,
	struct ein_onnx_tensor *p)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d, guard;

	ein_onnx_print_lhs(l, p, "=");
	guard = print_pad_guard(l, w, c);
	fputs(guard ? " ? " : "", l->out);
	strcpy(idx[0], "i0");
	if (c)
		snprintf(idx[1], sizeof(idx[1]), "4 * i1 + i%d", 2 + w->s);
	else
		strcpy(idx[1], "i1");
	for (d = 0; d < w->s; ++d)
		snprintf(idx[2 + d], sizeof(idx[2 + d]), w->pb[d] ?
			"i%d - %lld" : "i%d", 2 + d, (long long) w->pb[d]);
	ein_onnx_print_access(l, xq, idx);
	if (guard)
		fprintf(l->out, " : uint8(%d)", zx);
	ein_onnx_print_where(l, p, 0);
}

/* "ACC(...) +=! P(i0, r0, pos..., 0) * WV(r0, r..., i1, 0) + ... (q = 0..3)
 * where ..., r0 in 0:c/4, r... in 0:k": the four-term dot products over
 * the padded copy "p", whose positions have no padding to subtract. */
static void print_dot4_acc(struct ein_onnx_lower *l, struct ein_onnx_tensor *p,
	struct ein_onnx_tensor *wv, const struct window *w,
	struct ein_onnx_tensor *a)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	struct window w0 = *w;
	int d, q;

	for (d = 0; d < w->s; ++d)
		w0.pb[d] = 0;
	ein_onnx_print_lhs(l, a, "+=!");
	for (q = 0; q < 4; ++q) {
		fputs(q ? " + " : "", l->out);
		strcpy(idx[0], "i0");
		strcpy(idx[1], "r0");
		for (d = 0; d < w->s; ++d)
			window_pos(&w0, d, 1, idx[2 + d], sizeof(idx[2 + d]));
		snprintf(idx[2 + w->s], sizeof(idx[2 + w->s]), "%d", q);
		ein_onnx_print_access(l, p, idx);
		fputs(" * ", l->out);
		strcpy(idx[0], "r0");
		for (d = 0; d < w->s; ++d)
			snprintf(idx[1 + d], sizeof(idx[1 + d]), "r%d", 1 + d);
		strcpy(idx[1 + w->s], "i1");
		snprintf(idx[2 + w->s], sizeof(idx[2 + w->s]), "%d", q);
		ein_onnx_print_access(l, wv, idx);
	}
	ein_onnx_print_where(l, a, 1);
	fprintf(l->out, "r0 in 0:");
	ein_onnx_print_dim(l, p->dim[1]);
	fputs(", ", l->out);
	print_window_ranges(l, w, 1);
}

int ein_onnx_print_qconv_dot4(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *wt, struct ein_onnx_tensor *xq, int zx,
	struct ein_onnx_tensor *wv, struct ein_onnx_tensor *y, const char *pad,
	const char *acc)
{
	struct ein_onnx_tensor a, p;
	struct window w;

	if (conv_window(l, n, x, wt, NULL, 1, y, &w) < 0)
		return -1;
	p = *xq;
	p.id = (char *) pad;
	dot4_pad_shape(&p, xq, wt->dim[1].value, &w);
	print_padded_copy(l, xq, wt->dim[1].value, zx, &w, &p);
	a = *y;
	a.id = (char *) acc;
	print_dot4_acc(l, &p, wv, &w, &a);
	return 0;
}

/* The output extents and padding of a ConvTranspose into w (in, k,
 * stride, dil set): from output_shape (with auto_pad's split of the
 * total padding) or from pads and output_padding. */
static int convt_shape(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	struct window *w)
{
	const char *pad = ein_onnx_node_string(n, "auto_pad", "NOTSET");
	int64_t pads[2 * MAX_SPATIAL], opad[MAX_SPATIAL], oshape[MAX_SPATIAL];
	int count, d, same = !strcmp(pad, "SAME_UPPER") ||
		!strcmp(pad, "SAME_LOWER");

	if (window_attr(l, n, "pads", w->s, pads, 0) < 0 ||
	    window_attr(l, n, "output_padding", w->s, opad, 0) < 0 ||
	    ein_onnx_attr_ints(l, n, "output_shape", oshape, &count,
			MAX_SPATIAL) < 0)
		return -1;
	if (count && count != w->s)
		return ein_onnx_node_error(l, n, "output_shape has %d values "
			"for %d spatial dimensions (giving N and C too is not "
			"supported)", count, w->s);
	if (!same && strcmp(pad, "NOTSET") && strcmp(pad, "VALID"))
		return ein_onnx_node_error(l, n, "auto_pad '%s' is not "
			"supported", pad);
	for (d = 0; d < w->s; ++d) {
		int64_t full = w->stride[d] * (w->in[d] - 1) + opad[d] +
			(w->k[d] - 1) * w->dil[d] + 1;

		if (count || same) {
			int64_t out = count ? oshape[d] : w->in[d] * w->stride[d];
			int64_t total = full - out;
			/* total / 2 rounded down, as ONNX's reference does:
			 * an output_shape beyond the full extent gives a
			 * negative padding (outputs no input reaches). */
			int64_t half = total >= 0 ? total / 2 :
				-((1 - total) / 2);

			/* SAME_UPPER puts the odd element of padding at the
			 * end, as ONNX's definition of ConvTranspose says. */
			w->pb[d] = !strcmp(pad, "SAME_UPPER") ? half :
				total - half;
			w->pe[d] = total - w->pb[d];
		} else if (!strcmp(pad, "VALID")) {
			w->pb[d] = w->pe[d] = 0;
		} else {
			w->pb[d] = pads[d];
			w->pe[d] = pads[w->s + d];
		}
		w->out[d] = full - w->pb[d] - w->pe[d];
		if (w->out[d] < 1 ||
		    opad[d] < 0 || (opad[d] >= w->stride[d] &&
				opad[d] >= w->dil[d]))
			return ein_onnx_node_error(l, n, "output extent %lld "
				"(padding %lld and %lld, output_padding %lld) "
				"along spatial dimension %d is not supported",
				(long long) w->out[d], (long long) w->pb[d],
				(long long) w->pe[d], (long long) opad[d], d);
	}
	return 0;
}

/* Where ConvTranspose's output position i{2+d} meets input position
 * "(i + P - D r) / S": into buf, the numerator. */
static void convt_num(const struct window *w, int d, char *buf, size_t size)
{
	char k[32] = "", p[32] = "";

	if (w->dil[d] != 1)
		snprintf(k, sizeof(k), "%lld * ", (long long) w->dil[d]);
	if (w->pb[d])
		snprintf(p, sizeof(p), " + %lld", (long long) w->pb[d]);
	snprintf(buf, size, "i%d%s - %sr%d", 2 + d, p, k, 1 + d);
}

/* ConvTranspose: the gradient of a convolution.  Input position i
 * contributes to output position o = S i + D r - P, so each output sums
 * over the channels of its group and the window positions r those inputs
 * i = (o + P - D r) / S that are whole and inside the input:
 * y(n, m, o...) = sum over c, r... of x(n, g cg + c, (o + P - D r) / S)
 * w(g cg + c, m % mg, r...), with g = m / mg, then the bias. */
int ein_onnx_lower_convtranspose(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *wt = ein_onnx_in(l, n, 1, "W");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 2, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), acc;
	int64_t group = ein_onnx_node_int(n, "group", 1), cg, mg;
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX], num[96], name[256];
	struct window w;
	int d, any = 0;

	if (!x || !wt || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    ein_onnx_need_const_shape(l, n, wt, "a convolution") < 0)
		return -1;
	w.s = x->rank - 2;
	if (w.s < 1 || w.s > MAX_SPATIAL || wt->rank != x->rank)
		return ein_onnx_node_error(l, n, "input of rank %d and weights "
			"of rank %d; the importer supports 1 to %d spatial "
			"dimensions", x->rank, wt->rank, MAX_SPATIAL);
	/* The batch may stay symbolic; channels and extents may not. */
	for (d = 1; d < x->rank; ++d)
		if (x->dim[d].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x,
				"a transposed convolution");
	cg = wt->dim[0].value / (group > 0 ? group : 1);
	mg = wt->dim[1].value;
	if (group < 1 || x->dim[1].value != wt->dim[0].value ||
	    wt->dim[0].value % group || wt->dtype != x->dtype)
		return ein_onnx_node_error(l, n, "weights '%s' do not match "
			"input '%s' with %lld groups", wt->name, x->name,
			(long long) group);
	if (b && (b->rank != 1 || b->dim[0].sym >= 0 ||
			b->dim[0].value != mg * group || b->dtype != x->dtype))
		return ein_onnx_node_error(l, n, "bias '%s' is not a vector of "
			"the %lld output channels", b->name,
			(long long) (mg * group));
	for (d = 0; d < w.s; ++d) {
		w.in[d] = x->dim[2 + d].value;
		w.k[d] = wt->dim[2 + d].value;
	}
	if (window_attr(l, n, "strides", w.s, w.stride, 1) < 0 ||
	    window_attr(l, n, "dilations", w.s, w.dil, 1) < 0)
		return -1;
	for (d = 0; d < w.s; ++d)
		if (w.stride[d] < 1 || w.dil[d] < 1)
			return ein_onnx_node_error(l, n, "strides and "
				"dilations must be positive");
	if (convt_shape(l, n, &w) < 0)
		return -1;
	window_shape(y, x, ein_onnx_dim_const(mg * group), &w);
	acc = *y;
	if (b) {
		ein_onnx_aux_name(l, y, "acc", name, sizeof(name));
		acc.id = name;
	}
	ein_onnx_print_lhs(l, &acc, "+=!");
	/* The guard: the input position is whole, and inside the input. */
	for (d = 0; d < w.s; ++d) {
		int64_t lo = w.pb[d] - (w.k[d] - 1) * w.dil[d];
		int64_t hi = w.out[d] - 1 + w.pb[d];

		convt_num(&w, d, num, sizeof(num));
		if (lo < 0)
			fprintf(l->out, "%s%s >= 0", any++ ? " && " : "", num);
		if (hi > w.stride[d] * (w.in[d] - 1))
			fprintf(l->out, "%s%s <= %lld", any++ ? " && " : "",
				num, (long long) (w.stride[d] * (w.in[d] - 1)));
		if (w.stride[d] > 1)
			fprintf(l->out, "%s(%s) %% %lld == 0",
				any++ ? " && " : "", num,
				(long long) w.stride[d]);
	}
	fputs(any ? " ? " : "", l->out);
	strcpy(idx[0], "i0");
	if (group == 1)
		strcpy(idx[1], "r0");
	else if (mg == 1)
		snprintf(idx[1], sizeof(idx[1]), "%lld * i1 + r0",
			(long long) cg);
	else
		snprintf(idx[1], sizeof(idx[1]), "%lld * (i1 / %lld) + r0",
			(long long) cg, (long long) mg);
	for (d = 0; d < w.s; ++d) {
		convt_num(&w, d, num, sizeof(num));
		if (w.stride[d] > 1)
			snprintf(idx[2 + d], sizeof(idx[2 + d]), "(%s) / %lld",
				num, (long long) w.stride[d]);
		else
			snprintf(idx[2 + d], sizeof(idx[2 + d]), "%s", num);
	}
	ein_onnx_print_access(l, x, idx);
	fputs(" * ", l->out);
	/* w(g cg + c, m % mg, r...): the input channel as x's. */
	if (group == 1)
		strcpy(idx[1], "i1");
	else if (mg == 1)
		strcpy(idx[1], "0");
	else
		snprintf(idx[1], sizeof(idx[1]), "i1 %% %lld", (long long) mg);
	memcpy(idx[0], "r0", 3);
	if (group > 1) {
		if (mg == 1)
			snprintf(idx[0], sizeof(idx[0]), "%lld * i1 + r0",
				(long long) cg);
		else
			snprintf(idx[0], sizeof(idx[0]), "%lld * (i1 / %lld) "
				"+ r0", (long long) cg, (long long) mg);
	}
	for (d = 0; d < w.s; ++d)
		snprintf(idx[2 + d], sizeof(idx[2 + d]), "r%d", 1 + d);
	ein_onnx_print_access(l, wt, idx);
	fputs(any ? " : 0" : "", l->out);
	ein_onnx_print_where(l, y, 1);
	fprintf(l->out, "r0 in 0:%lld, ", (long long) cg);
	print_window_ranges(l, &w, 1);
	if (!b)
		return 0;
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, &acc, y->rank, y->dim);
	fprintf(l->out, " + %s(i1)", b->id);
	b->used = 1;
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The kernel_shape attribute of a pool, with s values. */
static int pool_kernel(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, int64_t *k)
{
	int count;

	if (ein_onnx_attr_ints(l, n, "kernel_shape", k, &count,
			MAX_SPATIAL) < 0)
		return -1;
	if (count != x->rank - 2)
		return ein_onnx_node_error(l, n, "kernel_shape has %d values for "
			"an input of rank %d", count, x->rank);
	if (ein_onnx_out(l, n, 1))
		return ein_onnx_node_error(l, n, "the Indices output is not "
			"supported");
	return 0;
}

/* MaxPool: the largest element of each window; padding never wins (a
 * padded read gives the lowest finite value, and every window holds an
 * element of the input). */
int ein_onnx_lower_maxpool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	int64_t k[MAX_SPATIAL];
	struct window w;
	int guard;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    pool_kernel(l, n, x, k) < 0 || window_init(l, n, x, k, &w) < 0)
		return -1;
	window_shape(y, x, x->dim[1], &w);
	ein_onnx_print_lhs(l, y, "max=!");
	guard = print_guard(l, &w, 0);
	fputs(guard ? " ? " : "", l->out);
	print_window_read(l, x, &w, "i1", 0);
	if (guard)
		fputs(x->dtype == EIN_ONNX_FLOAT ? " : -3.40282347e+38" :
			" : -1.7976931348623157e+308", l->out);
	ein_onnx_print_where(l, y, 1);
	print_window_ranges(l, &w, 0);
	return 0;
}

/* The number of input elements in the window of output index i{2+d}:
 * min(IN, S i - P + K) - max(0, S i - P), as an expression. */
static void print_count(struct ein_onnx_lower *l, const struct window *w,
	int d)
{
	long long s = w->stride[d], p = w->pb[d], k = w->k[d];

	fprintf(l->out, "(min(%lld, %lld * i%d - %lld + %lld) - max(0, %lld * "
		"i%d - %lld))", (long long) w->in[d], s, 2 + d, p, k, s, 2 + d,
		p);
}

/* AveragePool: the sum of each window divided by its size, with the
 * padding (count_include_pad) or without. */
int ein_onnx_lower_avgpool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), acc;
	int incl = ein_onnx_node_int(n, "count_include_pad", 0), guard, d;
	int64_t k[MAX_SPATIAL], size = 1;
	char name[256];
	struct window w;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    pool_kernel(l, n, x, k) < 0 || window_init(l, n, x, k, &w) < 0)
		return -1;
	if (ein_onnx_node_int(n, "ceil_mode", 0))
		return ein_onnx_node_error(l, n, "ceil_mode 1 is not supported "
			"for AveragePool");
	window_shape(y, x, x->dim[1], &w);
	acc = *y;
	ein_onnx_aux_name(l, y, "sum", name, sizeof(name));
	acc.id = name;
	ein_onnx_print_lhs(l, &acc, "+=!");
	guard = print_guard(l, &w, 0);
	fputs(guard ? " ? " : "", l->out);
	print_window_read(l, x, &w, "i1", 0);
	fputs(guard ? " : 0" : "", l->out);
	ein_onnx_print_where(l, y, 1);
	print_window_ranges(l, &w, 0);
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, &acc, y->rank, y->dim);
	for (d = 0; d < w.s; ++d)
		size *= w.k[d];
	if (!guard || incl) {
		fputs(" / ", l->out);
		ein_onnx_print_float(l, size);
	} else {
		for (d = 0; d < w.s; ++d) {
			fputs(d ? " * " : " / (", l->out);
			print_count(l, &w, d);
		}
		fputc(')', l->out);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Does the window read padding anywhere? */
static int qpool_padded(const struct window *w)
{
	int d;

	for (d = 0; d < w->s; ++d)
		if (window_low(w, d) || window_high(w, d))
			return 1;
	return 0;
}

/* The global form of ein_onnx_print_qpool_acc: every spatial position. */
static int print_qglobal_acc(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *x, struct ein_onnx_tensor *xq, int zx,
	struct ein_onnx_tensor *y, const char *acc, int max, int64_t *count)
{
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	struct ein_onnx_tensor a;
	int d;

	if (x->rank < 3)
		return 1;
	for (d = 0, *count = 1; d < x->rank; ++d) {
		if (d >= 2 && x->dim[d].sym >= 0)
			return 1;
		if (d >= 2)
			*count *= x->dim[d].value;
		dim[d] = d < 2 ? x->dim[d] : ein_onnx_dim_const(1);
		snprintf(idx[d], sizeof(idx[d]), d < 2 ? "i%d" : "r%d",
			d < 2 ? d : d - 2);
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
	a = *y;
	a.id = (char *) acc;
	ein_onnx_print_lhs(l, &a, max ? "max=!" : "+=!");
	ein_onnx_print_access(l, xq, idx);
	if (!max)
		fprintf(l->out, " - %d", zx);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* A max pool of window "w" on the uint8 view "xq" that reads padding:
 * the copy "P(i0, i1, i...) = guard ? XQ(i0, i1, i... - pad) : uint8(0)"
 * (print_padded_copy), then "ACC(...) max=! P(i0, i1, S i + D r...)",
 * every window read in place without a guard.  Guarded, the automatic
 * scheduler's pooling rule did not apply and the reads were scalar (or
 * gathers of bytes): ResNet-50's 3x3/2 pool at 112^2, 64 channels, 1.4 to
 * 2.4 ms of CPU a call, against 0.36 ms with the copy (the float pool
 * 0.77; docs/performance.md). */
static int print_qmax_padded(struct ein_onnx_lower *l,
	struct ein_onnx_tensor *xq, const struct window *w,
	struct ein_onnx_tensor *y, const char *acc)
{
	struct ein_onnx_tensor a, p;
	struct window w0 = *w;
	char name[256];
	int d;

	p = *xq;
	ein_onnx_aux_name(l, y, "pad", name, sizeof(name));
	p.id = name;
	p.rank = w->s + 2;
	for (d = 0; d < w->s; ++d)
		p.dim[2 + d] = ein_onnx_dim_const(window_span(w, d));
	print_padded_copy(l, xq, 0, 0, w, &p);
	for (d = 0; d < w->s; ++d)
		w0.pb[d] = 0;
	a = *y;
	a.id = (char *) acc;
	ein_onnx_print_lhs(l, &a, "max=!");
	print_window_read(l, &p, &w0, "i1", 0);
	ein_onnx_print_where(l, y, 1);
	print_window_ranges(l, w, 0);
	return 0;
}

/* The statement of a quantised pool's reduction (quantize.c), on the
 * uint8 view "xq" of x: y's shape set as the float pool sets it, then
 * for MaxPool and GlobalMaxPool "ACC(...) max=! XQ(...)", over a copy
 * of XQ with uint8(0) in its padding where the windows read padding
 * (print_qmax_padded: uint8 0 is the lowest value, and every window
 * holds an element of the input, so the padding never wins: exact), for
 * AveragePool and GlobalAveragePool "ACC(...) +=! guard ? XQ(...) - ZX :
 * 0" (int32; the padding is the real 0) with *count the number the sum
 * is divided by.  1 (nothing written) for an AveragePool whose divisor
 * varies (padding without count_include_pad) or with ceil_mode. */
int ein_onnx_print_qpool_acc(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, struct ein_onnx_tensor *x,
	struct ein_onnx_tensor *xq, int zx, struct ein_onnx_tensor *y,
	const char *acc, int64_t *count)
{
	int global = !strncmp(n->op, "Global", 6), max = !!strstr(n->op, "Max");
	int64_t k[MAX_SPATIAL];
	struct ein_onnx_tensor a;
	struct window w;
	int d, guard;

	if (global)
		return print_qglobal_acc(l, x, xq, zx, y, acc, max, count);
	if (pool_kernel(l, n, x, k) < 0 || window_init(l, n, x, k, &w) < 0)
		return -1;
	for (d = 0, *count = 1; d < w.s; ++d)
		*count *= w.k[d];
	if (!max && (ein_onnx_node_int(n, "ceil_mode", 0) ||
	    (!ein_onnx_node_int(n, "count_include_pad", 0) &&
		qpool_padded(&w))))
		return 1;
	window_shape(y, x, x->dim[1], &w);
	if (max && qpool_padded(&w))
		return print_qmax_padded(l, xq, &w, y, acc);
	a = *y;
	a.id = (char *) acc;
	ein_onnx_print_lhs(l, &a, max ? "max=!" : "+=!");
	guard = print_guard(l, &w, 0);
	fputs(guard ? " ? " : "", l->out);
	print_window_read(l, xq, &w, "i1", 0);
	if (!max)
		fprintf(l->out, " - %d", zx);
	if (guard)
		fputs(max ? " : uint8(0)" : " : 0", l->out);
	ein_onnx_print_where(l, y, 1);
	print_window_ranges(l, &w, 0);
	return 0;
}

/* GlobalAveragePool, GlobalMaxPool: every spatial position reduced, the
 * output keeping extent-1 spatial dimensions. */
int ein_onnx_lower_global_pool(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), acc;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX], name[256];
	int avg = !strcmp(n->op, "GlobalAveragePool"), d;

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0)
		return -1;
	if (x->rank < 3)
		return ein_onnx_node_error(l, n, "input of rank %d has no "
			"spatial dimension", x->rank);
	for (d = 0; d < x->rank; ++d) {
		dim[d] = d < 2 ? x->dim[d] : ein_onnx_dim_const(1);
		snprintf(idx[d], sizeof(idx[d]), d < 2 ? "i%d" : "r%d",
			d < 2 ? d : d - 2);
	}
	ein_onnx_set_shape(y, x->dtype, x->rank, dim);
	acc = *y;
	if (avg) {
		ein_onnx_aux_name(l, y, "sum", name, sizeof(name));
		acc.id = name;
	}
	ein_onnx_print_lhs(l, &acc, avg ? "+=!" : "max=!");
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, y, 0);
	if (!avg)
		return 0;
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, &acc, y->rank, y->dim);
	for (d = 2; d < x->rank; ++d) {
		fputs(d == 2 ? " / (" : " * ", l->out);
		ein_onnx_print_dim(l, x->dim[d]);
	}
	fputc(')', l->out);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* BatchNormalization in inference mode: (x - mean) * (scale / sqrt(var +
 * epsilon)) + B, per channel (dimension 1). */
int ein_onnx_lower_batchnorm(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	static const char *what[] = { "X", "scale", "B", "input_mean",
		"input_var" };
	struct ein_onnx_tensor *in[5], *y = ein_onnx_out(l, n, 0);
	int i;

	for (i = 0; i < 5; ++i)
		if (!(in[i] = ein_onnx_in(l, n, i, what[i])))
			return -1;
	if (!y || ein_onnx_need_float(l, n, in[0]) < 0)
		return -1;
	if (ein_onnx_node_int(n, "training_mode", 0) || ein_onnx_out(l, n, 1))
		return ein_onnx_node_error(l, n, "training mode (and its "
			"running mean and variance outputs) is not supported");
	if (in[0]->rank < 2)
		return ein_onnx_node_error(l, n, "input of rank %d has no "
			"channels", in[0]->rank);
	for (i = 1; i < 5; ++i)
		if (in[i]->rank != 1 ||
		    !ein_onnx_dim_eq(in[i]->dim[0], in[0]->dim[1]) ||
		    in[i]->dtype != in[0]->dtype)
			return ein_onnx_node_error(l, n, "%s '%s' is not a "
				"vector of the input's channels", what[i],
				in[i]->name);
	ein_onnx_set_shape(y, in[0]->dtype, in[0]->rank, in[0]->dim);
	ein_onnx_print_lhs(l, y, "=");
	fputc('(', l->out);
	ein_onnx_print_bcast(l, in[0], y->rank, y->dim);
	fprintf(l->out, " - %s(i1)) * (%s(i1) / sqrt(%s(i1) + ", in[3]->id,
		in[1]->id, in[4]->id);
	ein_onnx_print_float(l, ein_onnx_node_float(n, "epsilon", 1e-5f));
	fprintf(l->out, ")) + %s(i1)", in[2]->id);
	for (i = 1; i < 5; ++i)
		in[i]->used = 1;
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* Gemm: y = alpha * op(A) op(B) + beta * C, op a transposition or not, C
 * broadcast to (M, N). */
int ein_onnx_lower_gemm(struct ein_onnx_lower *l, const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *a = ein_onnx_in(l, n, 0, "A");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 1, "B");
	struct ein_onnx_tensor *c = ein_onnx_in(l, n, 2, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), acc;
	int ta = ein_onnx_node_int(n, "transA", 0);
	int tb = ein_onnx_node_int(n, "transB", 0);
	double alpha = ein_onnx_node_float(n, "alpha", 1);
	double beta = ein_onnx_node_float(n, "beta", 1);
	struct ein_onnx_dim dim[2], cd[EIN_ONNX_MAX_RANK];
	char name[256];
	int rank = 0;

	if (!a || !b || !y || ein_onnx_need_float(l, n, a) < 0)
		return -1;
	if (a->rank != 2 || b->rank != 2 || b->dtype != a->dtype ||
	    !ein_onnx_dim_eq(a->dim[ta ? 0 : 1], b->dim[tb ? 1 : 0]))
		return ein_onnx_node_error(l, n, "'%s' and '%s' are not "
			"matrices of matching shapes", a->name, b->name);
	dim[0] = a->dim[ta ? 1 : 0];
	dim[1] = b->dim[tb ? 0 : 1];
	ein_onnx_set_shape(y, a->dtype, 2, dim);
	if (c && (ein_onnx_broadcast(l, n, y, c, &rank, cd) < 0 || rank != 2 ||
			!ein_onnx_dim_eq(cd[0], dim[0]) ||
			!ein_onnx_dim_eq(cd[1], dim[1])))
		return c && rank == 2 ? ein_onnx_node_error(l, n, "C '%s' does "
			"not broadcast to the result", c->name) : -1;
	acc = *y;
	if (c || alpha != 1) {
		ein_onnx_aux_name(l, y, "mm", name, sizeof(name));
		acc.id = name;
	}
	ein_onnx_print_lhs(l, &acc, "+=!");
	fprintf(l->out, ta ? "%s(r0, i0)" : "%s(i0, r0)", a->id);
	fprintf(l->out, tb ? " * %s(i1, r0)" : " * %s(r0, i1)", b->id);
	a->used = b->used = 1;
	ein_onnx_print_where(l, y, 0);
	if (!c && alpha == 1)
		return 0;
	ein_onnx_print_lhs(l, y, "=");
	if (alpha != 1) {
		ein_onnx_print_float(l, alpha);
		fputs(" * ", l->out);
	}
	ein_onnx_print_bcast(l, &acc, 2, dim);
	if (c) {
		fputs(" + ", l->out);
		if (beta != 1) {
			ein_onnx_print_float(l, beta);
			fputs(" * ", l->out);
		}
		ein_onnx_print_bcast(l, c, 2, dim);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* MatMul with numpy's rules: a vector operand gets a dimension of 1 that
 * the result drops, and the batch dimensions broadcast. */
int ein_onnx_lower_matmul(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *a = ein_onnx_in(l, n, 0, "A");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 1, "B");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0);
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char ia[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX], ib[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int ba, bb, nb, rank, d, im, in;

	if (!a || !b || !y || ein_onnx_need_float(l, n, a) < 0)
		return -1;
	ba = a->rank > 2 ? a->rank - 2 : 0;
	bb = b->rank > 2 ? b->rank - 2 : 0;
	nb = ba > bb ? ba : bb;
	if (!a->rank || !b->rank || b->dtype != a->dtype ||
	    !ein_onnx_dim_eq(a->dim[a->rank - 1],
			b->dim[b->rank > 1 ? b->rank - 2 : 0]))
		return ein_onnx_node_error(l, n, "'%s' and '%s' do not have "
			"matching inner dimensions", a->name, b->name);
	for (d = 0; d < nb; ++d) {
		int da = d - (nb - ba), db = d - (nb - bb);
		struct ein_onnx_dim x = da >= 0 ? a->dim[da] :
			ein_onnx_dim_const(1);
		struct ein_onnx_dim z = db >= 0 ? b->dim[db] :
			ein_onnx_dim_const(1);

		if (!(x.sym < 0 && x.value == 1) && !(z.sym < 0 &&
				z.value == 1) && !ein_onnx_dim_eq(x, z))
			return ein_onnx_node_error(l, n, "the batch dimensions "
				"of '%s' and '%s' do not broadcast", a->name,
				b->name);
		dim[d] = x.sym < 0 && x.value == 1 ? z : x;
		if (da >= 0)
			snprintf(ia[da], EIN_ONNX_IDX, x.sym < 0 && x.value == 1 &&
				!ein_onnx_dim_eq(x, dim[d]) ? "0" : "i%d", d);
		if (db >= 0)
			snprintf(ib[db], EIN_ONNX_IDX, z.sym < 0 && z.value == 1 &&
				!ein_onnx_dim_eq(z, dim[d]) ? "0" : "i%d", d);
	}
	rank = nb;
	im = a->rank > 1 ? rank++ : -1;
	in = b->rank > 1 ? rank++ : -1;
	if (im >= 0) {
		dim[im] = a->dim[a->rank - 2];
		snprintf(ia[a->rank - 2], EIN_ONNX_IDX, "i%d", im);
	}
	snprintf(ia[a->rank - 1], EIN_ONNX_IDX, "r0");
	if (in >= 0) {
		dim[in] = b->dim[b->rank - 1];
		snprintf(ib[b->rank - 2], EIN_ONNX_IDX, "r0");
		snprintf(ib[b->rank - 1], EIN_ONNX_IDX, "i%d", in);
	} else {
		snprintf(ib[0], EIN_ONNX_IDX, "r0");
	}
	ein_onnx_set_shape(y, a->dtype, rank, dim);
	ein_onnx_print_lhs(l, y, "+=!");
	ein_onnx_print_access(l, a, ia);
	fputs(" * ", l->out);
	ein_onnx_print_access(l, b, ib);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The reduced dimensions of a softmax: the axis (opset 13 and later), or
 * every dimension from the axis on (earlier opsets). */
static int softmax_axes(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, int *red)
{
	int64_t a = ein_onnx_node_int(n, "axis", l->g->opset >= 13 ? -1 : 1);
	int axis = ein_onnx_axis(l, n, a, x->rank), d;

	if (axis < 0)
		return -1;
	for (d = 0; d < x->rank; ++d)
		red[d] = d == axis || (l->g->opset < 13 && d > axis);
	return 0;
}

/* A reduction over the dimensions red[] of x: the aux tensor "name" of
 * the kept dimensions, "op" of f(x), where "pre"/"post" wrap x's read. */
static void print_reduce(struct ein_onnx_lower *l, const char *name,
	const char *op, struct ein_onnx_tensor *x, const int *red,
	const char *pre, const char *post)
{
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX];
	int d, k = 0, any = 0;

	fprintf(l->out, "    %s(", name);
	for (d = 0; d < x->rank; ++d)
		if (!red[d])
			fprintf(l->out, "%si%d", any++ ? ", " : "", d);
	fprintf(l->out, ") %s %s", op, pre);
	for (d = 0; d < x->rank; ++d) {
		if (red[d])
			snprintf(idx[d], EIN_ONNX_IDX, "r%d", k++);
		else
			snprintf(idx[d], EIN_ONNX_IDX, "i%d", d);
	}
	ein_onnx_print_access(l, x, idx);
	fputs(post, l->out);
	for (d = 0, any = 0; d < x->rank; ++d)
		if (!red[d]) {
			fprintf(l->out, "%si%d in 0:", any++ ? ", " : " where ",
				d);
			ein_onnx_print_dim(l, x->dim[d]);
		}
	fputc('\n', l->out);
}

/* The read of aux tensor "name" of the kept dimensions, for an element
 * of x indexed i0, i1, ... */
static void print_kept(struct ein_onnx_lower *l, const char *name,
	const struct ein_onnx_tensor *x, const int *red)
{
	int d, any = 0;

	fprintf(l->out, "%s(", name);
	for (d = 0; d < x->rank; ++d)
		if (!red[d])
			fprintf(l->out, "%si%d", any++ ? ", " : "", d);
	fputc(')', l->out);
}

/* Softmax and LogSoftmax, shifted by the maximum: m = max x, e = exp(x -
 * m), s = sum e; y = e / s, or x - m - log(s). */
int ein_onnx_lower_softmax(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "input");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), e;
	int red[EIN_ONNX_MAX_RANK], log = !strcmp(n->op, "LogSoftmax");
	char m[256], s[256], en[256];

	if (!x || !y || ein_onnx_need_float(l, n, x) < 0 ||
	    softmax_axes(l, n, x, red) < 0)
		return -1;
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_aux_name(l, y, "max", m, sizeof(m));
	ein_onnx_aux_name(l, y, "exp", en, sizeof(en));
	ein_onnx_aux_name(l, y, "sum", s, sizeof(s));
	e = *y;
	e.id = en;
	print_reduce(l, m, "max=!", x, red, "", "");
	ein_onnx_print_lhs(l, &e, "=");
	fputs("exp(", l->out);
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	fputs(" - ", l->out);
	print_kept(l, m, x, red);
	fputc(')', l->out);
	ein_onnx_print_where(l, y, 0);
	print_reduce(l, s, "+=!", &e, red, "", "");
	ein_onnx_print_lhs(l, y, "=");
	if (log) {
		ein_onnx_print_bcast(l, x, y->rank, y->dim);
		fputs(" - ", l->out);
		print_kept(l, m, x, red);
		fputs(" - log(", l->out);
		print_kept(l, s, x, red);
		fputc(')', l->out);
	} else {
		ein_onnx_print_bcast(l, &e, y->rank, y->dim);
		fputs(" / ", l->out);
		print_kept(l, s, x, red);
	}
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* The reduced axes of a Reduce* node (attribute, or constant input 1 from
 * opset 18, and ReduceSum's from 13) into red[]. */
static int reduce_axes(struct ein_onnx_lower *l, const struct ein_onnx_node *n,
	const struct ein_onnx_tensor *x, int *red)
{
	struct ein_onnx_tensor *at = ein_onnx_in(l, n, 1, NULL);
	int64_t axes[EIN_ONNX_MAX_RANK];
	int count, d, a;

	if (at ? ein_onnx_const_ints(l, n, at, "axes", axes, &count,
			EIN_ONNX_MAX_RANK) < 0 :
		 ein_onnx_attr_ints(l, n, "axes", axes, &count,
			EIN_ONNX_MAX_RANK) < 0)
		return -1;
	for (d = 0; d < x->rank; ++d)
		red[d] = count == 0 &&
			!ein_onnx_node_int(n, "noop_with_empty_axes", 0);
	for (d = 0; d < count; ++d) {
		if ((a = ein_onnx_axis(l, n, axes[d], x->rank)) < 0)
			return -1;
		red[a] = 1;
	}
	return 0;
}

/* ReduceSum, ReduceMean, ReduceMax, ReduceMin over constant axes. */
int ein_onnx_lower_reduce(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "data");
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), acc;
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	char idx[EIN_ONNX_MAX_RANK][EIN_ONNX_IDX], name[256];
	int red[EIN_ONNX_MAX_RANK], keep = ein_onnx_node_int(n, "keepdims", 1);
	int mean = !strcmp(n->op, "ReduceMean"), d, r = 0, k = 0;
	const char *op = !strcmp(n->op, "ReduceMax") ? "max=!" :
		!strcmp(n->op, "ReduceMin") ? "min=!" : "+=!";

	if (!x || !y || ein_onnx_need_ein_type(l, n, x) < 0 ||
	    reduce_axes(l, n, x, red) < 0)
		return -1;
	for (d = 0; d < x->rank; ++d) {
		if (red[d])
			snprintf(idx[d], EIN_ONNX_IDX, "r%d", k++);
		else
			snprintf(idx[d], EIN_ONNX_IDX, "i%d", r);
		if (!red[d] || keep)
			dim[r++] = red[d] ? ein_onnx_dim_const(1) : x->dim[d];
	}
	ein_onnx_set_shape(y, x->dtype, r, dim);
	acc = *y;
	if (mean) {
		ein_onnx_aux_name(l, y, "sum", name, sizeof(name));
		acc.id = name;
	}
	ein_onnx_print_lhs(l, &acc, op);
	ein_onnx_print_access(l, x, idx);
	ein_onnx_print_where(l, y, 0);
	if (!mean)
		return 0;
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, &acc, y->rank, y->dim);
	for (d = 0, k = 0; d < x->rank; ++d)
		if (red[d]) {
			fputs(k++ ? " * " : " / (", l->out);
			ein_onnx_print_dim(l, x->dim[d]);
		}
	fputs(k ? ")" : " / 1", l->out);
	ein_onnx_print_where(l, y, 0);
	return 0;
}

/* LayerNormalization's optional outputs Mean and InvStdDev, of x's
 * shape with the normalised dimensions 1: the mean "m" and 1 / sqrt(v /
 * count + epsilon) from the sum of squares "v". */
static int layernorm_stats(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n, const struct ein_onnx_tensor *x,
	const int *red, const char *m, const char *v, int64_t count)
{
	struct ein_onnx_dim dim[EIN_ONNX_MAX_RANK];
	int k, d;

	for (d = 0; d < x->rank; ++d)
		dim[d] = red[d] ? ein_onnx_dim_const(1) : x->dim[d];
	for (k = 1; k <= 2; ++k) {
		struct ein_onnx_tensor *o = ein_onnx_out(l, n, k);

		if (!o)
			continue;
		ein_onnx_set_shape(o, x->dtype, x->rank, dim);
		ein_onnx_print_lhs(l, o, "=");
		if (k == 1) {
			print_kept(l, m, x, red);
		} else {
			fputs("1 / sqrt(", l->out);
			print_kept(l, v, x, red);
			fprintf(l->out, " / %lld + ", (long long) count);
			ein_onnx_print_float(l, ein_onnx_node_float(n,
				"epsilon", 1e-5f));
			fputc(')', l->out);
		}
		ein_onnx_print_where(l, o, 0);
	}
	return 0;
}

/* LayerNormalization (opset 17): over the dimensions from the axis on,
 * d = x - mean(x), y = d / sqrt(mean(d * d) + epsilon) * Scale + B. */
int ein_onnx_lower_layernorm(struct ein_onnx_lower *l,
	const struct ein_onnx_node *n)
{
	struct ein_onnx_tensor *x = ein_onnx_in(l, n, 0, "X");
	struct ein_onnx_tensor *sc = ein_onnx_in(l, n, 1, "Scale");
	struct ein_onnx_tensor *b = ein_onnx_in(l, n, 2, NULL);
	struct ein_onnx_tensor *y = ein_onnx_out(l, n, 0), dt, sq;
	int red[EIN_ONNX_MAX_RANK], axis, d;
	char s[256], m[256], dn[256], qn[256], v[256];
	int64_t count = 1;

	if (!x || !sc || !y || ein_onnx_need_float(l, n, x) < 0)
		return -1;
	if ((axis = ein_onnx_axis(l, n, ein_onnx_node_int(n, "axis", -1),
			x->rank)) < 0)
		return -1;
	for (d = 0; d < x->rank; ++d) {
		red[d] = d >= axis;
		if (red[d] && x->dim[d].sym >= 0)
			return ein_onnx_need_const_shape(l, n, x,
				"normalising");
		count *= red[d] ? x->dim[d].value : 1;
	}
	if (sc->rank > x->rank - axis || (b && b->rank > x->rank - axis))
		return ein_onnx_node_error(l, n, "Scale or B has more "
			"dimensions than are normalised");
	ein_onnx_set_shape(y, x->dtype, x->rank, x->dim);
	ein_onnx_aux_name(l, y, "sum", s, sizeof(s));
	ein_onnx_aux_name(l, y, "mean", m, sizeof(m));
	ein_onnx_aux_name(l, y, "dev", dn, sizeof(dn));
	ein_onnx_aux_name(l, y, "sq", qn, sizeof(qn));
	ein_onnx_aux_name(l, y, "var", v, sizeof(v));
	dt = sq = *y;
	dt.id = dn;
	sq.id = qn;
	print_reduce(l, s, "+=!", x, red, "", "");
	fprintf(l->out, "    %s", m);
	print_kept(l, "", x, red);
	fputs(" = ", l->out);
	print_kept(l, s, x, red);
	fprintf(l->out, " / %lld", (long long) count);
	for (d = 0; d < x->rank; ++d)
		if (!red[d]) {
			fprintf(l->out, "%si%d in 0:", d ? ", " : " where ", d);
			ein_onnx_print_dim(l, x->dim[d]);
		}
	fputc('\n', l->out);
	ein_onnx_print_lhs(l, &dt, "=");
	ein_onnx_print_bcast(l, x, y->rank, y->dim);
	fputs(" - ", l->out);
	print_kept(l, m, x, red);
	ein_onnx_print_where(l, y, 0);
	ein_onnx_print_lhs(l, &sq, "=");
	ein_onnx_print_bcast(l, &dt, y->rank, y->dim);
	fputs(" * ", l->out);
	ein_onnx_print_bcast(l, &dt, y->rank, y->dim);
	ein_onnx_print_where(l, y, 0);
	print_reduce(l, v, "+=!", &sq, red, "", "");
	ein_onnx_print_lhs(l, y, "=");
	ein_onnx_print_bcast(l, &dt, y->rank, y->dim);
	fputs(" / sqrt(", l->out);
	print_kept(l, v, x, red);
	fprintf(l->out, " / %lld + ", (long long) count);
	ein_onnx_print_float(l, ein_onnx_node_float(n, "epsilon", 1e-5f));
	fputs(") * ", l->out);
	ein_onnx_print_bcast(l, sc, y->rank, y->dim);
	if (b) {
		fputs(" + ", l->out);
		ein_onnx_print_bcast(l, b, y->rank, y->dim);
	}
	ein_onnx_print_where(l, y, 0);
	return layernorm_stats(l, n, x, red, m, v, count);
}
