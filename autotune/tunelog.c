/*
 * tunelog.c: the tuning log (tunelog.h): records built and parsed with
 * json-c, appended with one write() each and fsync'd.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <json-c/json.h>
#include "autotune/measure.h"
#include "autotune/tunelog.h"

/* ---- writing ----------------------------------------------------------- */

int ein_tunelog_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno == EWOULDBLOCK ? EBUSY : errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int ein_tunelog_truncate(int fd, long at)
{
	return ftruncate(fd, at);
}

/* Append "rec" (taken) and a newline to "fd" in one write(), then
 * fsync.  A log (opened O_APPEND) that a write fills only in part (a full
 * disk) is cut back to where it was, so that it still ends with a
 * complete record. */
static int append(int fd, json_object *rec)
{
	const char *text;
	char *line;
	size_t len;
	ssize_t n;
	int r = -1;
	off_t before = lseek(fd, 0, SEEK_END);

	if (!rec)
		return -1;
	text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN |
		JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	line = malloc(len + 2);
	if (line) {
		memcpy(line, text, len);
		line[len] = '\n';
		n = write(fd, line, len + 1);
		r = n == (ssize_t) (len + 1) && fsync(fd) == 0 ? 0 : -1;
		if (n >= 0 && n != (ssize_t) (len + 1)) {
			if (before >= 0 && ftruncate(fd, before) < 0)
				before = -1;	/* the write's error is told */
			errno = n > 0 ? ENOSPC : EIO;
		}
	}
	free(line);
	json_object_put(rec);
	return r;
}

static void add_string(json_object *o, const char *key, const char *v)
{
	if (v)
		json_object_object_add(o, key, json_object_new_string(v));
}

int ein_tunelog_write_start(int fd, const struct ein_tunelog_start *s)
{
	json_object *o = json_object_new_object();

	add_string(o, "record", "start");
	json_object_object_add(o, "format",
		json_object_new_int(EIN_TUNELOG_FORMAT));
	add_string(o, "file", s->file);
	add_string(o, "def", s->def);
	add_string(o, "target", s->target);
	add_string(o, "sizes", s->sizes);
	json_object_object_add(o, "seed", json_object_new_uint64(s->seed));
	add_string(o, "strategy", s->strategy);
	add_string(o, "ein", s->ein);
	add_string(o, "rank_sizes", s->rank_sizes);
	return append(fd, o);
}

int ein_tunelog_write_trial(int fd, const struct ein_tunelog_trial *t)
{
	json_object *o = json_object_new_object();
	json_object *plan = json_object_new_array();
	char rng[32];
	int i;

	for (i = 0; i < t->n_plan; ++i)
		json_object_array_add(plan, json_object_new_int(t->plan[i]));
	snprintf(rng, sizeof(rng), "%016" PRIx64, t->rng);
	add_string(o, "record", "trial");
	json_object_object_add(o, "trial", json_object_new_int(t->trial));
	add_string(o, "origin", t->origin);
	add_string(o, "status", ein_trial_status_name(t->status));
	add_string(o, "schedule", t->schedule);
	json_object_object_add(o, "plan", plan);
	json_object_object_add(o, "seconds",
		json_object_new_double(t->seconds));
	json_object_object_add(o, "gflops", json_object_new_double(t->gflops));
	json_object_object_add(o, "predicted",
		json_object_new_double(t->predicted));
	json_object_object_add(o, "elapsed",
		json_object_new_double(t->elapsed));
	add_string(o, "rng", rng);
	json_object_object_add(o, "checked",
		json_object_new_boolean(t->checked));
	add_string(o, "message", t->message);
	return append(fd, o);
}

int ein_tunelog_write_done(int fd, int trials, int best_trial,
	double best_gflops, double elapsed)
{
	json_object *o = json_object_new_object();

	add_string(o, "record", "done");
	json_object_object_add(o, "trials", json_object_new_int(trials));
	json_object_object_add(o, "best_trial",
		json_object_new_int(best_trial));
	json_object_object_add(o, "best_gflops",
		json_object_new_double(best_gflops));
	json_object_object_add(o, "elapsed", json_object_new_double(elapsed));
	return append(fd, o);
}

/* ---- reading ----------------------------------------------------------- */

