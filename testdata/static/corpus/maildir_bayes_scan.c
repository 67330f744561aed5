/* Build a maildir-style tree of many small message files, scan it with
 * opendir/readdir/stat, train a token naive-Bayes filter on labelled
 * folders, classify the inbox, write a report and expire flagged mail. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#define NFOLDERS   4
#define NMSG_TRAIN 700     /* per labelled folder */
#define NMSG_INBOX 800
#define VOCAB      3000
#define HBITS      16
#define HSIZE      (1u << HBITS)
#define MAXMSG     8192

static const char *folders[NFOLDERS] = {"ham", "spam", "inbox", "quarantine"};
static char root[1024];

typedef struct { uint32_t ham, spam; } tokcount_t;
#define LR_EPOCHS  100
#define CV_FOLDS   5
#define MAXFEAT    (2 * NMSG_TRAIN * 400)

static tokcount_t table[HSIZE];
static double     log_odds[HSIZE];
static double     lr_w[HSIZE], lr_bias;

/* per-message unique token ids kept for the logistic-regression pass */
static uint32_t *feat_tok;
static int       feat_off[2 * NMSG_TRAIN + 1], feat_lab[2 * NMSG_TRAIN];
static int       nfeat_msg, nfeat_tok;

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
#define XS64() (rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17, rng_state)

static void make_tree(void)
{
    char p[1200];
    for (int f = 0; f < NFOLDERS; f++) {
        snprintf(p, sizeof p, "%s/%s", root, folders[f]);
        if (mkdir(p, 0755) != 0) { perror(p); exit(1); }
        snprintf(p, sizeof p, "%s/%s/new", root, folders[f]);
        if (mkdir(p, 0755) != 0) { perror(p); exit(1); }
    }
}

/* compose a message body: Zipf-ish word choice, spam shifts the vocabulary */
static int compose_message(char *buf, int is_spam, unsigned id)
{
    int len = snprintf(buf, MAXMSG, "Message-Id: <%u@lab.example>\nX-Label: %s\nSubject: w%u\n\n",
                       id, is_spam ? "spam" : "ham", (unsigned)(XS64() % VOCAB));
    int nwords = 60 + (int)(XS64() % 300);
    for (int w = 0; w < nwords && len < MAXMSG - 16; w++) {
        uint64_t r = XS64();
        double u = (double)(r >> 11) / 9007199254740992.0;
        unsigned word = (unsigned)(VOCAB * u * u * u);
        if (is_spam && (r & 7) < 3) word = (word * 7 + 1500) % VOCAB;
        len += snprintf(buf + len, (size_t)(MAXMSG - len), (w % 12 == 11) ? "w%u\n" : "w%u ", word);
    }
    return len;
}

static int write_messages(const char *folder, int count, int spam_mode, unsigned id0)
{
    char p[1400], buf[MAXMSG];
    int written = 0;
    for (int i = 0; i < count; i++) {
        int is_spam = spam_mode == 2 ? (int)(XS64() % 3 == 0) : spam_mode;
        int len = compose_message(buf, is_spam, id0 + i);
        snprintf(p, sizeof p, "%s/%s/new/%010u.%05d.lab", root, folder, 1700000000u + id0 + i, i);
        int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd < 0) { perror(p); exit(1); }
        if (write(fd, buf, (size_t)len) != len) { perror("write msg"); exit(1); }
        close(fd);
        written += len;
    }
    return written;
}

/* tokenize and accumulate into hashed counts (label from folder) */
static int tokenize_into(const char *text, int n, int is_spam, uint32_t *seen, int mark)
{
    int ntok = 0, i = 0;
    while (i < n && !(text[i] == '\n' && i + 1 < n && text[i + 1] == '\n')) i++;  /* skip headers */
    while (i < n) {
        while (i < n && !isalnum((unsigned char)text[i])) i++;
        uint32_t h = 2166136261u;
        int start = i;
        while (i < n && isalnum((unsigned char)text[i])) { h = (h ^ (unsigned char)text[i]) * 16777619u; i++; }
        if (i == start) break;
        h &= HSIZE - 1;
        if (seen[h] == (uint32_t)mark) continue;   /* count each token once per message */
        seen[h] = (uint32_t)mark;
        if (is_spam) table[h].spam++; else table[h].ham++;
        if (nfeat_tok < MAXFEAT) feat_tok[nfeat_tok++] = h;
        ntok++;
    }
    return ntok;
}

