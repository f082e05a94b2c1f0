// ref: a plain C binary averaged perceptron, the yardstick that
// bench/compare_c.sh times hyperplane's averaged epoch against.
//
// The data is held as CSR with separate int32 index and float32 value
// arrays; the weights w and the averaging accumulator u are float32; the
// dot product is scalar loads (built with -fno-tree-vectorize so that the
// compiler does not turn it into gathers), eight accumulators, the rows
// a few positions ahead prefetched. Each epoch draws a fresh
// uniform shuffle of all rows. On a mistake, y·(w·x+b) <= 0, it adds
// y·x to w and c·y·x to u, where c counts the rows seen so far (from 1);
// the averaged model is w − u/c, exact without touching every weight on
// every row. The bias is a weight on a constant feature 1.
//
// It also times a bare pass, one w·x per row in storage order, the floor
// under any epoch that reads every row once.
//
// Usage: ref [-c] [-r reps] [-e epochs] [-s seed] TRAIN [TEST]
// -c times by the process's CPU time instead of the wall clock.
// TRAIN and TEST are LIBSVM files, gzip-compressed or not (read through
// gzip -dcf, so no zlib is needed). Labels > 0 are the positive class.
// Output, one figure a line, times in ms as median [min-max] over reps:
//   rows=... dim=... nnz=... reps=... epochs=...
//   ref.epoch_ms  M [LO-HI]   (a fit's time divided by its epochs)
//   ref.bare_ms   M [LO-HI]
//   ref.test_acc  A            (with TEST)
//   ref.mistakes  first last
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int rows, dim; // dim: largest index + 1
  size_t nnz, cap, rcap;
  int32_t *ind;
  float *val;
  size_t *ptr; // rows+1 offsets
  int8_t *y;
} csr;

