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
// With -p it also runs averaged PA-II (Crammer et al. 2006, C = 1) in the
// same process, alternating with the perceptron in every repetition: on
// y·(w·x+b) <= 1 it steps τ = (1 − m)/(‖x‖² + 1 + 1/(2C)) along y·x, so
// it updates on margin violations, not only on mistakes. With -n both
// learners see every row scaled to unit length (x/‖x‖, computed once).
// The two epochs' ratio in each repetition is what a large-margin rule
// costs over the perceptron on the same data and layout.
//
// With -P the binary perceptron and the bare pass read the rows packed,
// each entry one uint32 (the index in the low bits, the value above them),
// where the values are small non-negative integers such as term counts,
// and refuse the file otherwise: the same arithmetic on half the bytes.
//
// With -m it trains multiclass instead (no TEST, no bare pass): the
// perceptron and PA-II alternately in each repetition (see fitMC), with
// float32 accumulators, or float64 ones with -d.
//
// Usage: ref [-c] [-p] [-n] [-P] [-m [-d]] [-r reps] [-e epochs] [-s seed] TRAIN [TEST]
// -c times by the process's CPU time instead of the wall clock.
// TRAIN and TEST are LIBSVM files, gzip-compressed or not (read through
// gzip -dcf, so no zlib is needed). Labels > 0 are the positive class.
// Output, one figure a line, times in ms as median [min-max] over reps:
//   rows=... dim=... nnz=... reps=... epochs=...
//   ref.epoch_ms  M [LO-HI]   (a fit's time divided by its epochs)
//   ref.epoch2_ms M [LO-HI]   (the mean of epochs 2..E, timed from the end of
//                             the first; printed when E > 1)
//   ref.bare_ms   M [LO-HI]
//   ref.test_acc  A            (with TEST)
//   ref.mistakes  first last
// and with -p:
//   pa2.epoch_ms  M [LO-HI]
//   pa2.ratio     M [LO-HI]   (PA-II epoch ÷ perceptron epoch, per repetition)
//   pa2.updates   first last
#include <errno.h>
#include <math.h>
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
  float *lab; // the labels as read
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
    size_t lc = ycap;
    m->y = grow(m->y, &ycap, (size_t)m->rows + 1, sizeof *m->y);
    m->lab = grow(m->lab, &lc, (size_t)m->rows + 1, sizeof *m->lab);
    m->y[m->rows] = label > 0 ? 1 : -1;
    m->lab[m->rows] = (float)label;
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

