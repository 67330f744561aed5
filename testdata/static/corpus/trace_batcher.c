/*
 * trace_batcher: discrete-event simulation of a multi-server job queue whose
 * event trace goes through an application-level batching layer.  Text records
 * are formatted with snprintf into a 64 KiB buffer that is handed to write()
 * only when nearly full; fixed-size binary records are memcpy'd into a second
 * batch that is flushed with fwrite() every FLUSH_TICKS events (a timer count)
 * or when the batch is full.  Both traces are read back and verified.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_BUF_BYTES (64 * 1024)
#define MAX_LINE 128
#define BIN_BATCH_RECS 512
#define FLUSH_TICKS 200
#define HEAP_CAP 4096
#define READ_CHUNK 16384

enum ev_kind { EV_ARRIVE = 0, EV_START = 1, EV_DONE = 2 };

struct bin_rec {
    uint32_t seq;
    uint32_t job;
    uint16_t kind;
    uint16_t server;
    uint32_t pad;
    double t;
    double wait;
};

struct batcher {
    int text_fd;
    char text_buf[TEXT_BUF_BYTES];
    size_t text_len;
    long text_flushes;
    FILE *bin_fp;
    struct bin_rec bin_buf[BIN_BATCH_RECS];
    int bin_len;
    long bin_flushes;
    long ticks;
    uint64_t seq;
    uint64_t text_sum;   /* sum of job ids over text lines */
};

struct event {
    double t;
    int kind;
    int job;
    int server;
};

struct sim {
    int n_servers;
    int n_jobs;
    double arrival_rate;
    double service_rate;
    struct event heap[HEAP_CAP];
    int heap_n;
    int *queue;            /* ring of waiting job ids */
    int q_head, q_tail, q_cap;
    double *arrived_at;
    int *busy;
    uint64_t rng;
    double total_wait;
    long completed;
};

#define DIE(msg)                                                             \
    do {                                                                     \
        fprintf(stderr, "trace_batcher: %s: %s\n", msg, strerror(errno));   \
        exit(1);                                                             \
    } while (0)

/* Exponential variate from a 64-bit LCG stream. */
static double exp_sample(uint64_t *s, double rate)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = ((*s >> 11) + 0.5) / 9007199254740992.0;
    return -log(u) / rate;
}

static void heap_push(struct sim *S, struct event e)
{
    if (S->heap_n >= HEAP_CAP) {
        fprintf(stderr, "trace_batcher: event heap overflow\n");
        exit(1);
    }
    int i = S->heap_n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (S->heap[p].t <= e.t) break;
        S->heap[i] = S->heap[p];
        i = p;
    }
    S->heap[i] = e;
}

static struct event heap_pop(struct sim *S)
{
    struct event top = S->heap[0], last = S->heap[--S->heap_n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= S->heap_n) break;
        if (c + 1 < S->heap_n && S->heap[c + 1].t < S->heap[c].t) c++;
        if (S->heap[c].t >= last.t) break;
        S->heap[i] = S->heap[c];
        i = c;
    }
    S->heap[i] = last;
    return top;
}

static void flush_text(struct batcher *B)
{
    size_t off = 0;
    while (off < B->text_len) {
        ssize_t n = write(B->text_fd, B->text_buf + off, B->text_len - off);
        if (n < 0) DIE("write text batch");
        off += (size_t)n;
    }
    B->text_len = 0;
    B->text_flushes++;
}

static void flush_binary(struct batcher *B)
{
    if (B->bin_len == 0) return;
    if (fwrite(B->bin_buf, sizeof(struct bin_rec), (size_t)B->bin_len, B->bin_fp) != (size_t)B->bin_len)
        DIE("fwrite binary batch");
    B->bin_len = 0;
    B->bin_flushes++;
}

/* Called for every simulation event, from several places in the simulation. */
static void record_event(struct batcher *B, double t, int kind, int job, int server, double wait)
{
    static const char *names[3] = {"ARRIVE", "START", "DONE"};
    if (TEXT_BUF_BYTES - B->text_len < MAX_LINE) flush_text(B);
    int n = snprintf(B->text_buf + B->text_len, MAX_LINE, "%llu %.6f %s job=%d srv=%d wait=%.6f\n",
                     (unsigned long long)B->seq, t, names[kind], job, server, wait);
    B->text_len += (size_t)n;
    B->text_sum += (uint64_t)job;

    struct bin_rec r;
    memset(&r, 0, sizeof r);
    r.seq = (uint32_t)B->seq;
    r.job = (uint32_t)job;
    r.kind = (uint16_t)kind;
    r.server = (uint16_t)(server < 0 ? 0xffff : server);
    r.t = t;
    r.wait = wait;
    memcpy(&B->bin_buf[B->bin_len++], &r, sizeof r);
    B->seq++;
    B->ticks++;
    if (B->bin_len == BIN_BATCH_RECS || B->ticks % FLUSH_TICKS == 0) flush_binary(B);
}

static void start_service(struct sim *S, struct batcher *B, double now, int job, int server)
{
    double wait = now - S->arrived_at[job];
    S->total_wait += wait;
    S->busy[server] = job;
    record_event(B, now, EV_START, job, server, wait);
    struct event done = {now + exp_sample(&S->rng, S->service_rate), EV_DONE, job, server};
    heap_push(S, done);
}