static void die(const char *msg, const char *arg) {
  fprintf(stderr, "ref: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  exit(1);
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 1024;
  while (c < need) c *= 2;
  p = realloc(p, c * elem);
  if (!p) die("out of memory", NULL);
  *cap = c;
  return p;
}

// now reads the wall clock, or with -c the process's CPU time, which on a
// shared machine leaves out the time spent waiting for a core.
static clockid_t clk = CLOCK_MONOTONIC;
static double now(void) {
  struct timespec t;
  clock_gettime(clk, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// readSVM parses a LIBSVM file through gzip -dcf into m.
static void readSVM(const char *path, csr *m) {
  int fd[2];
  if (pipe(fd) != 0) die("pipe", strerror(errno));
  pid_t pid = fork();
  if (pid < 0) die("fork", strerror(errno));
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execlp("gzip", "gzip", "-dcf", "--", path, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  FILE *f = fdopen(fd[0], "r");
  if (!f) die("fdopen", strerror(errno));
  memset(m, 0, sizeof *m);
  size_t pcap = 0, ycap = 0;
  m->ptr = grow(NULL, &pcap, 1, sizeof *m->ptr);
  m->ptr[0] = 0;
  char *line = NULL;
  size_t lcap = 0;
  long lineno = 0;
  size_t icap = 0, vcap = 0;
  while (getline(&line, &lcap, f) >= 0) {
    lineno++;
    char *p = line, *end;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '\n' || *p == '\0' || *p == '#') continue;
    double label = strtod(p, &end);
    if (end == p) {
      fprintf(stderr, "ref: %s:%ld: no label\n", path, lineno);
      exit(1);
    }
    p = end;
    for (;;) {
      while (*p == ' ' || *p == '\t') p++;
      if (*p == '\n' || *p == '\0' || *p == '#') break;
      long idx = strtol(p, &end, 10);
      if (end == p || *end != ':' || idx < 0 || idx > 0x7ffffffe) {
        fprintf(stderr, "ref: %s:%ld: bad feature\n", path, lineno);
        exit(1);
      }
      p = end + 1;
      float v = strtof(p, &end);
      if (end == p) {
        fprintf(stderr, "ref: %s:%ld: bad value\n", path, lineno);
        exit(1);
      }
      p = end;
      m->ind = grow(m->ind, &icap, m->nnz + 1, sizeof *m->ind);
      m->val = grow(m->val, &vcap, m->nnz + 1, sizeof *m->val);
      m->ind[m->nnz] = (int32_t)idx;
      m->val[m->nnz] = v;
      m->nnz++;
      if (idx + 1 > m->dim) m->dim = (int)idx + 1;
    }
    m->y = grow(m->y, &ycap, (size_t)m->rows + 1, sizeof *m->y);
    m->y[m->rows] = label > 0 ? 1 : -1;
    m->rows++;
    m->ptr = grow(m->ptr, &pcap, (size_t)m->rows + 1, sizeof *m->ptr);
    m->ptr[m->rows] = m->nnz;
  }
  free(line);
  fclose(f);
  int st;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) die("gzip -dcf failed on", path);
  if (m->rows == 0) die("no rows in", path);
}

// A small fast generator (splitmix64) and an unbiased bounded draw
// (multiply-shift with rejection).
static uint64_t rs;
static uint64_t next64(void) {
  uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) {
  uint64_t m = (uint64_t)(uint32_t)next64() * n;
  uint32_t lo = (uint32_t)m;
  if (lo < n) {
    uint32_t t = -n % n;
    while (lo < t) {
      m = (uint64_t)(uint32_t)next64() * n;
      lo = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}
static void shuffle(uint32_t *perm, int n) {
  for (int i = n - 1; i > 0; i--) {
    uint32_t j = below((uint32_t)i + 1);
    uint32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

typedef struct {
  float *w, *u, b, ub;
  int64_t c; // rows seen + 1
} model;

// dot is w·x over entries [a, e) with eight independent float32
// accumulators, so that the adds do not wait on one another; the loads
// stay scalar.
static inline float dot(const int32_t *restrict ind, const float *restrict val, const float *restrict w, size_t a, size_t e) {
  float s[8] = {0};
  size_t j = a;
  for (; j + 8 <= e; j += 8)
    for (int k = 0; k < 8; k++) s[k] += w[ind[j + k]] * val[j + k];
  for (; j < e; j++) s[0] += w[ind[j]] * val[j];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// PREFETCH is how many rows ahead of the current one the epoch asks for
// the next rows' entries: in shuffled order each row starts at an
// unpredictable address.
#define PREFETCH 4

// epoch runs one averaged-perceptron pass in the order perm and returns
// the number of mistakes. span holds, per position, the row's entry range,
// gathered first so that the prefetches need no dependent loads.
static long epoch(const csr *X, model *M, const uint32_t *perm, size_t *span) {
  long mistakes = 0;
  float *restrict w = M->w, *restrict u = M->u;
  const int32_t *restrict ind = X->ind;
  const float *restrict val = X->val;
  int n = X->rows;
  for (int k = 0; k < n; k++) {
    span[2 * k] = X->ptr[perm[k]];
    span[2 * k + 1] = X->ptr[perm[k] + 1];
  }
  float b = M->b, ub = M->ub;
  int64_t c = M->c;
  for (int k = 0; k < n; k++) {
    if (k + PREFETCH < n) {
      size_t pa = span[2 * (k + PREFETCH)], pe = span[2 * (k + PREFETCH) + 1];
      for (size_t o = pa; o < pe; o += 16) {
        __builtin_prefetch(ind + o);
        __builtin_prefetch(val + o);
      }
    }
    size_t a = span[2 * k], e = span[2 * k + 1];
    float y = X->y[perm[k]];
    float s = b + dot(ind, val, w, a, e);
    if (y * s <= 0) {
      float cy = (float)c * y;
      for (size_t j = a; j < e; j++) {
        w[ind[j]] += y * val[j];
        u[ind[j]] += cy * val[j];
      }
      b += y;
      ub += cy;
      mistakes++;
    }
    c++;
  }
  M->b = b, M->ub = ub, M->c = c;
  return mistakes;
}

// bare computes w·x for every row in storage order.
static void bare(const csr *X, const float *w, float *out) {
  for (int r = 0; r < X->rows; r++) out[r] = dot(X->ind, X->val, w, X->ptr[r], X->ptr[r + 1]);
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static void summary(const char *name, double *v, int n) {
  qsort(v, n, sizeof *v, cmpd);
  printf("%-14s %.3f [%.3f-%.3f]\n", name, v[n / 2] * 1e3, v[0] * 1e3, v[n - 1] * 1e3);
}

int main(int argc, char **argv) {
  int reps = 5, epochs = 10, opt;
  uint64_t seed = 1;
  while ((opt = getopt(argc, argv, "r:e:s:c")) != -1) {
    switch (opt) {
    case 'r': reps = atoi(optarg); break;
    case 'e': epochs = atoi(optarg); break;
    case 's': seed = strtoull(optarg, NULL, 10); break;
    case 'c': clk = CLOCK_PROCESS_CPUTIME_ID; break;
    default: fprintf(stderr, "usage: ref [-c] [-r reps] [-e epochs] [-s seed] TRAIN [TEST]\n"); return 2;
    }
  }
  if (optind >= argc || reps < 1 || epochs < 1) {
    fprintf(stderr, "usage: ref [-c] [-r reps] [-e epochs] [-s seed] TRAIN [TEST]\n");
    return 2;
  }
  csr X, T;
  readSVM(argv[optind], &X);
  int haveTest = optind + 1 < argc;
  if (haveTest) readSVM(argv[optind + 1], &T);
  int dim = X.dim;
  printf("rows=%d dim=%d nnz=%zu reps=%d epochs=%d\n", X.rows, dim, X.nnz, reps, epochs);

  uint32_t *perm = malloc((size_t)X.rows * sizeof *perm);
  size_t *span = malloc((size_t)X.rows * 2 * sizeof *span);
  float *out = malloc((size_t)X.rows * sizeof *out);
  double *fit = malloc(reps * sizeof *fit), *bt = malloc(reps * sizeof *bt);
  long first = 0, last = 0;
  double acc = 0;
  if (!perm || !span || !out || !fit || !bt) die("out of memory", NULL);
  for (int rep = 0; rep < reps; rep++) {
    model M = {calloc(dim, sizeof(float)), calloc(dim, sizeof(float)), 0, 0, 1};
    if (!M.w || !M.u) die("out of memory", NULL);
    for (int i = 0; i < X.rows; i++) perm[i] = i;
    rs = seed;
    double t0 = now();
    for (int e = 0; e < epochs; e++) {
      shuffle(perm, X.rows);
      long m = epoch(&X, &M, perm, span);
      if (e == 0) first = m;
      last = m;
    }
    fit[rep] = (now() - t0) / epochs;
    if (haveTest) {
      long ok = 0;
      double c = (double)M.c, bavg = M.b - M.ub / c;
      for (int r = 0; r < T.rows; r++) {
        double s = bavg;
        for (size_t j = T.ptr[r]; j < T.ptr[r + 1]; j++) {
          int32_t i = T.ind[j];
          if (i < dim) s += ((double)M.w[i] - (double)M.u[i] / c) * T.val[j];
        }
        ok += (s > 0 ? 1 : -1) == T.y[r];
      }
      acc = (double)ok / T.rows;
    }
    // The bare pass, with the trained weights, after one warm-up pass.
    bare(&X, M.w, out);
    double a = now();
    bare(&X, M.w, out);
    bt[rep] = now() - a;
    volatile float sink = out[X.rows / 2];
    (void)sink;
    free(M.w);
    free(M.u);
  }
  summary("ref.epoch_ms", fit, reps);
  summary("ref.bare_ms", bt, reps);
  if (haveTest) printf("ref.test_acc   %.5f\n", acc);
  printf("ref.mistakes   %ld %ld\n", first, last);
  return 0;
}