/* The reader's state: the path, the current line, the error buffer. */
struct reader {
	const char *path;
	int line;
	char *err;
	int len;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, r->len, "%s:%d: error: ", r->path, r->line);

	char *c;

	va_start(ap, fmt);
	if (n >= 0 && n < r->len)
		vsnprintf(r->err + n, r->len - n, fmt, ap);
	va_end(ap);
	/* The text of a damaged record must not drive the terminal. */
	for (c = r->err; *c; ++c)
		if ((unsigned char) *c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}

/* Field "key" of "o" of json type "type", NULL (after an error) if
 * absent or of another type. */
static json_object *field(struct reader *r, json_object *o, const char *key,
	json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    (!json_object_is_type(v, type) &&
	     !(type == json_type_double && json_object_is_type(v,
		json_type_int)))) {
		fail(r, "record without a valid \"%s\"", key);
		return NULL;
	}
	return v;
}

static char *dup_field(struct reader *r, json_object *o, const char *key)
{
	json_object *v = field(r, o, key, json_type_string);

	return v ? strdup(json_object_get_string(v)) : NULL;
}

static int read_start(struct reader *r, json_object *o,
	struct ein_tunelog_start *s)
{
	json_object *seed = field(r, o, "seed", json_type_int);

	s->file = dup_field(r, o, "file");
	s->def = dup_field(r, o, "def");
	s->target = dup_field(r, o, "target");
	s->sizes = dup_field(r, o, "sizes");
	s->strategy = dup_field(r, o, "strategy");
	s->ein = dup_field(r, o, "ein");
	/* Optional: only a run ranked at reduced sizes has it. */
	if (json_object_object_get_ex(o, "rank_sizes", NULL) &&
	    !(s->rank_sizes = dup_field(r, o, "rank_sizes")))
		return -1;
	if (!seed || !s->file || !s->def || !s->target || !s->sizes ||
	    !s->strategy || !s->ein)
		return -1;
	s->seed = json_object_get_uint64(seed);
	return 0;
}

/* The plan array of a trial record. */
static int read_plan(struct reader *r, json_object *o,
	struct ein_tunelog_trial *t)
{
	json_object *plan = field(r, o, "plan", json_type_array);
	int i;

	if (!plan)
		return -1;
	t->n_plan = (int) json_object_array_length(plan);
	if (t->n_plan > EIN_TUNELOG_MAX_PLAN)
		return fail(r, "plan of %d numbers (at most %d)", t->n_plan,
			EIN_TUNELOG_MAX_PLAN);
	for (i = 0; i < t->n_plan; ++i)
		t->plan[i] = json_object_get_int(
			json_object_array_get_idx(plan, i));
	return 0;
}

static int read_trial(struct reader *r, json_object *o,
	struct ein_tunelog_trial *t)
{
	json_object *n = field(r, o, "trial", json_type_int);
	json_object *st = field(r, o, "status", json_type_string);
	json_object *ck = field(r, o, "checked", json_type_boolean);
	json_object *msg = NULL, *v;
	char *rng;

	int64_t number;

	if (!n || !st || !ck || read_plan(r, o, t) < 0)
		return -1;
	number = json_object_get_int64(n);
	if (number < 1 || number > INT_MAX)
		return fail(r, "trial number %" PRId64 " out of range",
			number);
	t->trial = (int) number;
	t->status = ein_trial_status_from_name(json_object_get_string(st));
	if (t->status < 0)
		return fail(r, "unknown status \"%s\"",
			json_object_get_string(st));
	t->checked = json_object_get_boolean(ck);
	t->origin = dup_field(r, o, "origin");
	t->schedule = dup_field(r, o, "schedule");
	rng = dup_field(r, o, "rng");
	if (!t->origin || !t->schedule || !rng)
		return (free(rng), -1);
	t->rng = strtoull(rng, NULL, 16);
	free(rng);
	if (!(v = field(r, o, "seconds", json_type_double)))
		return -1;
	t->seconds = json_object_get_double(v);
	if (!(v = field(r, o, "gflops", json_type_double)))
		return -1;
	t->gflops = json_object_get_double(v);
	if (!(v = field(r, o, "predicted", json_type_double)))
		return -1;
	t->predicted = json_object_get_double(v);
	if (!(v = field(r, o, "elapsed", json_type_double)))
		return -1;
	t->elapsed = json_object_get_double(v);
	if (json_object_object_get_ex(o, "message", &msg))
		t->message = strdup(json_object_get_string(msg));
	return 0;
}