static void run_simulation(struct sim *S, struct batcher *B)
{
    int next_job = 0;
    struct event first = {exp_sample(&S->rng, S->arrival_rate), EV_ARRIVE, next_job++, -1};
    heap_push(S, first);
    while (S->heap_n > 0) {
        struct event e = heap_pop(S);
        if (e.kind == EV_ARRIVE) {
            S->arrived_at[e.job] = e.t;
            record_event(B, e.t, EV_ARRIVE, e.job, -1, 0.0);
            if (next_job < S->n_jobs) {
                struct event a = {e.t + exp_sample(&S->rng, S->arrival_rate), EV_ARRIVE, next_job++, -1};
                heap_push(S, a);
            }
            int free_srv = -1;
            for (int k = 0; k < S->n_servers; k++)
                if (S->busy[k] < 0) { free_srv = k; break; }
            if (free_srv >= 0) {
                start_service(S, B, e.t, e.job, free_srv);
            } else {
                S->queue[S->q_tail] = e.job;
                S->q_tail = (S->q_tail + 1) % S->q_cap;
            }
        } else {
            S->busy[e.server] = -1;
            S->completed++;
            record_event(B, e.t, EV_DONE, e.job, e.server, 0.0);
            if (S->q_head != S->q_tail) {
                int job = S->queue[S->q_head];
                S->q_head = (S->q_head + 1) % S->q_cap;
                start_service(S, B, e.t, job, e.server);
            }
        }
    }
}

/* Read the text trace back in fixed chunks and re-parse every line. */
static int verify_text(const char *path, uint64_t expect_lines, uint64_t expect_sum)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) DIE("open text trace");
    char chunk[READ_CHUNK + MAX_LINE];
    size_t carry = 0;
    uint64_t lines = 0, sum = 0, prev_seq = 0;
    int bad_order = 0;
    for (;;) {
        ssize_t n = read(fd, chunk + carry, READ_CHUNK);
        if (n < 0) DIE("read text trace");
        if (n == 0) break;
        size_t avail = carry + (size_t)n, start = 0;
        for (size_t i = 0; i < avail; i++) {
            if (chunk[i] != '\n') continue;
            chunk[i] = '\0';
            char *line = chunk + start;
            unsigned long long seq = strtoull(line, NULL, 10);
            char *j = strstr(line, "job=");
            if (j) sum += strtoull(j + 4, NULL, 10);
            if (lines > 0 && seq != prev_seq + 1) bad_order++;
            prev_seq = seq;
            lines++;
            start = i + 1;
        }
        carry = avail - start;
        memmove(chunk, chunk + start, carry);
    }
    close(fd);
    return lines == expect_lines && sum == expect_sum && bad_order == 0 && carry == 0;
}

static int verify_binary(const char *path, uint64_t expect_recs, double expect_wait)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) DIE("fopen binary trace");
    struct bin_rec recs[256];
    uint64_t count = 0;
    double wait = 0.0, last_t = 0.0;
    int bad = 0;
    size_t n;
    while ((n = fread(recs, sizeof recs[0], 256, fp)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (recs[i].seq != (uint32_t)count) bad++;
            if (recs[i].t < last_t) bad++;
            last_t = recs[i].t;
            if (recs[i].kind == EV_START) wait += recs[i].wait;
            count++;
        }
    }
    fclose(fp);
    return bad == 0 && count == expect_recs && fabs(wait - expect_wait) <= 1e-9 * (1.0 + expect_wait);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    if (mkdir(argv[1], 0755) != 0 && errno != EEXIST) DIE("mkdir");
    char p_txt[4096], p_bin[4096], p_sum[4096];
    snprintf(p_txt, sizeof p_txt, "%s/events.log", argv[1]);
    snprintf(p_bin, sizeof p_bin, "%s/events.bin", argv[1]);
    snprintf(p_sum, sizeof p_sum, "%s/queue_summary.txt", argv[1]);

    static struct sim S;
    S.n_servers = 6;
    S.n_jobs = 220000;
    S.arrival_rate = 5.6;
    S.service_rate = 1.0;
    S.q_cap = S.n_jobs + 1;
    S.queue = malloc(sizeof(int) * (size_t)S.q_cap);
    S.arrived_at = calloc((size_t)S.n_jobs, sizeof(double));
    S.busy = malloc(sizeof(int) * (size_t)S.n_servers);
    if (!S.queue || !S.arrived_at || !S.busy) DIE("malloc");
    for (int k = 0; k < S.n_servers; k++) S.busy[k] = -1;
    S.rng = 0x1badcafe5eedULL;

    static struct batcher B;
    B.text_fd = open(p_txt, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (B.text_fd < 0) DIE("open events.log");
    B.bin_fp = fopen(p_bin, "wb");
    if (!B.bin_fp) DIE("fopen events.bin");
    setvbuf(B.bin_fp, NULL, _IONBF, 0); /* the batch is the buffer */

    run_simulation(&S, &B);
    if (B.text_len > 0) flush_text(&B);
    flush_binary(&B);
    close(B.text_fd);
    fclose(B.bin_fp);

    int ok_t = verify_text(p_txt, B.seq, B.text_sum);
    int ok_b = verify_binary(p_bin, B.seq, S.total_wait);

    FILE *f = fopen(p_sum, "w");
    if (!f) DIE("fopen summary");
    fprintf(f, "servers %d jobs %d completed %ld\n", S.n_servers, S.n_jobs, S.completed);
    fprintf(f, "events %llu text_flushes %ld bin_flushes %ld\n", (unsigned long long)B.seq,
            B.text_flushes, B.bin_flushes);
    fprintf(f, "mean wait %.6f\n", S.total_wait / S.n_jobs);
    fclose(f);

    if (!ok_t || !ok_b || S.completed != S.n_jobs) {
        fprintf(stderr, "trace_batcher: check FAILED (text %d binary %d completed %ld)\n", ok_t, ok_b,
                S.completed);
        return 1;
    }
    printf("trace_batcher: ok (%llu events, mean wait %.4f)\n", (unsigned long long)B.seq,
           S.total_wait / S.n_jobs);
    free(S.queue);
    free(S.arrived_at);
    free(S.busy);
    return 0;
}
