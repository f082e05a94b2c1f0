// hashpass: the first pass of hashed text training written plainly in C,
// the yardstick for `hyperplane train -epochs 1 -no-calibrate
// -vocab=false` on a JSONL file of {"label": ..., "text": ...} lines.
//
// What it does, on T threads (default 2), each on its own share of the
// lines:
//   - finds the "label" and "text" string fields of each line (no full
//     JSON parser: the first occurrence of each key, string values);
//   - cuts the text into tokens: runs of ASCII letters and digits,
//     lowercased, and of bytes >= 0x80 (every non-ASCII byte counts as a
//     letter); a backslash escape ends a token (\uXXXX of a code point
//     >= 0x80 is taken as a letter);
//   - hashes every token and every pair of neighbouring tokens into 2^B
//     signed buckets (B = 20 by default), sorts the document's buckets
//     (LSD radix) and sums the signs into raw counts;
//   - counts each bucket's document frequency;
//   - keeps the rows (bucket, count) in memory.
// Then, on one thread: the IDF weights, and one epoch of the averaged
// PA-II learner (C = 1) over the rows in storage order, each row weighed
// on the way (1 + ln tf, times IDF, unit length).
//
// It is optimistic where hyperplane cannot be: no Unicode tables, no
// JSON validation, no error positions, no cache file (the rows stay in
// memory), no shuffle, no memory budget. Its time is therefore a floor
// for the same work, not a rival implementation.
//
// Build: gcc -O3 -march=native -pthread -o hashpass hashpass.c -lm
// Usage: hashpass [-t THREADS] [-b BITS] FILE
// Output: one line of figures: pass1_s (read, tokenize, hash, count),
// idf_s, epoch_s, total_s, rows, nnz, mistakes.
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *m) {
  fprintf(stderr, "hashpass: %s\n", m);
  exit(1);
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) die("out of memory");
  return p;
}

static int bits = 20;
static int vocab = 0; // -v: a vocabulary of the terms in >= 2 documents instead of hashing

// mix64 is a 64-bit finalizer (the murmur3 one).
static inline uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

typedef struct {
  const char *lo, *hi; // the lines of this share
  int32_t *df;         // document frequencies, 2^bits
  // rows
  int32_t *ind;
  float *cnt;
  size_t nnz, cap;
  size_t *ptr;
  int8_t *y;
  size_t rows, rcap;
  // scratch
  uint32_t *keys, *tmp;
  size_t kcap;
  // -v: the share's terms, numbered in order of first sight: an open
  // addressing table of their hashes (slot: hash, number + 1), each
  // number's hash and document frequency.
  uint64_t *slot_h;
  uint32_t *slot_n;
  size_t slots, nterms, tcap;
  uint64_t *term_h;
  int32_t *term_df;
  int32_t *to_id; // after the pass: each term's feature, or -1
} share;

static size_t slot_of(uint64_t h, size_t slots) { return (size_t)(mix64(h) & (slots - 1)); }

// term_num returns the number of the term with hash h in s, numbering it
// if it is new.
static uint32_t term_num(share *s, uint64_t h) {
  if (2 * (s->nterms + 1) > s->slots) {
    size_t ns = s->slots ? 2 * s->slots : 1 << 16;
    uint64_t *nh = calloc(ns, 8);
    uint32_t *nn = calloc(ns, 4);
    if (!nh || !nn) die("out of memory");
    for (size_t i = 0; i < s->slots; i++) {
      if (!s->slot_n[i]) continue;
      size_t j = slot_of(s->slot_h[i], ns);
      while (nn[j]) j = (j + 1) & (ns - 1);
      nh[j] = s->slot_h[i], nn[j] = s->slot_n[i];
    }
    free(s->slot_h), free(s->slot_n);
    s->slot_h = nh, s->slot_n = nn, s->slots = ns;
  }
  size_t j = slot_of(h, s->slots);
  for (;;) {
    if (!s->slot_n[j]) break;
    if (s->slot_h[j] == h) return s->slot_n[j] - 1;
    j = (j + 1) & (s->slots - 1);
  }
  if (s->nterms == s->tcap) {
    s->tcap = s->tcap ? 2 * s->tcap : 1 << 16;
    s->term_h = xrealloc(s->term_h, s->tcap * 8);
    s->term_df = xrealloc(s->term_df, s->tcap * 4);
  }
  s->term_h[s->nterms] = h, s->term_df[s->nterms] = 0;
  s->slot_h[j] = h, s->slot_n[j] = (uint32_t)++s->nterms;
  return (uint32_t)(s->nterms - 1);
}