static int read_file(const char *path, char *buf, struct stat *st)
{
    if (stat(path, st) != 0) return -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, MAXMSG);
    close(fd);
    return (int)n;
}

static int train_folder(const char *folder, int is_spam, uint32_t *seen, int *mark, long *bytes)
{
    char dp[1200], fp[1500], buf[MAXMSG];
    snprintf(dp, sizeof dp, "%s/%s/new", root, folder);
    DIR *d = opendir(dp);
    if (!d) { perror(dp); exit(1); }
    struct dirent *de;
    struct stat st;
    int nmsg = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        snprintf(fp, sizeof fp, "%s/%s", dp, de->d_name);
        int n = read_file(fp, buf, &st);
        if (n <= 0) continue;
        *bytes += st.st_size;
        tokenize_into(buf, n, is_spam, seen, ++(*mark));
        if (nfeat_msg < 2 * NMSG_TRAIN) {
            feat_lab[nfeat_msg++] = is_spam;
            feat_off[nfeat_msg] = nfeat_tok;
        }
        nmsg++;
    }
    closedir(d);
    return nmsg;
}

static void build_log_odds(int nham, int nspam)
{
    for (uint32_t h = 0; h < HSIZE; h++) {
        double ps = (table[h].spam + 1.0) / (nspam + 2.0);
        double ph = (table[h].ham + 1.0) / (nham + 2.0);
        log_odds[h] = log(ps) - log(ph) - (log(1 - ps) - log(1 - ph));
    }
}

/* SGD logistic regression over binary token features, L2-regularised;
 * messages with index % CV_FOLDS == holdout are skipped (holdout < 0: use all) */
static double train_logistic(double lambda, int holdout)
{
    double lr = 0.05, loss = 0.0;
    memset(lr_w, 0, sizeof lr_w);
    lr_bias = 0.0;
    for (int ep = 0; ep < LR_EPOCHS; ep++) {
        loss = 0.0;
        for (int t = 0; t < nfeat_msg; t++) {
            int m = (int)(((long)t * 7919 + ep * 104729L) % nfeat_msg);   /* stride permutation */
            if (m % CV_FOLDS == holdout) continue;
            double z = lr_bias;
            for (int k = feat_off[m]; k < feat_off[m + 1]; k++) z += lr_w[feat_tok[k]];
            double p = 1.0 / (1.0 + exp(-z)), g = p - feat_lab[m];
            loss -= feat_lab[m] ? log(p + 1e-12) : log(1 - p + 1e-12);
            for (int k = feat_off[m]; k < feat_off[m + 1]; k++) {
                double *w = &lr_w[feat_tok[k]];
                *w -= lr * (g + lambda * *w);
            }
            lr_bias -= lr * g;
        }
        lr *= 0.95;
    }
    return loss / nfeat_msg;
}

/* k-fold cross-validation of the L2 strength; retrains on all data with the best */
static double cross_validate_lambda(double *best_lambda)
{
    static const double grid[4] = {1e-2, 1e-3, 1e-4, 1e-5};
    double best_ll = 1e300;
    *best_lambda = grid[0];
    for (int g = 0; g < 4; g++) {
        double ll = 0.0;
        for (int fold = 0; fold < CV_FOLDS; fold++) {
            train_logistic(grid[g], fold);
            for (int m = fold; m < nfeat_msg; m += CV_FOLDS) {
                double z = lr_bias;
                for (int k = feat_off[m]; k < feat_off[m + 1]; k++) z += lr_w[feat_tok[k]];
                double p = 1.0 / (1.0 + exp(-z));
                ll -= feat_lab[m] ? log(p + 1e-12) : log(1 - p + 1e-12);
            }
        }
        if (ll < best_ll) { best_ll = ll; *best_lambda = grid[g]; }
    }
    return train_logistic(*best_lambda, -1);
}

static double score_message(const char *text, int n, uint32_t *seen, int mark, double *lr_z)
{
    double s = 0.0;
    *lr_z = lr_bias;
    int i = 0;
    while (i < n && !(text[i] == '\n' && i + 1 < n && text[i + 1] == '\n')) i++;
    while (i < n) {
        while (i < n && !isalnum((unsigned char)text[i])) i++;
        uint32_t h = 2166136261u;
        int start = i;
        while (i < n && isalnum((unsigned char)text[i])) { h = (h ^ (unsigned char)text[i]) * 16777619u; i++; }
        if (i == start) break;
        h &= HSIZE - 1;
        if (seen[h] == (uint32_t)mark) continue;
        seen[h] = (uint32_t)mark;
        s += log_odds[h];
        *lr_z += lr_w[h];
    }
    return s;
}