// epoch runs one averaged-perceptron pass (or with pa one averaged PA-II
// pass) in the order perm and returns the number of updates. span holds, per position, the row's entry range,
// gathered first so that the prefetches need no dependent loads.
static long epoch(const csr *X, model *M, const uint32_t *perm, size_t *span, int pa) {
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
    if (pa) {
      float m = y * s;
      if (m < 1) {
        // ‖x‖² from the row; PA-II's step with C = 1 (the bias is a weight
        // on a constant 1, so it adds 1 to ‖x‖²).
        float xx = 0;
        for (size_t j = a; j < e; j++) xx += val[j] * val[j];
        float t = y * (1 - m) / (xx + 1 + 0.5f);
        float ct = (float)c * t;
        for (size_t j = a; j < e; j++) {
          w[ind[j]] += t * val[j];
          u[ind[j]] += ct * val[j];
        }
        b += t;
        ub += ct;
        mistakes++;
      }
    } else if (y * s <= 0) {
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

// The packed layout (-P): each entry is one uint32, the feature index in
// the low ib bits and the value, a small non-negative integer such as a
// term count, above them. It is lossless only where every value is such
// an integer; it halves the bytes a shuffled epoch fetches per row.
static uint32_t *packed;
static int packBits;

// pack builds the packed entries of X, or returns 0 when a value does not
// fit.
static int pack(const csr *X) {
  packBits = 1;
  while ((1L << packBits) < X->dim) packBits++;
  packed = malloc(X->nnz * sizeof *packed + 64);
  if (!packed) die("out of memory", NULL);
  for (size_t j = 0; j < X->nnz; j++) {
    float v = X->val[j];
    if (!(v >= 0) || v != (float)(uint32_t)v || (uint64_t)v >= (1ULL << (32 - packBits))) return 0;
    packed[j] = ((uint32_t)v << packBits) | (uint32_t)X->ind[j];
  }
  return 1;
}

static inline float dotP(const uint32_t *restrict p, const float *restrict w, size_t a, size_t e) {
  const uint32_t mask = (1u << packBits) - 1, sh = packBits;
  float s[8] = {0};
  size_t j = a;
  for (; j + 8 <= e; j += 8)
    for (int k = 0; k < 8; k++) s[k] += w[p[j + k] & mask] * (float)(p[j + k] >> sh);
  for (; j < e; j++) s[0] += w[p[j] & mask] * (float)(p[j] >> sh);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// epochP is epoch's perceptron on the packed layout.
static long epochP(const csr *X, model *M, const uint32_t *perm, size_t *span) {
  long mistakes = 0;
  float *restrict w = M->w, *restrict u = M->u;
  const uint32_t *restrict p = packed;
  const uint32_t mask = (1u << packBits) - 1, sh = packBits;
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
      for (size_t o = pa; o < pe; o += 16) __builtin_prefetch(p + o);
    }
    size_t a = span[2 * k], e = span[2 * k + 1];
    float y = X->y[perm[k]];
    float s = b + dotP(p, w, a, e);
    if (y * s <= 0) {
      float cy = (float)c * y;
      for (size_t j = a; j < e; j++) {
        uint32_t i = p[j] & mask;
        float v = (float)(p[j] >> sh);
        w[i] += y * v;
        u[i] += cy * v;
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

static void bareAny(const csr *X, const float *w, float *out, int P) {
  if (!P) {
    bare(X, w, out);
    return;
  }
  for (int r = 0; r < X->rows; r++) out[r] = dotP(packed, w, X->ptr[r], X->ptr[r + 1]);
}

// fitPA trains averaged PA-II for epochs from zero with the perceptron's
// shuffles and returns its time per epoch; first and last get the
// updates of its first and last epochs.
static double fitPA(const csr *X, int dim, uint32_t *perm, size_t *span, int epochs, uint64_t seed, long *first, long *last) {
  model M = {calloc(dim, sizeof(float)), calloc(dim, sizeof(float)), 0, 0, 1};
  if (!M.w || !M.u) die("out of memory", NULL);
  for (int i = 0; i < X->rows; i++) perm[i] = i;
  rs = seed;
  double t0 = now();
  for (int e = 0; e < epochs; e++) {
    shuffle(perm, X->rows);
    long m = epoch(X, &M, perm, span, 1);
    if (e == 0) *first = m;
    *last = m;
  }
  double t = (now() - t0) / epochs;
  free(M.w);
  free(M.u);
  return t;
}

// unitRows scales every row of X to unit length (rows of norm 0 stay).
static void unitRows(csr *X) {
  for (int r = 0; r < X->rows; r++) {
    double ss = 0;
    for (size_t j = X->ptr[r]; j < X->ptr[r + 1]; j++) ss += (double)X->val[j] * X->val[j];
    if (ss > 0) {
      float sc = (float)(1 / sqrt(ss));
      for (size_t j = X->ptr[r]; j < X->ptr[r + 1]; j++) X->val[j] *= sc;
    }
  }
}

// The multiclass learners (-m): K weights per feature stored together,
// w[j·K + k] in float32, and the averaging accumulator u beside them,
// float32 or with -d float64 (as hyperplane keeps it, exact over long
// runs). A row's scores are b + W·x; with r the best class other than the
// true one y and m = s[y] − s[r], the perceptron updates when m <= 0 by
// +x on y and −x on r; PA-II when m < 1 by τ = (1 − m)/(2(‖x‖² + 1) + 1/2)
// (C = 1, the bias a weight on a constant 1). u gets c times each change.
typedef struct {
  int K;
  int8_t *cls; // class index per row
} classes;

// An update as the last PA-II epoch made it, kept to replay it alone
// (see replay): the row, the two classes, the step and the clock.
typedef struct {
  uint32_t row;
  int8_t y, r;
  float t;
  int64_t c;
} update;
static update *ulog, *logTo;
static long nlog;

static classes classify(const csr *X) {
  classes C = {0, malloc(X->rows)};
  float seen[128];
  if (!C.cls) die("out of memory", NULL);
  for (int i = 0; i < X->rows; i++) {
    int k = 0;
    while (k < C.K && seen[k] != X->lab[i]) k++;
    if (k == C.K) {
      if (C.K == 128) die("more than 128 classes", NULL);
      seen[C.K++] = X->lab[i];
    }
    C.cls[i] = (int8_t)k;
  }
  return C;
}

#define MC_EPOCH(NAME, UT)                                                                                   \
  static long NAME(const csr *X, const classes *C, float *restrict w, UT *restrict u, float *b, UT *ub,      \
                   int64_t *cp, const uint32_t *perm, size_t *span, int pa) {                                \
    int K = C->K, n = X->rows;                                                                               \
    const int32_t *restrict ind = X->ind;                                                                    \
    const float *restrict val = X->val;                                                                      \
    float s[128];                                                                                            \
    long updates = 0;                                                                                        \
    int64_t c = *cp;                                                                                         \
    for (int k = 0; k < n; k++) {                                                                            \
      span[2 * k] = X->ptr[perm[k]];                                                                         \
      span[2 * k + 1] = X->ptr[perm[k] + 1];                                                                 \
    }                                                                                                        \
    for (int k = 0; k < n; k++) {                                                                            \
      if (k + PREFETCH < n) {                                                                                \
        size_t pa_ = span[2 * (k + PREFETCH)], pe_ = span[2 * (k + PREFETCH) + 1];                           \
        for (size_t o = pa_; o < pe_; o += 16) {                                                             \
          __builtin_prefetch(ind + o);                                                                       \
          __builtin_prefetch(val + o);                                                                       \
        }                                                                                                    \
      }                                                                                                      \
      if (k + 2 < n)                                                                                         \
        for (size_t o = span[2 * (k + 2)]; o < span[2 * (k + 2) + 1]; o++) {                                 \
          const float *p = w + (size_t)ind[o] * K;                                                           \
          __builtin_prefetch(p);                                                                             \
          __builtin_prefetch(p + K - 1);                                                                     \
        }                                                                                                    \
      size_t a = span[2 * k], e = span[2 * k + 1];                                                           \
      int y = C->cls[perm[k]];                                                                               \
      for (int q = 0; q < K; q++) s[q] = b[q];                                                               \
      for (size_t j = a; j < e; j++) {                                                                       \
        const float *wr = w + (size_t)ind[j] * K;                                                            \
        float v = val[j];                                                                                    \
        for (int q = 0; q < K; q++) s[q] += v * wr[q];                                                       \
      }                                                                                                      \
      int r = y == 0 ? 1 : 0;                                                                                \
      for (int q = 0; q < K; q++)                                                                            \
        if (q != y && s[q] > s[r]) r = q;                                                                    \
      float m = s[y] - s[r], t = 0;                                                                          \
      if (pa) {                                                                                              \
        if (m < 1) {                                                                                         \
          float xx = 0;                                                                                      \
          for (size_t j = a; j < e; j++) xx += val[j] * val[j];                                              \
          t = (1 - m) / (2 * (xx + 1) + 0.5f);                                                               \
        }                                                                                                    \
      } else if (m <= 0)                                                                                     \
        t = 1;                                                                                               \
      if (t > 0) {                                                                                           \
        UT ct = (UT)c * t;                                                                                   \
        for (size_t j = a; j < e; j++) {                                                                     \
          size_t o = (size_t)ind[j] * K;                                                                     \
          float d = t * val[j];                                                                              \
          UT du = ct * val[j];                                                                               \
          w[o + y] += d;                                                                                     \
          w[o + r] -= d;                                                                                     \
          u[o + y] += du;                                                                                    \
          u[o + r] -= du;                                                                                    \
        }                                                                                                    \
        b[y] += t, b[r] -= t, ub[y] += ct, ub[r] -= ct;                                                      \
        updates++;                                                                                           \
        if (ulog) ulog[nlog++] = (update){perm[k], (int8_t)y, (int8_t)r, t, c};                              \
      }                                                                                                      \
      c++;                                                                                                   \
    }                                                                                                        \
    *cp = c;                                                                                                 \
    return updates;                                                                                          \
  }
MC_EPOCH(epochMC32, float)
MC_EPOCH(epochMC64, double)

// fitMC trains a multiclass learner (pa: PA-II, else the perceptron) for
// epochs from zero and returns its time per epoch; first and last get the
// updates of its first and last epochs.
static double fitMC(const csr *X, const classes *C, int dbl, int pa, uint32_t *perm, size_t *span, int epochs,
                    uint64_t seed, long *first, long *last) {
  size_t n = (size_t)X->dim * C->K;
  float *w = calloc(n, sizeof *w), *b = calloc(C->K, sizeof *b);
  void *u = calloc(n, dbl ? sizeof(double) : sizeof(float)), *ub = calloc(C->K, sizeof(double));
  if (!w || !b || !u || !ub) die("out of memory", NULL);
  int64_t c = 1;
  for (int i = 0; i < X->rows; i++) perm[i] = i;
  rs = seed;
  double t0 = now();
  for (int e = 0; e < epochs; e++) {
    shuffle(perm, X->rows);
    if (pa && e == epochs - 1) ulog = logTo, nlog = 0; // log the last epoch's updates
    long m = dbl ? epochMC64(X, C, w, u, b, ub, &c, perm, span, pa) : epochMC32(X, C, w, u, b, ub, &c, perm, span, pa);
    ulog = NULL;
    if (e == 0) *first = m;
    *last = m;
  }
  double t = (now() - t0) / epochs;
  free(w), free(b), free(u), free(ub);
  return t;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static void summary(const char *name, double *v, int n) {
  qsort(v, n, sizeof *v, cmpd);
  printf("%-14s %.3f [%.3f-%.3f]\n", name, v[n / 2] * 1e3, v[0] * 1e3, v[n - 1] * 1e3);
}

// replay applies the logged updates alone, in order, to zeroed float32
// weights and float64 accumulators: each row's entries gain t·x on class
// y and lose it on r, u the same times c. No scores, no decisions: the
// least the epoch's updates can cost with this layout.
static double replay(const csr *X, int K, const update *lg, long n) {
  size_t m = (size_t)X->dim * K;
  float *w = calloc(m, sizeof *w);
  double *u = calloc(m, sizeof *u);
  if (!w || !u) die("out of memory", NULL);
  // Touch every page first so that the timing has no page faults in it.
  memset(w, 0, m * sizeof *w);
  memset(u, 0, m * sizeof *u);
  double t0 = now();
  for (long i = 0; i < n; i++) {
    if (i + PREFETCH < n) {
      size_t pa_ = X->ptr[lg[i + PREFETCH].row], pe_ = X->ptr[lg[i + PREFETCH].row + 1];
      for (size_t o = pa_; o < pe_; o += 16) {
        __builtin_prefetch(X->ind + o);
        __builtin_prefetch(X->val + o);
      }
    }
    const update *q = &lg[i];
    double ct = (double)q->c * q->t;
    for (size_t j = X->ptr[q->row]; j < X->ptr[q->row + 1]; j++) {
      size_t o = (size_t)X->ind[j] * K;
      float d = q->t * X->val[j];
      double du = ct * X->val[j];
      w[o + q->y] += d;
      w[o + q->r] -= d;
      u[o + q->y] += du;
      u[o + q->r] -= du;
    }
  }
  double t = now() - t0;
  volatile float sink = w[m / 2];
  (void)sink;
  free(w), free(u);
  return t;
}

// mainMC times the multiclass perceptron and PA-II alternately, reps
// times, and prints both as ref.epoch_ms / pa2.epoch_ms with pa2.ratio.
static int mainMC(const csr *X, int reps, int epochs, uint64_t seed, int dbl) {
  classes C = classify(X);
  printf("rows=%d dim=%d nnz=%zu classes=%d u=%s reps=%d epochs=%d\n", X->rows, X->dim, X->nnz, C.K,
         dbl ? "float64" : "float32", reps, epochs);
  uint32_t *perm = malloc((size_t)X->rows * sizeof *perm);
  size_t *span = malloc((size_t)X->rows * 2 * sizeof *span);
  double *fit = malloc(reps * sizeof *fit), *pfit = malloc(reps * sizeof *pfit), *ratio = malloc(reps * sizeof *ratio);
  if (!perm || !span || !fit || !pfit || !ratio) die("out of memory", NULL);
  long f0 = 0, f1 = 0, p0 = 0, p1 = 0;
  double *rt = malloc(reps * sizeof *rt);
  update *lg = malloc((size_t)X->rows * sizeof *lg);
  if (!rt || !lg) die("out of memory", NULL);
  logTo = lg;
  for (int rep = 0; rep < reps; rep++) {
    for (int h = 0; h < 2; h++) {
      int pa = (h + rep) % 2; // alternate which goes first
      if (pa)
        pfit[rep] = fitMC(X, &C, dbl, 1, perm, span, epochs, seed, &p0, &p1);
      else
        fit[rep] = fitMC(X, &C, dbl, 0, perm, span, epochs, seed, &f0, &f1);
    }
    ratio[rep] = pfit[rep] / fit[rep];
    // The last PA-II epoch's updates (logged by fitMC), replayed alone.
    rt[rep] = replay(X, C.K, lg, nlog);
  }
  summary("ref.epoch_ms", fit, reps);
  printf("ref.mistakes   %ld %ld\n", f0, f1);
  summary("pa2.epoch_ms", pfit, reps);
  qsort(ratio, reps, sizeof *ratio, cmpd);
  printf("%-14s %.3f [%.3f-%.3f]\n", "pa2.ratio", ratio[reps / 2], ratio[0], ratio[reps - 1]);
  printf("pa2.updates    %ld %ld\n", p0, p1);
  summary("replay_ms", rt, reps);
  printf("replay.updates %ld (PA-II's last epoch's, replayed alone)\n", nlog);
  return 0;
}

int main(int argc, char **argv) {
  int reps = 5, epochs = 10, opt, pa = 0, norm = 0, mc = 0, dbl = 0, usePacked = 0;
  uint64_t seed = 1;
  while ((opt = getopt(argc, argv, "r:e:s:cpnmdP")) != -1) {
    switch (opt) {
    case 'r': reps = atoi(optarg); break;
    case 'e': epochs = atoi(optarg); break;
    case 's': seed = strtoull(optarg, NULL, 10); break;
    case 'c': clk = CLOCK_PROCESS_CPUTIME_ID; break;
    case 'p': pa = 1; break;
    case 'n': norm = 1; break;
    case 'm': mc = 1; break;
    case 'd': dbl = 1; break;
    case 'P': usePacked = 1; break;
    default: fprintf(stderr, "usage: ref [-c] [-p] [-n] [-P] [-m [-d]] [-r reps] [-e epochs] [-s seed] TRAIN [TEST]\n"); return 2;
    }
  }
  if (optind >= argc || reps < 1 || epochs < 1) {
    fprintf(stderr, "usage: ref [-c] [-p] [-n] [-P] [-m [-d]] [-r reps] [-e epochs] [-s seed] TRAIN [TEST]\n");
    return 2;
  }
  csr X, T;
  readSVM(argv[optind], &X);
  int haveTest = optind + 1 < argc;
  if (haveTest) readSVM(argv[optind + 1], &T);
  if (norm) {
    unitRows(&X);
    if (haveTest) unitRows(&T);
  }
  int dim = X.dim;
  if (mc) return mainMC(&X, reps, epochs, seed, dbl);
  printf("rows=%d dim=%d nnz=%zu reps=%d epochs=%d\n", X.rows, dim, X.nnz, reps, epochs);
  if (usePacked && !pack(&X)) die("-P: a value is not a small non-negative integer, the packed layout would lose it", NULL);

  uint32_t *perm = malloc((size_t)X.rows * sizeof *perm);
  size_t *span = malloc((size_t)X.rows * 2 * sizeof *span);
  float *out = malloc((size_t)X.rows * sizeof *out);
  double *fit = malloc(reps * sizeof *fit), *bt = malloc(reps * sizeof *bt), *fit2 = malloc(reps * sizeof *fit2);
  double *pfit = malloc(reps * sizeof *pfit), *ratio = malloc(reps * sizeof *ratio);
  long pfirst = 0, plast = 0;
  long first = 0, last = 0;
  double acc = 0;
  if (!perm || !span || !out || !fit || !bt || !fit2 || !pfit || !ratio) die("out of memory", NULL);
  for (int rep = 0; rep < reps; rep++) {
    if (pa) {
      // PA-II first in odd repetitions, second in even ones.
      if (rep % 2) pfit[rep] = fitPA(&X, dim, perm, span, epochs, seed, &pfirst, &plast);
    }
    model M = {calloc(dim, sizeof(float)), calloc(dim, sizeof(float)), 0, 0, 1};
    if (!M.w || !M.u) die("out of memory", NULL);
    for (int i = 0; i < X.rows; i++) perm[i] = i;
    rs = seed;
    double t0 = now(), t1 = t0;
    for (int e = 0; e < epochs; e++) {
      shuffle(perm, X.rows);
      long m = usePacked ? epochP(&X, &M, perm, span) : epoch(&X, &M, perm, span, 0);
      if (e == 0) first = m, t1 = now();
      last = m;
    }
    double tE = now();
    fit[rep] = (tE - t0) / epochs;
    fit2[rep] = epochs > 1 ? (tE - t1) / (epochs - 1) : 0;
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
    bareAny(&X, M.w, out, usePacked);
    double a = now();
    bareAny(&X, M.w, out, usePacked);
    bt[rep] = now() - a;
    volatile float sink = out[X.rows / 2];
    (void)sink;
    free(M.w);
    free(M.u);
    if (pa) {
      if (rep % 2 == 0) pfit[rep] = fitPA(&X, dim, perm, span, epochs, seed, &pfirst, &plast);
      ratio[rep] = pfit[rep] / fit[rep];
    }
  }
  summary("ref.epoch_ms", fit, reps);
  if (epochs > 1) summary("ref.epoch2_ms", fit2, reps);
  summary("ref.bare_ms", bt, reps);
  if (haveTest) printf("ref.test_acc   %.5f\n", acc);
  printf("ref.mistakes   %ld %ld\n", first, last);
  if (pa) {
    summary("pa2.epoch_ms", pfit, reps);
    qsort(ratio, reps, sizeof *ratio, cmpd);
    printf("%-14s %.3f [%.3f-%.3f]\n", "pa2.ratio", ratio[reps / 2], ratio[0], ratio[reps - 1]);
    printf("pa2.updates    %ld %ld\n", pfirst, plast);
  }
  return 0;
}