/* Parse the complete JSON object text[0 .. len), NULL after an error. */
static json_object *parse_line(struct reader *r, const char *text,
	size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = json_tokener_parse_ex(tok, text, (int) len);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);

	json_tokener_free(tok);
	if (!o || e != json_tokener_success || end != len) {
		json_object_put(o);
		fail(r, "not a JSON record: %s", o && e == json_tokener_success
			? "trailing text" : json_tokener_error_desc(e));
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		fail(r, "not a JSON object");
		return NULL;
	}
	return o;
}

/* Add the record of one line to "log". */
static int read_record(struct reader *r, json_object *o,
	struct ein_tunelog *log)
{
	json_object *kind = field(r, o, "record", json_type_string);
	const char *k = kind ? json_object_get_string(kind) : NULL;
	struct ein_tunelog_trial *grown;
	int n;

	if (!k)
		return -1;
	if (r->line == 1 && strcmp(k, "start"))
		return fail(r, "the first record is \"%s\", not \"start\"", k);
	if (!strcmp(k, "start")) {
		if (r->line != 1)
			return fail(r, "a second \"start\" record");
		return read_start(r, o, &log->start);
	}
	if (!strcmp(k, "done")) {
		log->done = 1;
		return 0;
	}
	if (strcmp(k, "trial"))
		return fail(r, "unknown record \"%s\"", k);
	log->done = 0;
	grown = realloc(log->trial, (log->n_trial + 1) * sizeof(*grown));
	if (!grown)
		return fail(r, "out of memory");
	log->trial = grown;
	memset(&grown[log->n_trial], 0, sizeof(*grown));
	if (read_trial(r, o, &grown[log->n_trial]) < 0) {
		ein_tunelog_trial_clear(&grown[log->n_trial]);
		return -1;
	}
	/* Named before the record is cleared (which zeroes its number). */
	n = grown[log->n_trial].trial;
	if (n != log->n_trial + 1) {
		ein_tunelog_trial_clear(&grown[log->n_trial]);
		return fail(r, "trial %d where trial %d was expected (after "
			"trial %d)", n, log->n_trial + 1, log->n_trial);
	}
	grown[log->n_trial].line = r->line;
	log->n_trial++;
	return 0;
}

/* The whole file at "path" (NUL-terminated) and its length. */
static char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(n + 1)) &&
	    fread(buf, 1, n, f) == (size_t) n) {
		buf[n] = '\0';
		*len = n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int ein_tunelog_load(const char *path, struct ein_tunelog *log, char *err,
	int len)
{
	struct reader r = { path, 0, err, len };
	long size = 0, at = 0;
	char *text = slurp(path, &size);

	memset(log, 0, sizeof(*log));
	if (!text) {
		snprintf(err, len, "%s: error: cannot read the log: %s", path,
			strerror(errno));
		return -1;
	}
	while (at < size) {
		char *nl = memchr(text + at, '\n', size - at);
		json_object *o;
		int bad;

		r.line++;
		if (!nl) {
			log->torn = 1;	/* a write cut short: dropped */
			break;
		}
		o = parse_line(&r, text + at, nl - (text + at));
		bad = !o || read_record(&r, o, log) < 0;
		json_object_put(o);
		if (bad) {
			free(text);
			ein_tunelog_clear(log);
			return -1;
		}
		at = nl - text + 1;
	}
	free(text);
	log->good_bytes = at;
	if (r.line == 0 || (r.line == 1 && log->torn)) {
		snprintf(err, len, "%s: error: the log holds no record", path);
		ein_tunelog_clear(log);
		return -1;
	}
	return 0;
}

void ein_tunelog_trial_clear(struct ein_tunelog_trial *t)
{
	free(t->origin);
	free(t->schedule);
	free(t->message);
	memset(t, 0, sizeof(*t));
}

void ein_tunelog_clear(struct ein_tunelog *log)
{
	int i;

	for (i = 0; i < log->n_trial; ++i)
		ein_tunelog_trial_clear(&log->trial[i]);
	free(log->trial);
	free(log->start.file);
	free(log->start.def);
	free(log->start.target);
	free(log->start.sizes);
	free(log->start.strategy);
	free(log->start.ein);
	free(log->start.rank_sizes);
	memset(log, 0, sizeof(*log));
}