/* classify inbox, write one report line per message, move spam with rename */
static void classify_inbox(uint32_t *seen, int *mark, int *nspam, int *ncorrect, int *lr_correct, int *total)
{
    char dp[1200], fp[1500], qp[1500], rp[1200], buf[MAXMSG];
    snprintf(dp, sizeof dp, "%s/inbox/new", root);
    snprintf(rp, sizeof rp, "%s/classification.tsv", root);
    FILE *rep = fopen(rp, "w");
    if (!rep) { perror(rp); exit(1); }
    fprintf(rep, "file\tbytes\tnb_score\tlr_logit\tverdict\tlabel\n");
    DIR *d = opendir(dp);
    struct dirent *de;
    struct stat st;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        snprintf(fp, sizeof fp, "%s/%s", dp, de->d_name);
        int n = read_file(fp, buf, &st);
        if (n <= 0) continue;
        buf[n < MAXMSG ? n : MAXMSG - 1] = '\0';
        double lz;
        double sc = score_message(buf, n, seen, ++(*mark), &lz);
        int verdict = sc > 0.0, label = strstr(buf, "X-Label: spam") != NULL;
        *lr_correct += (lz > 0.0) == label;
        fprintf(rep, "%s\t%lld\t%.3f\t%.3f\t%s\t%s\n", de->d_name, (long long)st.st_size, sc, lz,
                verdict ? "spam" : "ham", label ? "spam" : "ham");
        (*total)++;
        *ncorrect += verdict == label;
        if (verdict) {
            snprintf(qp, sizeof qp, "%s/quarantine/new/%s", root, de->d_name);
            if (rename(fp, qp) != 0) perror("rename");
            (*nspam)++;
        }
    }
    closedir(d);
    fclose(rep);
}

/* expire: delete quarantined messages larger than the median size */
static int expire_quarantine(void)
{
    char dp[1200], fp[1500];
    snprintf(dp, sizeof dp, "%s/quarantine/new", root);
    DIR *d = opendir(dp);
    struct dirent *de;
    struct stat st;
    long sizes[NMSG_INBOX];
    int n = 0, removed = 0;
    while ((de = readdir(d)) != NULL && n < NMSG_INBOX) {
        if (de->d_name[0] == '.') continue;
        snprintf(fp, sizeof fp, "%s/%s", dp, de->d_name);
        if (stat(fp, &st) == 0) sizes[n++] = st.st_size;
    }
    long med = 0;
    for (int i = 0; i < n; i++) {            /* median via counting rank */
        int below = 0;
        for (int j = 0; j < n; j++) below += sizes[j] < sizes[i];
        if (below == n / 2) { med = sizes[i]; break; }
    }
    rewinddir(d);
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        snprintf(fp, sizeof fp, "%s/%s", dp, de->d_name);
        if (stat(fp, &st) == 0 && st.st_size > med && unlink(fp) == 0) removed++;
    }
    closedir(d);
    return removed;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: %s dir\n", argv[0]); return 1; }
    snprintf(root, sizeof root, "%s", argv[1]);
    make_tree();
    long wbytes = 0, rbytes = 0;
    wbytes += write_messages("ham", NMSG_TRAIN, 0, 0);
    wbytes += write_messages("spam", NMSG_TRAIN, 1, 100000);
    wbytes += write_messages("inbox", NMSG_INBOX, 2, 200000);

    uint32_t *seen = calloc(HSIZE, sizeof *seen);
    feat_tok = malloc((size_t)MAXFEAT * sizeof *feat_tok);
    int mark = 0;
    int nham = train_folder("ham", 0, seen, &mark, &rbytes);
    int nspam = train_folder("spam", 1, seen, &mark, &rbytes);
    build_log_odds(nham, nspam);
    double lambda;
    double loss = cross_validate_lambda(&lambda);

    int flagged = 0, correct = 0, lr_correct = 0, total = 0;
    classify_inbox(seen, &mark, &flagged, &correct, &lr_correct, &total);
    int expired = expire_quarantine();
    printf("wrote %ld B, trained on %d ham/%d spam (%ld B), inbox %d: flagged %d, nb acc %.3f, lr acc %.3f (lambda %g, loss %.4f), expired %d\n",
           wbytes, nham, nspam, rbytes, total, flagged, (double)correct / total, (double)lr_correct / total, lambda, loss, expired);
    free(seen);
    free(feat_tok);
    return 0;
}
