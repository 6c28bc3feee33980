/*
 * tunelog.h: the tuning log, one JSON object per line (json-c).
 *
 *   {"record":"start","format":1,"file":...,"def":...,"target":...,
 *    "sizes":"M=64,N=64,K=64","seed":1,"strategy":"evolve","ein":...,
 *    "rank_sizes":"M=32,N=64,K=64" (only where ranked at reduced sizes)}
 *   {"record":"trial","trial":1,"origin":"default","status":"ok",
 *    "schedule":"C: split i 32\n...","plan":[...],"seconds":...,
 *    "gflops":...,"predicted":...,"elapsed":...,"rng":"...",
 *    "checked":true,"message":...}
 *   {"record":"done","trials":...,"best_trial":...,"best_gflops":...,
 *    "elapsed":...}
 *
 * Each record is appended with one write() to a file opened O_APPEND
 * and flushed to disk (fsync), so a tuner killed at any moment leaves at
 * most a torn last line; a run holds an exclusive lock on its log, so
 * that a second run on the same log is refused rather than interleaved.  The
 * loader tolerates exactly that (it drops a last line without its
 * newline) and reports any other damage with its line number.  A run
 * that ends normally appends a "done" record; a resumed run appends
 * after the last complete line.
 */
#ifndef EIN_AUTOTUNE_TUNELOG_H
#define EIN_AUTOTUNE_TUNELOG_H

#include <stdint.h>

#define EIN_TUNELOG_FORMAT 1
#define EIN_TUNELOG_MAX_PLAN 512

/* The run a log belongs to (its start record); strings owned.
 * rank_sizes: the reduced sizes its candidates are measured at
 * ("rank_sizes", reduce.h), NULL (no such field) if at "sizes". */
struct ein_tunelog_start {
	char *file, *def, *target, *sizes, *strategy, *ein;
	uint64_t seed;
	char *rank_sizes;
};

/* One trial.  schedule, origin, message: owned strings (message may be
 * NULL); status: an enum ein_trial_status; seconds, gflops: -1 unless
 * measured; checked: 1 if compared with the reference interpreter;
 * rng: the generator's state after the trial was generated;
 * line: the log's line that holds it (0 for a trial not read from one). */
struct ein_tunelog_trial {
	int trial;
	int line;
	char *origin;
	int status;
	char *schedule;
	int n_plan;
	int plan[EIN_TUNELOG_MAX_PLAN];
	double seconds, gflops, predicted, elapsed;
	uint64_t rng;
	int checked;
	char *message;
};

/* A loaded log.
 * start: its start record; n_trial, trial: the trials in order;
 * done: 1 if the last record is a completion record;
 * torn: 1 if a torn last line was dropped;
 * good_bytes: the length of the complete lines (where to append). */
struct ein_tunelog {
	struct ein_tunelog_start start;
	int n_trial;
	struct ein_tunelog_trial *trial;
	int done;
	int torn;
	long good_bytes;
};

/* Load the log at "path".  Returns -1 with "PATH:LINE: error: ..." (or
 * "PATH: error: ...") in err on damage other than a torn last line. */
int ein_tunelog_load(const char *path, struct ein_tunelog *log, char *err,
	int len);
void ein_tunelog_clear(struct ein_tunelog *log);
void ein_tunelog_trial_clear(struct ein_tunelog_trial *t);

/* Open (or create) "path" for appending, locked (flock) against every
 * other ein tune until closed: two runs on one log would interleave their
 * records.  Returns a file descriptor, or -1 with errno set: EBUSY if
 * another process holds the log. */
int ein_tunelog_open(const char *path);
/* Cut the open log "fd" to its first "at" bytes (0: a new log; a loaded
 * log's good_bytes to resume); 0 or -1 (errno set). */
int ein_tunelog_truncate(int fd, long at);

/* Append one record; 0 or -1 (errno set). */
int ein_tunelog_write_start(int fd, const struct ein_tunelog_start *s);
int ein_tunelog_write_trial(int fd, const struct ein_tunelog_trial *t);
int ein_tunelog_write_done(int fd, int trials, int best_trial,
	double best_gflops, double elapsed);

#endif