static void push_key(share *s, size_t *n, uint32_t k) {
  if (*n == s->kcap) {
    s->kcap = s->kcap ? 2 * s->kcap : 4096;
    s->keys = xrealloc(s->keys, s->kcap * 4);
    s->tmp = xrealloc(s->tmp, s->kcap * 4);
  }
  s->keys[(*n)++] = k;
}

static inline uint32_t key_of(uint64_t h) {
  uint64_t mask = (1ULL << bits) - 1;
  return (uint32_t)((h & mask) << 1 | h >> 63);
}

static uint32_t term_num(share *s, uint64_t h);

static inline uint32_t term_key(share *s, uint64_t h) { return vocab ? term_num(s, h) << 1 : key_of(h); }

// sort_keys sorts a[0..n) by LSD radix (8 bits a pass), skipping passes
// where every key has the same byte; returns where the result is.
static uint32_t *sort_keys(uint32_t *a, uint32_t *tmp, size_t n) {
  if (n <= 32) {
    for (size_t i = 1; i < n; i++) {
      uint32_t k = a[i];
      size_t j = i;
      for (; j > 0 && a[j - 1] > k; j--) a[j] = a[j - 1];
      a[j] = k;
    }
    return a;
  }
  uint32_t count[4][256];
  memset(count, 0, sizeof count);
  for (size_t i = 0; i < n; i++) {
    uint32_t k = a[i];
    count[0][k & 0xff]++;
    count[1][k >> 8 & 0xff]++;
    count[2][k >> 16 & 0xff]++;
    count[3][k >> 24]++;
  }
  uint32_t *src = a, *dst = tmp;
  for (int p = 0; p < 4; p++) {
    int sh = 8 * p;
    uint32_t *c = count[p];
    if (c[src[0] >> sh & 0xff] == n) continue;
    uint32_t sum = 0;
    for (int d = 0; d < 256; d++) {
      uint32_t v = c[d];
      c[d] = sum;
      sum += v;
    }
    for (size_t i = 0; i < n; i++) {
      uint32_t k = src[i];
      dst[c[k >> sh & 0xff]++] = k;
    }
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
  return src;
}

// field returns the start of the string value of "key" in [p, e), or NULL.
static const char *field(const char *p, const char *e, const char *key, size_t klen) {
  for (;;) {
    const char *q = memmem(p, e - p, key, klen);
    if (!q) return NULL;
    q += klen;
    while (q < e && (*q == ' ' || *q == ':')) q++;
    if (q < e && *q == '"') return q + 1;
    p = q;
  }
}

static inline int is_word(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// lower maps a byte of a token to its lowercase form, and every other
// byte to 0.
static unsigned char lower[256];

static void init_lower(void) {
  for (int c = 0; c < 256; c++) lower[c] = is_word(c) ? ((c >= 'A' && c <= 'Z') ? c + 32 : c) : 0;
}

static inline int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

// word_at returns the length of the piece of a token at p: 1 for a
// letter, digit or non-ASCII byte, 6 for a \u escape of a non-ASCII code
// point, 0 for anything else.
static inline int word_at(const char *p, const char *e) {
  if (is_word((unsigned char)*p)) return 1;
  if (*p == '\\' && e - p >= 6 && p[1] == 'u') {
    int v = 0;
    for (int i = 2; i < 6; i++) {
      int h = hexval(p[i]);
      if (h < 0) return 0;
      v = v << 4 | h;
    }
    return v >= 0x80 ? 6 : 0;
  }
  return 0;
}

// doc cuts the text at p (inside a JSON string, up to its closing quote)
// into tokens and their pairs, and appends the document's row.
static void doc(share *s, const char *p, const char *e) {
  size_t n = 0;
  uint64_t prev = 0;
  int have = 0;
  char tok[256];
  while (p < e && *p != '"') {
    int u = word_at(p, e);
    if (!u) {
      p += *p == '\\' ? 2 : 1; // an escape ends a token
      continue;
    }
    // A token: lowercase ASCII, hash 8 bytes at a time.
    size_t t = 0;
    for (;;) {
      unsigned char d;
      while (p < e && t < sizeof tok && (d = lower[(unsigned char)*p]) != 0) tok[t++] = d, p++;
      if (t + 6 <= sizeof tok && word_at(p, e) == 6) {
        memcpy(tok + t, p, 6), t += 6, p += 6;
        continue;
      }
      break;
    }
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < t; i += 8) {
      uint64_t w = 0;
      memcpy(&w, tok + i, t - i < 8 ? t - i : 8);
      h = mix64(h ^ w);
    }
    push_key(s, &n, term_key(s, h));
    if (have) push_key(s, &n, term_key(s, mix64(prev * 31 + h)));
    prev = h, have = 1;
  }
  uint32_t *k = sort_keys(s->keys, s->tmp, n);
  if (s->nnz + n > s->cap) {
    while (s->nnz + n > s->cap) s->cap = s->cap ? 2 * s->cap : 1 << 20;
    s->ind = xrealloc(s->ind, s->cap * 4);
    s->cnt = xrealloc(s->cnt, s->cap * 4);
  }
  for (size_t j = 0; j < n;) {
    uint32_t f = k[j] >> 1;
    int tf = 0;
    for (; j < n && k[j] >> 1 == f; j++) tf += 1 - 2 * (int)(k[j] & 1);
    if (tf) {
      s->ind[s->nnz] = f;
      s->cnt[s->nnz++] = (float)tf;
      if (vocab) s->term_df[f]++;
      else s->df[f]++;
    }
  }
}

static void *run_share(void *arg) {
  share *s = arg;
  s->df = vocab ? NULL : calloc((size_t)1 << bits, 4);
  if (!vocab && !s->df) die("out of memory");
  const char *p = s->lo;
  while (p < s->hi) {
    const char *e = memchr(p, '\n', s->hi - p);
    if (!e) e = s->hi;
    const char *lab = field(p, e, "\"label\"", 7);
    const char *txt = field(p, e, "\"text\"", 6);
    if (lab && txt) {
      if (s->rows + 1 >= s->rcap) {
        s->rcap = s->rcap ? 2 * s->rcap : 4096;
        s->ptr = xrealloc(s->ptr, (s->rcap + 1) * sizeof(size_t));
        s->y = xrealloc(s->y, s->rcap);
      }
      if (s->rows == 0) s->ptr[0] = 0;
      // Binary labels: "pos"/"1"/... positive; "neg", "0", "-1" negative.
      s->y[s->rows] = (*lab == 'n' || *lab == '0' || *lab == '-') ? -1 : 1;
      doc(s, txt, e);
      s->ptr[++s->rows] = s->nnz;
    }
    p = e + 1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int T = 2, o;
  while ((o = getopt(argc, argv, "t:b:v")) != -1) {
    if (o == 't') T = atoi(optarg);
    else if (o == 'v') vocab = 1;
    else if (o == 'b') bits = atoi(optarg);
    else die("usage: hashpass [-v] [-t THREADS] [-b BITS] FILE");
  }
  if (optind != argc - 1 || T < 1 || T > 64 || bits < 1 || bits > 30) die("usage: hashpass [-v] [-t THREADS] [-b BITS] FILE");
  init_lower();
  double t0 = now();
  int fd = open(argv[optind], O_RDONLY);
  if (fd < 0) die("cannot open the file");
  struct stat st;
  fstat(fd, &st);
  size_t len = st.st_size;
  const char *buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  if (buf == MAP_FAILED) die("mmap");
  madvise((void *)buf, len, MADV_SEQUENTIAL);
  share *sh = calloc(T, sizeof *sh);
  pthread_t *th = calloc(T, sizeof *th);
  const char *p = buf;
  for (int i = 0; i < T; i++) {
    const char *hi = i == T - 1 ? buf + len : buf + len / T * (i + 1);
    if (hi < buf + len) {
      const char *nl = memchr(hi, '\n', buf + len - hi);
      hi = nl ? nl + 1 : buf + len;
    }
    if (hi < p) hi = p;
    sh[i].lo = p, sh[i].hi = hi;
    p = hi;
    pthread_create(&th[i], NULL, run_share, &sh[i]);
  }
  for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
  double t1 = now();
  size_t D = (size_t)1 << bits, rows = 0, nnz = 0;
  for (int i = 0; i < T; i++) rows += sh[i].rows, nnz += sh[i].nnz;
  float *idf;
  if (!vocab) {
    idf = malloc(D * 4);
    for (size_t j = 0; j < D; j++) {
      int64_t df = 0;
      for (int i = 0; i < T; i++) df += sh[i].df[j];
      idf[j] = (float)(log((1.0 + rows) / (1.0 + df)) + 1);
    }
  } else {
    // Merge the shares' terms into one table (each term's global number,
    // its summed frequency), keep those in >= 2 documents as features,
    // and map every share's numbers to them.
    share g = {0};
    for (int i = 0; i < T; i++) {
      share *s = &sh[i];
      s->to_id = malloc((s->nterms + 1) * 4);
      for (size_t t = 0; t < s->nterms; t++) s->to_id[t] = (int32_t)term_num(&g, s->term_h[t]);
    }
    int32_t *gdf = NULL;
    gdf = xrealloc(gdf, (g.nterms + 1) * 4);
    memset(gdf, 0, (g.nterms + 1) * 4);
    for (int i = 0; i < T; i++)
      for (size_t t = 0; t < sh[i].nterms; t++) gdf[sh[i].to_id[t]] += sh[i].term_df[t];
    int32_t *id = malloc((g.nterms + 1) * 4);
    D = 0;
    for (size_t k = 0; k < g.nterms; k++) id[k] = gdf[k] >= 2 ? (int32_t)D++ : -1;
    idf = malloc((D + 1) * 4);
    for (size_t k = 0; k < g.nterms; k++)
      if (id[k] >= 0) idf[id[k]] = (float)(log((1.0 + rows) / (1.0 + gdf[k])) + 1);
    for (int i = 0; i < T; i++)
      for (size_t t = 0; t < sh[i].nterms; t++) sh[i].to_id[t] = id[sh[i].to_id[t]];
  }
  double t2 = now();
  // One epoch of averaged PA-II (C = 1), rows weighed on the way.
  float logtab[256];
  for (int k = 0; k < 256; k++) logtab[k] = (float)(1 + log(k));
  float *w = calloc(D, 4), b = 0;
  double *u = calloc(D, 8), ub = 0;
  double c = 1;
  long mistakes = 0;
  float *x = NULL, *fc = NULL;
  int32_t *fi = NULL;
  size_t xcap = 0, fcap = 0;
  for (int i = 0; i < T; i++) {
    share *s = &sh[i];
    for (size_t r = 0; r < s->rows; r++) {
      size_t lo = s->ptr[r], hi = s->ptr[r + 1], n = hi - lo;
      if (n > xcap) xcap = n * 2, x = xrealloc(x, xcap * 4);
      const int32_t *ind = s->ind + lo;
      const float *cnt = s->cnt + lo;
      if (vocab) {
        // The row's terms as features, those outside the vocabulary
        // dropped.
        if (n > fcap) fcap = n * 2, fi = xrealloc(fi, fcap * 4), fc = xrealloc(fc, fcap * 4);
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
          int32_t j = s->to_id[ind[k]];
          if (j >= 0) fi[m] = j, fc[m++] = cnt[k];
        }
        ind = fi, cnt = fc, n = m;
      }
      double ss = 0;
      for (size_t k = 0; k < n; k++) {
        float t = cnt[k], a = fabsf(t);
        float v = (a < 256 && a == (int)a ? logtab[(int)a] : (float)(1 + log(a))) * idf[ind[k]];
        if (t < 0) v = -v;
        x[k] = v;
        ss += (double)v * v;
      }
      float sc = ss > 0 ? (float)(1 / sqrt(ss)) : 0;
      for (size_t k = 0; k < n; k++) x[k] *= sc;
      float dot = b;
      for (size_t k = 0; k < n; k++) dot += w[ind[k]] * x[k];
      float y = s->y[r], m = y * dot;
      if (m <= 0) mistakes++;
      if (m < 1) {
        float tau = (1 - m) / (1 + 1 + 0.5f); // ‖x‖² = 1, the bias, 1/(2C)
        float a = tau * y;
        for (size_t k = 0; k < n; k++) {
          float d = a * x[k];
          w[ind[k]] += d;
          u[ind[k]] += c * d;
        }
        b += a, ub += c * a;
      }
      c++;
    }
  }
  double t3 = now();
  // Keep the model alive: the averaged weight of bucket 0.
  volatile double keep = w[0] - u[0] / c;
  (void)keep;
  printf("features %zu ", D);
  printf("pass1_s %.3f idf_s %.3f epoch_s %.3f total_s %.3f rows %zu nnz %zu mistakes %ld\n", t1 - t0, t2 - t1, t3 - t2,
         t3 - t0, rows, nnz, mistakes);
  return 0;
}
